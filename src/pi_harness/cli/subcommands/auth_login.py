"""``pi auth login <provider>`` and ``pi auth logout <provider>``.

``login`` runs the provider's sign-in flow (see ``pi_harness.coding.auth_flows``): progress, the
URL to open and the device code go to stderr, the result line to stdout. On a machine whose
browser cannot reach the loopback callback, the final redirect URL (or the code) can be pasted on
stdin. Exit codes: 0 signed in / signed out, 1 the sign-in failed or nothing was stored, 2 bad
arguments, a provider without a sign-in flow, or a refused one.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Sequence
from typing import TextIO

from pi_harness.cli.subcommands.common import UsageError, parse_command_args

LOGIN_USAGE = """Usage: pi auth login <provider>
       pi auth logout <provider>

login    Sign in through the provider's browser (PKCE) or device-code flow and store the
         credential in auth.json. Offered for: openrouter, and any provider with a client of
         your own declared in PI_OAUTH_<PROVIDER>_CLIENT_ID / _DEVICE_URL / _TOKEN_URL.
         On a headless machine, paste the final redirect URL (or the code) on stdin.
logout   Remove the provider's stored credential from auth.json.
"""


def open_in_browser(url: str) -> bool:
    """Open ``url`` in a graphical browser when there is one. On a Linux machine without a display
    nothing is started: ``webbrowser`` would fall back to a text browser inside pi's terminal."""
    import os
    import webbrowser

    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return False
    try:
        return webbrowser.open(url)
    except Exception:  # no browser is fine: the URL is shown
        return False


class TerminalLoginUI:
    """Shows the flow on ``err`` and reads pasted lines from ``stdin`` in a daemon thread (a
    blocked read must not keep the process alive once the callback has arrived)."""

    def __init__(self, err: TextIO, stdin: TextIO, *, open_browser: bool) -> None:
        self.err = err
        self.stdin = stdin
        self.open_browser = open_browser
        self._eof = False

    def show(self, message: str) -> None:
        print(message, file=self.err, flush=True)

    def show_url(self, url: str, instructions: str) -> None:
        print(instructions, file=self.err)
        print(url, file=self.err, flush=True)
        if self.open_browser:
            open_in_browser(url)

    async def paste(self, prompt: str) -> str | None:
        if self._eof:
            return None
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str | None] = loop.create_future()

        def read() -> None:
            try:
                line = self.stdin.readline()
            except (OSError, ValueError):
                line = ""
            value = line if line else None
            loop.call_soon_threadsafe(lambda: None if future.done() else future.set_result(value))

        print(prompt, file=self.err, flush=True)
        threading.Thread(target=read, name="pi-login-paste", daemon=True).start()
        value = await future
        if value is None:
            self._eof = True
        return value


def _provider_argument(action: str, argv: Sequence[str]) -> str:
    args = parse_command_args(f"auth {action}", argv, switches=("--help", "-h"))
    if args.switches & {"--help", "-h"}:
        raise _HelpRequested
    if len(args.positionals) != 1:
        raise UsageError(f"pi auth {action} takes one provider name")
    return args.positionals[0]


class _HelpRequested(Exception):
    pass


def run_login_command(
    action: str, argv: Sequence[str], *, out: TextIO, err: TextIO, stdin: TextIO | None = None
) -> int:
    from pi_harness.coding.auth_flows import LoginError, flow_for, refusal, sign_in
    from pi_harness.coding.config.auth import AuthStorage
    from pi_harness.coding.config.paths import agent_dir

    try:
        provider = _provider_argument(action, argv)
    except _HelpRequested:
        print(LOGIN_USAGE, end="", file=out)
        return 0
    except UsageError as exc:
        print(f"Error: {exc}", file=err)
        return 2
    auth = AuthStorage(agent_dir())
    if action == "logout":
        if not auth.has(provider):
            print(f"No stored credentials for {provider}", file=err)
            return 1
        auth.remove(provider)
        print(f"Removed the stored credentials of {provider}", file=out)
        return 0
    refused = refusal(provider)
    if refused is not None:
        print(refused, file=err)
        return 2
    if flow_for(provider) is None:
        print(
            f"{provider} has no sign-in flow; set its API key variable or store a key with /login.",
            file=err,
        )
        return 2
    source = stdin if stdin is not None else sys.stdin
    ui = TerminalLoginUI(err, source, open_browser=source.isatty() and out.isatty())
    try:
        message = asyncio.run(sign_in(provider, ui, auth))
    except LoginError as exc:
        print(f"Sign-in failed: {exc}", file=err)
        return 1
    except KeyboardInterrupt:
        print("Sign-in cancelled", file=err)
        return 1
    print(message, file=out)
    return 0
