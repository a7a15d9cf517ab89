"""Options every tool factory accepts: operations overrides and the settings that shape the tools.

One object serves all factories (each reads the fields it needs), so the coding layer can build
it once from settings and pass it to ``create_coding_tools``/``create_tools``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from pi_harness.coding.tools.file_freshness import FileViews
from pi_harness.coding.tools.process import KILL_GRACE_SECONDS

if TYPE_CHECKING:  # types only: the operations load with the tools' bodies (``lazy.py``)
    from pi_harness.ai.models import ImageResize
    from pi_harness.coding.tools.operations import (
        BashOperations,
        EditOperations,
        FindOperations,
        GrepOperations,
        LsOperations,
        ReadOperations,
        WriteOperations,
    )
    from pi_harness.coding.tools.shell import EnvProvider


class SpawnContext(TypedDict):
    command: str
    cwd: str
    env: dict[str, str]


SpawnHook = Callable[[SpawnContext], SpawnContext]


@dataclass
class ToolOptions:
    # Operations overrides (see operations.py); None = act on this machine.
    read_operations: ReadOperations | None = None
    write_operations: WriteOperations | None = None
    edit_operations: EditOperations | None = None
    bash_operations: BashOperations | None = None
    grep_operations: GrepOperations | None = None
    find_operations: FindOperations | None = None
    ls_operations: LsOperations | None = None
    powershell_operations: BashOperations | None = None
    # read: settings images.autoResize and images.blockImages.
    auto_resize_images: bool = True
    block_images: bool = False
    # read: the current model's ``inputLimits.images.resize`` (called per read, so it follows
    # model changes); None = the default limits.
    image_resize: Callable[[], ImageResize] | None = None
    # bash: settings shellPath, shellCommandPrefix and tools.reapOrphans (beyond Pi).
    shell_path: str | None = None
    shell_command_prefix: str | None = None
    reap_orphans: bool = False
    kill_grace: float = KILL_GRACE_SECONDS
    # Extra environment for every command: PI_SESSION_ID, PI_SESSION_FILE, PI_PROVIDER, PI_MODEL,
    # PI_REASONING_LEVEL (called at each execution, so it follows model/session changes).
    env: EnvProvider | None = None
    spawn_hook: SpawnHook | None = None
    # grep/find: None = ripgrep when found, else the Python walker; False = always the walker;
    # True = ripgrep required.
    use_ripgrep: bool | None = None
    # Agent directory (for <agentDir>/bin and messages); None = $PI_CODING_AGENT_DIR or ~/.pi/agent.
    agent_dir: str | Path | None = None
    settings_path: str | None = None  # named in the "Custom shell path not found" message
    # read/edit/write: settings tools.staleEditCheck and tools.staleWriteCheck (beyond Pi), and
    # what the model last saw of each file (shared by the tools created with these options; a
    # session gets its own).
    stale_edit_check: bool = True
    stale_write_check: bool = False
    file_views: FileViews = field(default_factory=FileViews)

    def tracks_reads(self) -> bool:
        return self.stale_edit_check or self.stale_write_check
