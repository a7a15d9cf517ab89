"""The session picker of ``--resume`` and ``/resume``, with renaming and deleting.

Sessions of the current folder are listed first; Tab shows those of every folder (newest first;
``app.session.togglePath`` shows where each lives). Rename asks for a name and appends a
``session_info`` entry; delete asks for confirmation, refuses the open session, and uses the
``trash`` command when it is installed, so a deleted session can be restored.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from collections.abc import Callable, Coroutine
from typing import Literal

from pi_harness.cli.modes.interactive.shell import Overlay, Shell
from pi_harness.coding.session_store import SessionManager
from pi_harness.coding.session_store.listing import SessionInfo
from pi_harness.tui.components.session_picker import SessionPicker


def list_sessions(cwd: str, session_dir: str | None) -> list[SessionInfo]:
    own = SessionManager.list(cwd, session_dir)
    seen = {str(info.path) for info in own}
    others = [info for info in SessionManager.list_all() if str(info.path) not in seen]
    return [*own, *others]


def delete_session_file(path: str) -> Literal["trash", "unlink"]:
    """Move the file to the trash (the ``trash`` command, where there is one) or remove it;
    says which. Raises ``OSError`` when neither worked."""
    trash = shutil.which("trash")
    if trash is not None:
        arguments = ["--", path] if path.startswith("-") else [path]
        done = subprocess.run([trash, *arguments], check=False, capture_output=True)
        if done.returncode == 0 or not os.path.exists(path):
            return "trash"
    os.unlink(path)
    return "unlink"


class SessionBrowser:
    def __init__(
        self,
        shell: Shell,
        *,
        cwd: str,
        session_dir: str | None,
        current_path: str | None = None,
        rename_current: Callable[[str], None] | None = None,
    ) -> None:
        self.shell = shell
        self.cwd = cwd
        self.session_dir = session_dir
        self.current_path = current_path
        self.rename_current = rename_current
        self.picker: SessionPicker | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def _load(self) -> list[SessionInfo]:
        return await asyncio.to_thread(list_sessions, self.cwd, self.session_dir)

    async def choose(self) -> SessionInfo | None:
        """Show the picker; the chosen session, or None when cancelled."""
        sessions = await self._load()

        def build(done: Callable[[SessionInfo | None], None]) -> Overlay:
            self.picker = SessionPicker(
                sessions,
                self.shell.context,
                on_select=done,
                on_cancel=lambda: done(None),
                on_rename=lambda info: self._spawn(self._rename(info)),
                on_delete=lambda info: self._spawn(self._delete(info)),
                current_path=self.current_path,
                cwd=self.cwd,
                on_status=self._redraw_after,
            )
            return self.picker

        try:
            return await self.shell.ask(build)
        finally:
            for task in list(self._tasks):
                task.cancel()

    def _spawn(self, work: Coroutine[object, None, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _reload(self) -> None:
        if self.picker is not None:
            self.picker.set_sessions(await self._load())
            self.shell.refresh()

    async def _rename(self, info: SessionInfo) -> None:
        name = await self.shell.ask_input("Rename Session", prefill=info.name or "")
        if name is None or not name.strip():
            return
        try:
            if str(info.path) == self.current_path and self.rename_current is not None:
                self.rename_current(name.strip())
            else:
                manager = SessionManager.open(info.path)
                try:
                    manager.append_session_info(name.strip())
                finally:
                    manager.close()
        except Exception as error:
            self.shell.toast(f"Could not rename the session: {error}", "error")
            return
        await self._reload()

    def _redraw_after(self, seconds: float) -> None:
        """A status message in the picker goes away by itself: draw again when it has."""
        asyncio.get_running_loop().call_later(seconds + 0.05, self.shell.refresh)

    async def _delete(self, info: SessionInfo) -> None:
        """Confirmed in the picker (which never offers the open session)."""
        try:
            method = await asyncio.to_thread(delete_session_file, str(info.path))
        except OSError as error:
            if self.picker is not None:
                self.picker.show_status("error", f"Failed to delete: {error.strerror or error}", 3.0)
            self.shell.refresh()
            return
        await self._reload()
        if self.picker is not None:
            self.picker.show_status("info", "Session moved to trash" if method == "trash" else "Session deleted", 2.0)
        self.shell.refresh()
