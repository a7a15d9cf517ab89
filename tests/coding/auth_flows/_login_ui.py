"""A LoginUI for the tests: records what the user is shown; pastes scripted lines."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable


class RecordingUI:
    def __init__(
        self,
        *,
        pastes: list[str] | None = None,
        on_url: Callable[[str], Awaitable[object]] | None = None,
    ) -> None:
        self.lines: list[str] = []
        self.urls: list[str] = []
        self.pastes = list(pastes or [])
        self.on_url = on_url
        self.url_shown = asyncio.Event()
        self.tasks: list[asyncio.Task[object]] = []

    def show(self, message: str) -> None:
        self.lines.append(message)

    def show_url(self, url: str, instructions: str) -> None:
        self.urls.append(url)
        self.lines.append(instructions)
        self.url_shown.set()
        if self.on_url is not None:
            self.tasks.append(asyncio.ensure_future(self.on_url(url)))

    async def paste(self, prompt: str) -> str | None:
        await self.url_shown.wait()
        if self.pastes:
            return self.pastes.pop(0)
        return None
