"""The TLS context of provider requests, built once per process and only when TLS is used.

Loading the system's certificate store costs 20-40 ms, most of the client's construction. A
plain ``http://`` endpoint (a local model server, the fake server of the tests) never needs it,
so its client gets a context that trusts nothing: it is never used for a handshake, and if it
were (a redirect is not followed, so only a misread proxy could do it) verification fails
instead of passing. For ``https://`` providers ``prewarm()`` builds the real context in a
background thread as soon as startup knows one is coming; OpenSSL reads the store without the
GIL, so that overlaps the rest of startup.
"""

from __future__ import annotations

import os
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ssl

_PROXY_VARIABLES = ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")

_lock = threading.Lock()
_context: ssl.SSLContext | None = None
_builder: threading.Thread | None = None


def needs_tls(url: str) -> bool:
    """Whether a request to ``url`` may handshake: an ``https`` URL, or a plain one sent through
    an ``https://`` proxy from the environment (which httpx2 reads for every client)."""
    if url[:6].lower() != "http:/":
        return True
    return any(os.environ.get(name, "").strip().lower().startswith("https:") for name in _PROXY_VARIABLES)


def _build() -> None:
    global _context
    import httpx2

    # What ``verify=True`` gives: ``SSL_CERT_FILE``/``SSL_CERT_DIR`` honoured, else the system store.
    context = httpx2.create_ssl_context(verify=True)
    with _lock:
        if _context is None:
            _context = context


def prewarm() -> None:
    """Start building the verified context in the background (once; later calls do nothing)."""
    global _builder
    with _lock:
        if _builder is not None or _context is not None:
            return
        _builder = threading.Thread(target=_build, name="pi-tls-context", daemon=True)
        _builder.start()


def verified_context() -> ssl.SSLContext:
    """The verified context, waiting for the background build or building it here."""
    builder = _builder
    if builder is not None:
        builder.join()
    if _context is None:
        _build()
    assert _context is not None
    return _context


def unused_context() -> ssl.SSLContext:
    """A context for clients that only speak plain HTTP: it verifies and trusts no certificate."""
    import ssl

    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
