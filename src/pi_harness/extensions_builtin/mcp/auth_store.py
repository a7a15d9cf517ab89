"""MCP OAuth credentials in ``<agentDir>/mcp-auth.json``, in the layout Pi 1.4.0 writes.

So a sign-in made with Pi works here and the other way round, the file is one JSON object whose
keys are ``mcp__<server with - as _>|<server URL>`` (an older Pi keyed by the URL alone; such an
entry is taken over by the first server that reads it) and whose values hold ``serverUrl``,
``clientInformation`` (the registered client), ``tokens`` (the token response) and
``tokensExpireAt`` (milliseconds since the epoch). Fields this module does not use are kept.

Writes replace the file atomically with mode 0600; each read-modify-write holds an exclusive
``flock`` on ``mcp-auth.json.lock`` so two processes cannot lose each other's update.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

AUTH_FILE = "mcp-auth.json"
T = TypeVar("T")
States = dict[str, Any]


def normalize_url(url: str) -> str:
    """The URL as WHATWG ``new URL(url).href`` prints the common cases: lower-case scheme and host,
    ``/`` for an empty path, default ports dropped."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    default = {"http": 80, "https": 443}.get(scheme)
    netloc = host if port is None or port == default else f"{host}:{port}"
    if parts.username is not None:
        credentials = parts.username + (f":{parts.password}" if parts.password is not None else "")
        netloc = f"{credentials}@{netloc}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def store_keys(name: str, url: str) -> tuple[str, str]:
    legacy = normalize_url(url)
    return f"mcp__{name.replace('-', '_')}|{legacy}", legacy


class McpAuthFile:
    """The whole file; every change is one locked read-modify-write."""

    def __init__(self, agent_directory: Path) -> None:
        self.path = agent_directory / AUTH_FILE

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock_path = self.path.with_name(self.path.name + ".lock")
        with open(lock_path, "a+") as handle:
            try:
                import fcntl

                fcntl.flock(handle, fcntl.LOCK_EX)
            except (ImportError, OSError):  # no flock (Windows): a process-local update still works
                pass
            yield

    def _read(self) -> States:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        if not text.strip():
            return {}
        value = json.loads(text)
        return value if isinstance(value, dict) else {}

    def _write(self, states: States) -> None:
        fd, temp = tempfile.mkstemp(dir=self.path.parent, prefix=".mcp-auth-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(json.dumps(states, indent=2, ensure_ascii=False) + "\n")
            os.chmod(temp, 0o600)
            os.replace(temp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

    def update(self, change: Callable[[States], tuple[T, bool]]) -> T:
        """Run ``change`` on the parsed file; it returns its result and whether to save."""
        with self._locked():
            states = self._read()
            result, save = change(states)
            if save:
                self._write(states)
            return result

    def load(self, name: str, url: str) -> dict[str, Any] | None:
        key, legacy = store_keys(name, url)

        def take(states: States) -> tuple[dict[str, Any] | None, bool]:
            if key in states or legacy not in states:
                value = states.get(key)
                return (value if isinstance(value, dict) else None), False
            states[key] = states.pop(legacy)
            value = states[key]
            return (value if isinstance(value, dict) else None), True

        return self.update(take)

    def save(self, name: str, url: str, state: dict[str, Any]) -> None:
        key, _legacy = store_keys(name, url)

        def put(states: States) -> tuple[None, bool]:
            states[key] = state
            return None, True

        self.update(put)

    def merge(self, name: str, url: str, fields: dict[str, Any], drop: tuple[str, ...] = ()) -> None:
        """Set ``fields`` (and remove ``drop``) in the server's state, creating it when absent."""
        key, _legacy = store_keys(name, url)

        def put(states: States) -> tuple[None, bool]:
            current = states.get(key)
            state = dict(current) if isinstance(current, dict) else {"serverUrl": url}
            state.update(fields)
            for field in drop:
                state.pop(field, None)
            states[key] = state
            return None, True

        self.update(put)

    def remove(self, name: str, url: str) -> bool:
        key, legacy = store_keys(name, url)

        def delete(states: States) -> tuple[bool, bool]:
            stored = key if key in states else legacy if legacy in states else None
            if stored is None:
                return False, False
            del states[stored]
            return True, True

        return self.update(delete)

    def tokens(self, name: str, url: str) -> dict[str, Any] | None:
        key, legacy = store_keys(name, url)
        state = self.update(lambda states: (states.get(key) or states.get(legacy), False))
        tokens = state.get("tokens") if isinstance(state, dict) else None
        return tokens if isinstance(tokens, dict) else None


def expires_at_ms(expires_in: int | None) -> int | None:
    return None if expires_in is None else int(time.time() * 1000) + int(expires_in) * 1000
