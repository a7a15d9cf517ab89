"""``pi mcp list``: the configured MCP servers, whether they connect, and their tools.

Exit code 1 when a configuration is invalid or an enabled server is not connected, else 0.
The project's ``.pi/mcp.json`` counts only for a trusted project (``--approve`` /
``--no-approve``, else the saved decision, else ``defaultProjectTrust: "always"``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from pi_harness.cli.subcommands.common import UsageError, parse_command_args

USAGE = "Usage: pi mcp list [--approve | --no-approve]"


def _trusted(cwd: Path, agent_directory: Path, cli: bool | None) -> bool:
    from pi_harness.coding.config.settings import SettingsManager
    from pi_harness.coding.config.trust import TrustStore

    if cli is not None:
        return cli
    saved = TrustStore(agent_directory).get(cwd)
    if saved is not None:
        return saved
    settings = SettingsManager(agent_directory / "settings.json", None, project_trusted=False)
    return settings.values.default_project_trust == "always"


def run_mcp_command(argv: Sequence[str]) -> int:
    try:
        args = parse_command_args(
            "mcp",
            argv,
            switches=("--approve", "--no-approve", "--help"),
            aliases={"-a": "--approve", "-na": "--no-approve", "-h": "--help"},
        )
    except UsageError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    if "--help" in args.switches or not args.positionals:
        print(USAGE)
        return 0 if "--help" in args.switches else 1
    if args.positionals != ["list"]:
        print(f"Error: unknown mcp command: {' '.join(args.positionals)}\n{USAGE}", file=sys.stderr)
        return 1
    from pi_harness.coding.config.paths import agent_dir
    from pi_harness.extensions_builtin.mcp import McpOptions, mcp_list

    cwd = Path(os.getcwd())
    directory = agent_dir()
    cli = True if "--approve" in args.switches else False if "--no-approve" in args.switches else None
    text, code = mcp_list(cwd, McpOptions(agent_dir=directory, project_trusted=_trusted(cwd, directory, cli)))
    print(text)
    return code
