"""The ``powershell`` tool: the bash tool's behaviour around PowerShell.

Commands run as ``pwsh -NoProfile -NonInteractive -Command <command>`` (``powershell.exe`` on
Windows when ``pwsh`` is missing). The tool exists only where such an executable is found.
"""

from __future__ import annotations

from pi_harness.agent.types import AgentTool
from pi_harness.coding.tools.bash import run_shell_tool
from pi_harness.coding.tools.declarations import POWERSHELL, find_powershell
from pi_harness.coding.tools.definition import BuiltinTool
from pi_harness.coding.tools.operations import BashOperations, LocalBashOperations
from pi_harness.coding.tools.options import ToolOptions


class PowerShellUnavailableError(RuntimeError):
    pass


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


POWERSHELL_TOOL = BuiltinTool.declared(
    POWERSHELL,
    operations=_powershell_operations,
    run=run_shell_tool,
    abort_check_first=False,
)


def create_powershell_tool(cwd: str, options: ToolOptions | None = None) -> AgentTool:
    """Raises :class:`PowerShellUnavailableError` where no PowerShell executable exists."""
    return POWERSHELL_TOOL.create(cwd, options)
