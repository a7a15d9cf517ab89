"""What a sign-in flow needs from whoever runs it (the ``pi auth login`` command or ``/login``)."""

from __future__ import annotations

from typing import Protocol


class LoginUI(Protocol):
    def show(self, message: str) -> None:
        """A progress line."""

    def show_url(self, url: str, instructions: str) -> None:
        """A URL the user opens in a browser (the UI may open it itself)."""

    async def paste(self, prompt: str) -> str | None:
        """One line pasted by the user; ``None`` when the user cannot paste (no input)."""
