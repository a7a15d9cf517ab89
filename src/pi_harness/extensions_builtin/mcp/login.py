"""``pi mcp login <server>`` and ``pi mcp logout <server>``, with Pi 1.4.0's messages and exit codes.

``login`` first connects as a session would: with valid (or refreshable) stored credentials that is
"Already signed in". Only when the server needs a sign-in does it print the authorization URL, hand
it to ``open_url`` and wait (``--timeout`` seconds, default 300) for the browser's redirect to the
loopback callback. ``logout`` deletes the stored credentials. Both return ``(out, err, code)``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from pi_harness.extensions_builtin.mcp.auth_store import McpAuthFile
from pi_harness.extensions_builtin.mcp.commands import Outcome
from pi_harness.extensions_builtin.mcp.config import McpServerConfig, load_mcp_config
from pi_harness.extensions_builtin.mcp.log import LOG_FILE, McpLog, SdkLogCapture
from pi_harness.extensions_builtin.mcp.oauth import BrowserStep
from pi_harness.extensions_builtin.mcp.policy import ConnectionSettings, RetryPolicy

DEFAULT_LOGIN_TIMEOUT_S = 300.0
HELP_HINT = 'Use "pi mcp --help" for usage.'


def _find(
    command: str, args: list[str], cwd: Path, agent_directory: Path, trusted: bool, outcome: Outcome
) -> tuple[McpServerConfig, float] | None:
    timeout = DEFAULT_LOGIN_TIMEOUT_S
    positional: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if command == "login" and (arg == "--timeout" or arg.startswith("--timeout=")):
            value = arg.split("=", 1)[1] if "=" in arg else (args[index + 1] if index + 1 < len(args) else None)
            index += 1 if "=" in arg else 2
            if value is None:
                outcome.fail(f"--timeout needs a value.\n{HELP_HINT}")
                return None
            try:
                timeout = float(value)
            except ValueError:
                timeout = float("nan")
            if not timeout > 0 or timeout == float("inf"):
                outcome.fail("--timeout must be a positive number of seconds.")
                return None
            continue
        if arg.startswith("-") and arg != "-":
            outcome.fail(f"Unknown option {arg}.\n{HELP_HINT}")
            return None
        positional.append(arg)
        index += 1
    if len(positional) != 1:
        outcome.fail(f"Usage: pi mcp {command} <server>\n{HELP_HINT}")
        return None
    name = positional[0]
    config = load_mcp_config(agent_directory, cwd, project_trusted=trusted)
    server = config.servers.get(name)
    if server is None:
        project_file = cwd / ".pi" / "mcp.json"
        note = ""
        if not trusted and project_file.is_file():
            note = (
                f" {project_file} is ignored because the project is not trusted. Start pi in the project to trust it."
            )
        names = ", ".join(config.servers) or "none"
        outcome.fail(f'No MCP server named "{name}".{note} Configured: {names}.')
        return None
    if not server.uses_oauth or not server.url:
        outcome.fail(f'MCP server "{name}" does not use OAuth. Only HTTP servers without an Authorization header do.')
        return None
    return server, timeout


def mcp_logout(args: list[str], *, cwd: Path, agent_directory: Path, project_trusted: bool) -> Outcome:
    outcome = Outcome()
    found = _find("logout", args, cwd, agent_directory, project_trusted, outcome)
    if found is None:
        return outcome
    server, _timeout = found
    assert server.url is not None
    removed = McpAuthFile(agent_directory).remove(server.name, server.url)
    name = server.name
    outcome.out.append(
        f'Signed out of MCP server "{name}".' if removed else f'No stored credentials for MCP server "{name}".'
    )
    return outcome


def mcp_login(
    args: list[str],
    *,
    cwd: Path,
    agent_directory: Path,
    project_trusted: bool,
    open_url: Callable[[str], object],
    retry_delays_s: tuple[float, ...] | None = None,
    paste_from_terminal: bool = False,
) -> Outcome:
    """Synchronous entry for the CLI; ``paste_from_terminal`` (a terminal on stdin) also accepts
    the redirected URL typed or pasted there."""
    return asyncio.run(
        mcp_login_async(
            args,
            cwd=cwd,
            agent_directory=agent_directory,
            project_trusted=project_trusted,
            open_url=open_url,
            retry_delays_s=retry_delays_s,
            paste_from_terminal=paste_from_terminal,
        )
    )


async def mcp_login_async(
    args: list[str],
    *,
    cwd: Path,
    agent_directory: Path,
    project_trusted: bool,
    open_url: Callable[[str], object],
    retry_delays_s: tuple[float, ...] | None = None,
    paste_from_terminal: bool = False,
) -> Outcome:
    outcome = Outcome()
    found = _find("login", args, cwd, agent_directory, project_trusted, outcome)
    if found is None:
        return outcome
    server, timeout = found
    settings = ConnectionSettings(
        retry=RetryPolicy(retry_delays_s) if retry_delays_s is not None else RetryPolicy(), auth_dir=agent_directory
    )
    log = McpLog(agent_directory / LOG_FILE)
    capture = SdkLogCapture(log)  # the SDK's tracebacks go to mcp.log, not the terminal
    capture.open()
    try:
        paste = _terminal_paste if paste_from_terminal else None
        return await _login_flow(server, timeout, cwd, agent_directory, open_url, settings, log, outcome, paste)
    finally:
        capture.close()


PASTE_PROMPT = "If the browser cannot reach this machine, paste the URL it was redirected to: "


async def _terminal_paste() -> str | None:
    """A line from the terminal, read in a daemon thread so a pending read cannot keep pi alive once
    the browser's callback arrived."""
    import threading

    loop = asyncio.get_running_loop()
    answer: asyncio.Future[str | None] = loop.create_future()

    def read() -> None:
        print(PASTE_PROMPT, end="", file=sys.stderr, flush=True)
        try:
            line: str | None = sys.stdin.readline()
        except (OSError, ValueError):
            line = None

        def deliver() -> None:
            if not answer.done():
                answer.set_result(line)

        loop.call_soon_threadsafe(deliver)

    threading.Thread(target=read, name="mcp-login-paste", daemon=True).start()
    return await answer


async def _login_flow(
    server: McpServerConfig,
    timeout: float,
    cwd: Path,
    agent_directory: Path,
    open_url: Callable[[str], object],
    settings: ConnectionSettings,
    log: McpLog,
    outcome: Outcome,
    paste: Callable[[], Awaitable[str | None]] | None,
) -> Outcome:
    from pi_harness.extensions_builtin.mcp.connection import ServerConnection
    from pi_harness.extensions_builtin.mcp.signin import SignInCancelled, SignInFailed, sign_in

    name = server.name

    def connection(browser: BrowserStep | None = None) -> ServerConnection:
        return ServerConnection(server, cwd=os.fspath(cwd), log=log, settings=settings, browser=browser)

    first = connection()
    first.start()
    await first.wait_settled()
    status, error, tools = first.status, first.error, len(first.tools)
    await first.close()
    if status == "connected":
        outcome.out.append(f'Already signed in to MCP server "{name}" ({tools} tools).')
        return outcome
    if status != "needs-auth":
        return outcome.fail(f'MCP server "{name}" failed to connect: {error or "unknown error"}')

    loop = asyncio.get_running_loop()

    def show(url: str) -> None:
        print(f'Sign in to MCP server "{name}" in your browser:\n{url}', flush=True)
        # A browser command may wait for its page: never on the loop that serves the callback.
        loop.run_in_executor(None, open_url, url)

    before = first.stored_tokens()
    try:
        signed = await sign_in(server, agent_directory, connection, show, timeout, paste=paste)
    except SignInCancelled:
        return outcome.fail(
            f'Sign-in to MCP server "{name}" was cancelled or not completed within {round(timeout)} seconds.'
        )
    except (SignInFailed, OSError) as exc:
        return outcome.fail(f'Sign-in to MCP server "{name}" failed: {exc}')
    status, error, tools = signed.status, signed.error, len(signed.tools)
    await signed.close()
    if status != "connected":
        if status == "needs-auth":
            return outcome.fail(f'Sign-in to MCP server "{name}" failed: the server still asks for a sign-in')
        if signed.stored_tokens() == before:  # the flow itself failed: no tokens came of it
            return outcome.fail(f'Sign-in to MCP server "{name}" failed: {error or "unknown error"}')
        return outcome.fail(f"Signed in, but {error or 'the server did not connect'}")
    outcome.out.append(f'Signed in to MCP server "{name}" ({tools} tools).')
    return outcome
