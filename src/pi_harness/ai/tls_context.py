"""The TLS context of the shared HTTP client, optionally built ahead of time in a thread.

Building it reads the system's CA bundle (~25 ms here), time in which OpenSSL holds no Python
lock. ``build_ahead()`` starts that in a thread at the start of a run, so it overlaps with the
imports and settings reading of startup instead of delaying the first request; ``take()`` hands
the result to the client (or builds the context itself when nothing was started). The context is
the one ``httpx2`` builds for ``verify=True``, from the same environment.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ssl

_lock = threading.Lock()
_thread: threading.Thread | None = None
_ready: list[ssl.SSLContext | BaseException] = []


def _build() -> ssl.SSLContext:
    import httpcore2

    return httpcore2.default_ssl_context()


def _build_into_slot() -> None:
    try:
        _ready.append(_build())
    except BaseException as error:  # handed to take(), which raises it where the client is made
        _ready.append(error)


def build_ahead() -> None:
    """Start building the context in a thread (once; a second call does nothing).

    Not a daemon thread: a run that ends at once (an argument error) waits the few milliseconds
    left at exit, because a daemon thread still inside OpenSSL or an import while the interpreter
    finalises can crash the process.
    """
    global _thread
    with _lock:
        if _thread is not None or _ready:
            return
        _thread = threading.Thread(target=_build_into_slot, name="pi-tls-context", daemon=False)
        _thread.start()


def take() -> ssl.SSLContext:
    """The context built ahead (waiting for it if need be), else a new one; each is used once."""
    global _thread
    with _lock:
        thread, _thread = _thread, None
    if thread is None:
        return _build()
    thread.join()
    result = _ready.pop()
    if isinstance(result, BaseException):
        raise result
    return result
