"""``McpOptions``: how the host configures ``builtin:mcp`` (kept apart so the factory loads light)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pi_harness.coding.extensions import agent_dir
from pi_harness.extensions_builtin.mcp.policy import RETRY_DELAYS_S, ConnectionSettings, RetryPolicy

EXTENSION_NAME = "builtin:mcp"
FIRST_PROMPT_WAIT_S = 10.0


@dataclass(frozen=True)
class McpOptions:
    agent_dir: Path | None = None  # default: $PI_CODING_AGENT_DIR or ~/.pi/agent
    project_trusted: bool | Callable[[], bool] = False
    first_prompt_wait_s: float = FIRST_PROMPT_WAIT_S
    connect_timeout_s: float | None = None  # spawn + initialize + first tools/list; None = the server's timeout
    retry_delays_s: tuple[float, ...] = RETRY_DELAYS_S  # one retry of a transient HTTP failure per entry
    # How ``/mcp login`` opens the authorization page; None: a graphical browser, when there is one.
    open_url: Callable[[str], object] | None = None

    def resolved_agent_dir(self) -> Path:
        return self.agent_dir if self.agent_dir is not None else agent_dir()

    def is_project_trusted(self) -> bool:
        value = self.project_trusted
        return bool(value() if callable(value) else value)

    def connection_settings(self) -> ConnectionSettings:
        return ConnectionSettings(
            connect_timeout_s=self.connect_timeout_s,
            retry=RetryPolicy(self.retry_delays_s),
            auth_dir=self.resolved_agent_dir(),
        )
