"""What a provider keeps for a session beyond one request (a kept WebSocket, say), released when
the session ends. Providers register a release function when they first keep something, so a
session that never used one imports nothing for it."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Awaitable, Callable

Release = Callable[[str | None], "Awaitable[None] | None"]

_releases: list[Release] = []


def on_session_end(release: Release) -> None:
    if release not in _releases:
        _releases.append(release)


async def release_session_resources(session_id: str | None) -> None:
    """Release what the providers keep for ``session_id`` (every session's with ``None``).
    A failing release is skipped: ending a session always succeeds."""
    for release in list(_releases):
        with contextlib.suppress(Exception):
            outcome = release(session_id)
            if inspect.isawaitable(outcome):
                await outcome
