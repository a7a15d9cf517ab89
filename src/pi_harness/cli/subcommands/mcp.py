"""``pi mcp add|remove|list``: configure and check MCP servers without starting a session.

``add`` and ``remove`` edit ``<agentDir>/mcp.json`` (``-l``/``--local``: the project's
``.pi/mcp.json``) the way Pi 1.4.0 does; ``list [--json]`` connects to every enabled server and
exits 1 when a configuration is invalid or an enabled server is not connected. The project's file
counts for ``list`` only in a trusted project (``--approve`` / ``--no-approve``, else the saved
decision, else ``defaultProjectTrust: "always"``). ``login`` runs the OAuth sign-in of an HTTP
server in the browser and ``logout`` deletes its stored credentials (``mcp-auth.json``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

HELP = """Usage:
  pi mcp add <server> [options] -- <command> [args...]
  pi mcp add <server> [options] --url <url>
  pi mcp remove <server> [-l]
  pi mcp list [--json] [--approve | --no-approve]
  pi mcp login <server> [--timeout <seconds>]
  pi mcp logout <server>

Add, remove and check the MCP servers of ~/.pi/agent/mcp.json and, in a trusted project,
.pi/mcp.json, without starting a session.

Commands:
  add <server>            Write the server into mcp.json (an entry of that name is replaced)
  remove <server>         Delete the server from mcp.json
  list                    Connect to each enabled server and report it (exit code 1 on a failure)
  login <server>          Sign in to an OAuth server in the browser
  logout <server>         Forget the OAuth credentials stored for a server

Options of add and remove:
  -l, --local             Edit the project's .pi/mcp.json, not the global file

Options of add:
  --url <url>             A streamable HTTP server at this URL (instead of a command after --)
  --env <KEY=VALUE>       An environment variable of a stdio server (repeatable)
  --cwd <dir>             The working directory of a stdio server
  --header <KEY=VALUE>    An HTTP header (repeatable)
  --bearer-token-env-var <NAME>
                          Send the header "Authorization: Bearer ${NAME}"
  --oauth-client-id <id>  The id of an OAuth client registered in advance
  --oauth-client-secret <secret>
                          Its secret (a value, ${NAME} or !command)
  --oauth-callback-port <port>
                          A fixed port for the OAuth callback
  --oauth-client-name <name>
                          The client name to register with the OAuth server
  --exposure <mode>       codemode (the default), deferred, direct or hidden
  --description <text>    One sentence on what the server offers

Options of list:
  --json                  Print the report as JSON
  --approve, --no-approve Read, or do not read, the project's .pi/mcp.json this time

Options of login:
  --timeout <seconds>     How long the whole sign-in may take (default: 300)"""


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


def _list(rest: list[str], cwd: Path, directory: Path) -> int:
    from pi_harness.extensions_builtin.mcp import McpOptions, mcp_list

    aliases = {"-a": "--approve", "-na": "--no-approve"}
    options = [aliases.get(arg, arg) for arg in rest]
    unknown = [arg for arg in options if arg not in ("--json", "--approve", "--no-approve")]
    if unknown:
        start = unknown[0]
        message = f"Unknown option {start}." if start.startswith("-") else "Usage: pi mcp list [--json]"
        print(f'{message}\nUse "pi mcp --help" for usage.', file=sys.stderr)
        return 1
    cli = True if "--approve" in options else False if "--no-approve" in options else None
    trusted = _trusted(cwd, directory, cli)
    text, code = mcp_list(cwd, McpOptions(agent_dir=directory, project_trusted=trusted), as_json="--json" in options)
    print(text)
    return code


def run_mcp_command(argv: Sequence[str]) -> int:
    args = list(argv)
    if not args or args[0] == "help" or "--help" in args or "-h" in args:
        print(HELP)
        return 0
    from pi_harness.coding.config.paths import agent_dir

    command, rest = args[0], args[1:]
    cwd = Path(os.getcwd())
    directory = agent_dir()
    if command == "list":
        return _list(rest, cwd, directory)
    if command in ("login", "logout"):
        from pi_harness.cli.subcommands.auth_login import open_in_browser
        from pi_harness.extensions_builtin.mcp.login import mcp_login, mcp_logout

        trusted = _trusted(cwd, directory, None)
        if command == "login":
            outcome = mcp_login(
                rest,
                cwd=cwd,
                agent_directory=directory,
                project_trusted=trusted,
                open_url=open_in_browser,
                paste_from_terminal=sys.stdin is not None and sys.stdin.isatty(),
            )
        else:
            outcome = mcp_logout(rest, cwd=cwd, agent_directory=directory, project_trusted=trusted)
        for line in outcome.out:
            print(line)
        for line in outcome.err:
            print(line, file=sys.stderr)
        return outcome.code
    if command in ("add", "remove"):
        from pi_harness.extensions_builtin.mcp.commands import mcp_add, mcp_remove

        if command == "add":
            outcome = mcp_add(rest, cwd=cwd, agent_directory=directory, project_trusted=_trusted(cwd, directory, None))
        else:
            outcome = mcp_remove(rest, cwd=cwd, agent_directory=directory)
        for line in outcome.out:
            print(line)
        for line in outcome.err:
            print(line, file=sys.stderr)
        return outcome.code
    print(f'Unknown mcp command "{command}".\nUse "pi mcp --help" for usage.', file=sys.stderr)
    return 1
