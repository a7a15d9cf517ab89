"""Errors raised by the session store (messages are user-facing)."""

from __future__ import annotations

import os

from pi_harness.coding.session_store.lock import SessionLockedError


class EntryNotFoundError(ValueError):
    def __init__(self, entry_id: str | None) -> None:
        self.entry_id = entry_id
        super().__init__(f"Entry {entry_id} not found")


class InvalidSessionFileError(ValueError):
    """An explicitly opened file has content but no session header; it is left untouched."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        super().__init__(
            f"Invalid session file: {self.path} (its first record is not a session header; the file was left unchanged)"
        )


class SessionReadOnlyError(RuntimeError):
    def __init__(self, path: str | os.PathLike[str] | None) -> None:
        super().__init__(f"Session was opened read-only and cannot be changed: {path}")


__all__ = ["EntryNotFoundError", "InvalidSessionFileError", "SessionLockedError", "SessionReadOnlyError"]
