"""The ``powershell`` tool: the bash tool's behaviour around PowerShell.

Commands run as ``pwsh -NoProfile -NonInteractive -Command <command>`` (``powershell.exe`` on
Windows when ``pwsh`` is missing). The tool exists only where such an executable is found.
"""

from __future__ import annotations

import shutil
import sys

from pi_harness.agent.types import AgentTool
from pi_harness.coding.tools.bash import BASH_PARAMETERS, run_shell_tool
from pi_harness.coding.tools.definition import BuiltinTool
from pi_harness.coding.tools.operations import BashOperations, LocalBashOperations
from pi_harness.coding.tools.options import ToolOptions
from pi_harness.coding.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES

POWERSHELL_DESCRIPTION = (
    "Execute a PowerShell command in the current working directory and return its combined output. "
    f"Only the last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB of output are returned, "
    "whichever limit is hit first; when output is cut, the complete output is saved to a temporary file "
    "whose path is given. You may pass a timeout in seconds."
)


class PowerShellUnavailableError(RuntimeError):
    pass


def find_powershell() -> str | None:
    found = shutil.which("pwsh")
    if found is None and sys.platform == "win32":  # pragma: no cover - Windows only
        found = shutil.which("powershell.exe")
    return found


def powershell_available() -> bool:
    return find_powershell() is not None


def _powershell_operations(options: ToolOptions) -> BashOperations:
    """Raises :class:`PowerShellUnavailableError` where no PowerShell executable exists."""
    executable = find_powershell()
    if executable is None:
        raise PowerShellUnavailableError("PowerShell (pwsh) is not available on this system")
    return options.powershell_operations or LocalBashOperations(
        shell_argv=[executable, "-NoProfile", "-NonInteractive", "-Command"],
        reap_orphans=options.reap_orphans,
        kill_grace=options.kill_grace,
    )


POWERSHELL_TOOL = BuiltinTool(
    name="powershell",
    description=POWERSHELL_DESCRIPTION,
    parameters=BASH_PARAMETERS,
    prompt_snippet="Run PowerShell commands",
    operations=_powershell_operations,
    run=run_shell_tool,
    abort_check_first=False,
)


def create_powershell_tool(cwd: str, options: ToolOptions | None = None) -> AgentTool:
    """Raises :class:`PowerShellUnavailableError` where no PowerShell executable exists."""
    return POWERSHELL_TOOL.create(cwd, options)
