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


# Where Linux distributions keep their bundle, for a Python whose OpenSSL was built for other paths.
_CA_FILES = (
    "/etc/ssl/cert.pem",
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
    "/etc/pki/tls/cert.pem",
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/ssl/ca-bundle.pem",
)


def _hashed_certificates(directory: str) -> bool:
    """Whether an OpenSSL certificate directory holds any ``<hash>.<n>`` entry (else it is useless)."""
    import re

    return any(re.fullmatch(r"[0-9a-fA-F]{8}\.\d", name) for name in os.listdir(directory))


def _store_context() -> ssl.SSLContext:
    """The context ``httpx2``'s ``verify=True`` makes: ``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` when
    set, else OpenSSL's own store, else a distribution's bundle. Built here rather than by
    ``httpx2`` so that the provider requests that do not use ``httpx2`` never import it; on
    macOS and Windows, where it asks the system's trust store, ``httpx2`` builds it."""
    import ssl
    import sys

    if sys.platform in ("darwin", "win32"):  # pragma: no cover - not these test machines
        import httpx2

        return httpx2.create_ssl_context(verify=True)
    if cafile := os.environ.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=cafile)
    if capath := os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=capath)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    paths = ssl.get_default_verify_paths()
    found_file = paths.openssl_cafile if os.path.isfile(paths.openssl_cafile) else None
    found_dir = paths.openssl_capath if os.path.isdir(paths.openssl_capath) else None
    if found_dir and not found_file and not _hashed_certificates(found_dir):
        found_dir = None
    if not found_file and not found_dir:
        found_file = next(filter(os.path.isfile, _CA_FILES), None)
    if found_file or found_dir:
        context.load_verify_locations(found_file, found_dir)
    return context


def _build() -> None:
    global _context
    context = _store_context()
    with _lock:
        if _context is None:
            _context = context


def prewarm() -> None:
    """Start building the verified context in the background (once; later calls do nothing)."""
    global _builder
    with _lock:
        if _builder is not None or _context is not None:
            return
        # Not a daemon: a run that ends at once (no model) must not exit while OpenSSL is still
        # reading the store in this thread, which crashes the interpreter's shutdown.
        _builder = threading.Thread(target=_build, name="pi-tls-context")
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
