"""Writing a request of several parts with one system call.

A request is a head and a body in parts (``body_encoding.EncodedBody``: the memoised JSON of the
earlier messages, the new ones, the rest). ``StreamWriter.write`` sends each part with a
``send`` of its own while the kernel takes them: one system call, and with ``TCP_NODELAY`` one
segment, per part on every turn. Joining the parts first would copy a body of megabytes behind
its head. ``writev`` hands the kernel every part at once, without joining them first.

Only for a plain TCP transport of the selector event loop with nothing buffered: there the
transport's own ``write`` would call ``send`` on the same socket at once, so writing the first
bytes directly is what it does, in fewer calls. A TLS transport must encrypt what it sends, and
a transport with data waiting must send that first: those get every part through ``write``.
"""

from __future__ import annotations

import asyncio
import os
from asyncio import selector_events

# Linux's IOV_MAX; more parts than this go in one call and the rest through ``write``.
MAX_PARTS = 1024


def _plain_socket_fd(transport: asyncio.BaseTransport) -> int | None:
    # ``_SelectorSocketTransport`` is asyncio's plain socket transport (TLS wraps it in another
    # class, which a subclass check tells apart); its name is private but stable since 3.4.
    plain = getattr(selector_events, "_SelectorSocketTransport", None)
    if plain is None or not isinstance(transport, plain) or transport.get_extra_info("sslcontext") is not None:
        return None
    sock = transport.get_extra_info("socket")
    return sock.fileno() if sock is not None else None


def write_parts(writer: asyncio.StreamWriter, parts: tuple[bytes, ...]) -> None:
    """Queue ``parts`` on ``writer`` in order, sending as much as the kernel takes now in one call."""
    pending = [part for part in parts if part]
    transport = writer.transport
    fd = None
    if len(pending) > 1 and not transport.is_closing() and not transport.get_write_buffer_size():
        fd = _plain_socket_fd(transport)
    if fd is not None:
        try:
            sent = os.writev(fd, pending[:MAX_PARTS])
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            sent = 0  # the transport's own write meets the same error and reports it as it does
        done = 0  # whole parts the kernel took
        while done < len(pending) and sent >= len(pending[done]):
            sent -= len(pending[done])
            done += 1
        pending = pending[done:]
        if pending and sent:
            pending[0] = pending[0][sent:]  # the part the kernel took only the start of
    for part in pending:
        writer.write(part)
