"""``/login`` and ``/logout``.

``/login <provider>`` signs in when the provider has a sign-in flow (OpenRouter's browser flow,
or a device flow with a client of the user's own; see ``pi_harness.coding.auth_flows``), or
stores an API key in ``auth.json``. For providers whose subscription sign-in would borrow another
vendor's client, one line says why it is not offered, then the API-key prompt follows.
``/logout <provider>`` removes what is stored for the provider.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from pi_harness.cli.modes.interactive.shell import Overlay
from pi_harness.tui.components.selector import SelectItem, Selector

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext
    from pi_harness.cli.modes.interactive.shell import Shell

SIGN_IN = "Sign in"
API_KEY = "Enter an API key"


class ShellLoginUI:
    """The sign-in flow in the transcript; a pasted redirect URL or code through a text field
    (cancelling it cancels the sign-in)."""

    def __init__(self, shell: Shell) -> None:
        self.shell = shell

    def show(self, message: str) -> None:
        self.shell.notice("info", message)

    def show_url(self, url: str, instructions: str) -> None:
        from pi_harness.cli.subcommands.auth_login import open_in_browser

        self.shell.notice("info", f"{instructions}\n{url}")
        open_in_browser(url)

    async def paste(self, prompt: str) -> str | None:
        from pi_harness.coding.auth_flows import LoginError

        text = await self.shell.ask_input(prompt, placeholder="or finish in the browser")
        if text is None:
            raise LoginError("Sign-in cancelled")
        return text


async def _choose(mode: ModeContext, title: str, values: list[str]) -> str | None:
    context = mode.shell.context

    def build(done: Callable[[str | None], None]) -> Overlay:
        items = [SelectItem(value, value) for value in values]
        return Selector(items, context, title=title, on_select=done, on_cancel=lambda: done(None))

    return await mode.shell.ask(build)


async def _sign_in(mode: ModeContext, provider: str) -> bool:
    from pi_harness.coding.auth_flows import LoginError, sign_in

    shell = mode.shell
    try:
        message = await sign_in(provider, ShellLoginUI(shell), mode.session.model_runtime.auth)
    except LoginError as error:
        shell.notice("error", f"Sign-in failed: {error}")
        return False
    except asyncio.CancelledError:
        shell.notice("warning", "Sign-in cancelled")
        raise
    shell.notice("success", message)
    return True


async def _store_key(mode: ModeContext, provider: str) -> bool:
    shell = mode.shell
    key = await shell.ask_input(f"API key for {provider}", placeholder="stored in auth.json")
    if key is None or not key.strip():
        return False
    mode.session.model_runtime.auth.set_api_key(provider, key.strip())
    shell.notice("success", f"Stored an API key for {provider} in auth.json")
    return True


async def login(mode: ModeContext, args: str) -> None:
    from pi_harness.coding.auth_flows import can_sign_in, refusal

    shell = mode.shell
    session = mode.session
    runtime = session.model_runtime
    provider = args.strip() or await _choose(mode, "Sign in or store an API key for", sorted(runtime.get_providers()))
    if not provider:
        return
    refused = refusal(provider)
    if refused is not None:
        shell.notice("warning", refused)
    method = API_KEY
    if can_sign_in(provider):
        method = await _choose(mode, f"{provider}: how to authenticate", [SIGN_IN, API_KEY]) or ""
    if method == SIGN_IN:
        stored = await _sign_in(mode, provider)
    elif method == API_KEY:
        stored = await _store_key(mode, provider)
    else:
        return
    if not stored:
        return
    if session.model is None:
        models = [m for m in runtime.get_available() if m["provider"] == provider]
        if models:
            await session.set_model(models[0])
    mode.controller.update_footer()
    mode.controller.check_extra_usage()


async def logout(mode: ModeContext, args: str) -> None:
    shell = mode.shell
    auth = mode.session.model_runtime.auth
    stored = sorted(auth.read_all())
    if not stored:
        shell.notice("info", "No credentials are stored in auth.json")
        return
    provider = args.strip() or await _choose(mode, "Remove the stored credentials of", stored)
    if not provider:
        return
    if provider not in stored:
        shell.notice("error", f"No stored credentials for {provider}")
        return
    auth.remove(provider)
    shell.notice("success", f"Removed the stored credentials of {provider}")
