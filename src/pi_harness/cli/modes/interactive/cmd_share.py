"""``/share``: upload the session as an HTML page to a secret GitHub gist through the ``gh`` CLI.

The flow is Pi's gist path: ``gh auth status`` must succeed, the page is exported to a temporary
directory as ``session.html`` and ``gh gist create --public=false`` prints the gist's URL. Pi's
other destination (Radius) is not available here. ``PI_SHARE_VIEWER_URL``, when set, also gives a
viewer link ``<url>#<gist id>``; without it only the gist is shown, since Pi's own viewer is
made for Pi's pages.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from pi_harness.cli.export import export_session_html
from pi_harness.cli.modes.interactive.builtin import Builtin

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext

NOT_INSTALLED = "The GitHub CLI (gh) is not installed: install it from https://cli.github.com/ to use /share"
NOT_LOGGED_IN = "The GitHub CLI is not logged in: run 'gh auth login' first"
NO_RADIUS = 'Sharing through Radius is not available in pi-harness: set sessionShareDestination to "gist" or "auto"'


async def _gh(*args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        "gh", *args, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await process.communicate()
    return process.returncode or 0, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


async def share(mode: ModeContext, args: str) -> None:
    shell = mode.shell
    session = mode.session
    if session.settings.values.session_share_destination == "radius":
        shell.notice("error", NO_RADIUS)
        return
    try:
        code, _, _ = await _gh("auth", "status")
    except OSError:
        shell.notice("error", NOT_INSTALLED)
        return
    if code != 0:
        shell.notice("error", NOT_LOGGED_IN)
        return
    with tempfile.TemporaryDirectory(prefix="pi-share-") as directory:
        page = Path(directory) / "session.html"
        try:
            export_session_html(session, page, theme=shell.theme.spec)
        except (OSError, ValueError) as error:
            shell.notice("error", f"Cannot export the session: {error}")
            return
        shell.toast("Creating a secret gist…")
        try:
            code, out, err = await _gh("gist", "create", "--public=false", str(page))
        except OSError as error:
            shell.notice("error", f"Cannot create the gist: {error}")
            return
    if code != 0:
        shell.notice("error", f"Cannot create the gist: {err.strip() or f'gh exited with code {code}'}")
        return
    gist_url = out.strip().splitlines()[-1].strip() if out.strip() else ""
    gist_id = gist_url.rstrip("/").rsplit("/", 1)[-1]
    if not gist_id:
        shell.notice("error", "Cannot find the gist's URL in the output of gh")
        return
    viewer = os.environ.get("PI_SHARE_VIEWER_URL")
    lines = ([f"Share URL: {viewer}#{gist_id}"] if viewer else []) + [f"Gist: {gist_url}"]
    shell.notice("success", "\n".join(lines))


COMMANDS = [Builtin("share", "Upload the session as a secret GitHub gist (needs the gh CLI)", share)]
