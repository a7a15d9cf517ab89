"""auth.json: stored credentials.

``{"<provider>": {"type": "api_key", "key": "...", "env": {...}} | {"type": "oauth", "refresh",
"access", "expires", ...}}``, created 0600 in a 0700 directory, every read-modify-write under Pi's
``auth.json.lock`` directory lock so Pi and pi-harness can share the file.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from pi_harness.coding.config.file_lock import atomic_write, locked
from pi_harness.coding.config.paths import AUTH_FILE
from pi_harness.coding.config.values import resolve_config_value


def entry_api_key(entry: dict[str, Any] | None) -> str | None:
    """``AuthStorage.get_api_key`` of an entry already read."""
    if entry is None:
        return None
    if entry.get("type") == "api_key":
        key = entry.get("key")
        return resolve_config_value(key, entry_env(entry)) if isinstance(key, str) else None
    if entry.get("type") == "oauth":
        access = entry.get("access")
        expires = entry.get("expires")
        if isinstance(access, str) and (not isinstance(expires, int | float) or expires > time.time() * 1000):
            return access
    return None


def entry_env(entry: dict[str, Any] | None) -> dict[str, str]:
    """``AuthStorage.get_env`` of an entry already read."""
    env = entry.get("env") if entry is not None and entry.get("type") == "api_key" else None
    if not isinstance(env, dict):
        return {}
    return {str(k): v for k, v in env.items() if isinstance(v, str)}


def _copy_json(value: Any) -> Any:
    """A copy of parsed JSON (dicts, lists, scalars), for a caller that may change it."""
    if type(value) is dict:
        return {key: _copy_json(item) for key, item in value.items()}
    if type(value) is list:
        return [_copy_json(item) for item in value]
    return value


class AuthStorage:
    """auth.json, read again on every use (another process, Pi's or ours, may write it at any
    time). Its bytes are compared with those of the last read and parsed only when they differ;
    callers get copies of what was parsed, which they may change."""

    def __init__(self, agent_directory: Path | None, *, in_memory: dict[str, Any] | None = None) -> None:
        self.path = agent_directory / AUTH_FILE if agent_directory is not None else None
        self._memory: dict[str, Any] | None = None
        if in_memory is not None or self.path is None:
            self._memory = dict(in_memory or {})
        self._parsed: tuple[bytes, dict[str, Any]] | None = None  # the last bytes read, parsed

    def _bytes(self) -> bytes | None:
        """The file's bytes (``None``: no readable file). Most setups have no auth.json at all:
        asking whether it exists first spares the exception of opening a missing file, on every
        use."""
        assert self.path is not None
        if not os.access(self.path, os.F_OK):
            return None
        try:
            return self.path.read_bytes()
        except OSError:
            return None

    def _current(self) -> dict[str, Any]:
        """The file's data as it is now (not to be changed: it is kept for the next read)."""
        raw = self._bytes()
        if raw is None:
            return {}
        parsed = self._parsed
        if parsed is not None and parsed[0] == raw:
            return parsed[1]
        try:
            data = json.loads(raw.decode("utf-8") or "{}")
        except (UnicodeDecodeError, ValueError):
            data = {}
        if not isinstance(data, dict):
            data = {}
        self._parsed = (raw, data)
        return data

    @classmethod
    def in_memory(cls, data: dict[str, Any] | None = None) -> AuthStorage:
        return cls(None, in_memory=data or {})

    def read_all(self) -> dict[str, Any]:
        if self._memory is not None:
            return dict(self._memory)
        return cast(dict[str, Any], _copy_json(self._current()))

    def change_token(self) -> object:
        """The stored credentials as they are now, in a form to compare with an earlier answer
        (equal: nothing changed): the file's bytes (``None`` without a readable file), or the
        in-memory store's contents."""
        if self._memory is not None:
            return repr(self._memory)
        return self._bytes()

    def get(self, provider: str) -> dict[str, Any] | None:
        memory = self._memory
        entry = memory.get(provider) if memory is not None else _copy_json(self._current().get(provider))
        return entry if isinstance(entry, dict) else None

    def get_api_key(self, provider: str) -> str | None:
        """The stored API key (resolved like models.json values) or a non-expired OAuth token."""
        return entry_api_key(self.get(provider))

    def get_env(self, provider: str) -> dict[str, str]:
        """The ``env`` object of a stored API-key credential: settings for that provider (e.g.
        ``CLOUDFLARE_ACCOUNT_ID``) that win over the process environment. Non-string values are
        ignored."""
        return entry_env(self.get(provider))

    def has(self, provider: str) -> bool:
        return self.get(provider) is not None

    def set(self, provider: str, entry: dict[str, Any]) -> None:
        self._update(lambda data: data.__setitem__(provider, entry))

    def set_api_key(self, provider: str, key: str) -> None:
        self.set(provider, {"type": "api_key", "key": key})

    def remove(self, provider: str) -> None:
        self._update(lambda data: data.pop(provider, None))

    def _update(self, change: Any) -> None:
        if self._memory is not None:
            change(self._memory)
            return
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with locked(self.path):
            data = self.read_all()
            change(data)
            atomic_write(self.path, (json.dumps(data, indent=2) + "\n").encode("utf-8"), mode=0o600)
        os.chmod(self.path, 0o600)

    def modify(
        self, provider: str, change: Callable[[dict[str, Any] | None], dict[str, Any] | None], *, wait_s: float = 30.0
    ) -> dict[str, Any] | None:
        """Read-modify-write of one entry with the file lock held while ``change`` runs (a token
        refresh, say), so that another process waits and then sees the result. ``change`` gets
        the current entry and returns the new one, or ``None`` to leave it as it is."""
        if self._memory is not None:
            current = self._memory.get(provider)
            new = change(current if isinstance(current, dict) else None)
            if new is not None:
                self._memory[provider] = new
            return new if new is not None else self.get(provider)
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with locked(self.path, attempts=max(1, int(wait_s / 0.5))):
            data = self.read_all()
            current = data.get(provider)
            new = change(current if isinstance(current, dict) else None)
            if new is None:
                return current if isinstance(current, dict) else None
            data[provider] = new
            atomic_write(self.path, (json.dumps(data, indent=2) + "\n").encode("utf-8"), mode=0o600)
        os.chmod(self.path, 0o600)
        return new

    def ensure_file(self) -> None:
        """Create ``{}`` with mode 0600 if the file does not exist."""
        if self.path is None or self.path.exists():
            return
        self._update(lambda data: None)
