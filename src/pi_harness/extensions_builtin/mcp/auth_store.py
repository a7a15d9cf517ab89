"""MCP OAuth credentials in ``<agentDir>/mcp-auth.json``, in the layout Pi 1.4.0 writes.

So a sign-in made with Pi works here and the other way round, the file is one JSON object whose
keys are ``mcp__<server with - as _>|<server URL>`` (an older Pi keyed by the URL alone; such an
entry is taken over by the first server that reads it) and whose values hold ``serverUrl``,
``clientInformation`` (the registered client), ``tokens`` (the token response) and
``tokensExpireAt`` (milliseconds since the epoch). Fields this module does not use are kept.

Writes replace the file atomically with mode 0600; each read-modify-write holds the
``mcp-auth.json.lock`` directory lock that Pi's ``proper-lockfile`` takes too, so neither program
loses the other's update.
"""

from __future__ import annotations

import contextlib
import json
import os
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


LOCK_STALE_S = 10.0  # proper-lockfile's default: an older lock was abandoned
LOCK_WAIT_S = 10.0


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Pi's ``proper-lockfile`` protocol (built-in extensions may not use the core's copy): the lock
    is the directory ``<file>.lock``, made with an atomic ``mkdir``; a stale one is taken over."""
    lock = path.with_name(path.name + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            lock.mkdir()
            break
        except FileExistsError:
            try:
                if time.time() - lock.stat().st_mtime > LOCK_STALE_S:
                    with contextlib.suppress(OSError):
                        lock.rmdir()
                    continue
            except FileNotFoundError:
                continue
            if time.monotonic() > deadline:
                raise TimeoutError(f"{path} is locked by another process") from None
            time.sleep(0.02)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            lock.rmdir()


def atomic_write(path: Path, data: bytes, mode: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise


class McpAuthFile:
    """The whole file; every change is one locked read-modify-write."""

    def __init__(self, agent_directory: Path) -> None:
        self.path = agent_directory / AUTH_FILE

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
        text = json.dumps(states, indent=2, ensure_ascii=False) + "\n"
        atomic_write(self.path, text.encode("utf-8"), mode=0o600)

    def update(self, change: Callable[[States], tuple[T, bool]]) -> T:
        """Run ``change`` on the parsed file; it returns its result and whether to save."""
        with locked(self.path):
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
