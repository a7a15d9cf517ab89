"""``import asyncio`` without importing ``ssl``: OpenSSL is loaded when a TLS connection needs it.

``asyncio`` imports the ``ssl`` module eagerly (``try: import ssl``), which maps and initialises
OpenSSL: about 6 MiB of resident memory and a few milliseconds, spent by every run, including
those that only talk plain HTTP (a local model server) or none at all. ``import_asyncio()``
imports ``asyncio`` while ``ssl`` is marked unavailable, so its modules bind ``ssl = None``, and
then gives those modules a stand-in that imports the real ``ssl`` on first use and puts it in
their place (with ``sslproto.SSLAgainErrors``, the one module-level name ``asyncio`` derives from
``ssl``). So ``loop.create_connection(ssl=...)``, ``start_tls`` and the TLS transports work as
before, whether the real module was imported by them or by someone else first.

The only use of ``ssl`` that does not need the module is the check that a socket handed to the
loop is not an ``ssl.SSLSocket``: while the real module is not imported, no such socket can
exist, so the stand-in answers that check with a class nothing is an instance of.

When ``asyncio`` or ``ssl`` is already imported, or this interpreter's ``asyncio`` cannot be
imported without ``ssl``, ``import_asyncio()`` imports it the usual way.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

# The asyncio modules that bind ``ssl`` at import (CPython 3.11-3.13).
_USERS = ("asyncio.base_events", "asyncio.selector_events", "asyncio.sslproto")


class _NoSslSocket:
    """Stands for ``ssl.SSLSocket`` while ``ssl`` is not imported: nothing is an instance of it."""


class _LazySsl:
    """The ``ssl`` global of the asyncio modules until the real module is needed."""

    def __getattr__(self, name: str) -> object:
        if name == "SSLSocket" and "ssl" not in sys.modules:
            return _NoSslSocket
        return getattr(_install_real_ssl(), name)


_stand_in = _LazySsl()


def _install_real_ssl() -> ModuleType:
    import ssl

    for name in _USERS:
        module = sys.modules.get(name)
        if module is not None and getattr(module, "ssl", None) is _stand_in:
            module.__dict__["ssl"] = ssl
    sslproto = sys.modules.get("asyncio.sslproto")
    if sslproto is not None and not hasattr(sslproto, "SSLAgainErrors"):
        # What asyncio defines at import when ssl is there.
        sslproto.__dict__["SSLAgainErrors"] = (ssl.SSLWantReadError, ssl.SSLSyscallError)
    return ssl


def import_asyncio() -> ModuleType:
    """``asyncio``, imported without loading ``ssl`` when it is not loaded yet."""
    if "asyncio" in sys.modules or "ssl" in sys.modules:
        import asyncio

        return asyncio
    from typing import cast

    sys.modules["ssl"] = cast("ModuleType", None)  # a None entry makes ``import ssl`` fail (documented)
    try:
        import asyncio
    except ImportError:  # an asyncio that needs ssl: the modules it finished keep the stand-in below
        del sys.modules["ssl"]
        import asyncio
    finally:
        sys.modules.pop("ssl", None)
    for name in _USERS:
        module = sys.modules.get(name)
        if module is not None and getattr(module, "ssl", False) is None:
            module.__dict__["ssl"] = _stand_in
    return asyncio
