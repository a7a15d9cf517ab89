"""A first request sent before the session loaded, waiting for the session's own first request.

``pi -p`` spends most of its time to the first request importing and building the session; the
request it then sends is, for the same configuration, the same bytes every time except the
prompt. The command line layer may therefore send a request it recorded on an earlier run
(``cli/early_request``) on a plain socket at once, and ``offer`` it here. When the session's
first request goes out, ``light_http`` asks ``take`` for its host: if the bytes it was about to
write are exactly the bytes that were sent, it adopts that socket and reads the answer from it
(the server has been working on it all along); otherwise it closes that socket and sends its own.
So what the server answers is always the session's own request.

``watch`` installs the one observer of the session's first request (``report``): the command line
records the bytes (for the next run) or notes that a sent request did not match.

``rehearse`` is the other way round: the command line asks the session, at the end of a run, to
build the request the next run will send first (``AgentSession.rehearse_prompt``); the transport
hands that request's bytes to ``rehearsed`` and fails it instead of sending it
(``REHEARSED``). A transport that cannot hand its bytes over refuses to send while a rehearsal
waits (``refuse_rehearsal``).

This module imports nothing (the socket type only for the type checker), so the early path
stays cheap.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import _socket
    from collections.abc import Callable

Key = tuple[str, str, int]  # (scheme, host, port), as ``light_http`` keys its connections
Outcome = str  # "adopted", "mismatch" (an early request was sent and differed), "none"


class EarlyRequest:
    """A request already written to ``sock`` (connected, non-blocking; a socket of the C module
    ``_socket``, wrapped in a ``socket.socket`` by whoever adopts it), ``sent`` its bytes."""

    __slots__ = ("key", "sent", "sock")

    def __init__(self, key: Key, sock: _socket.socket, sent: bytes) -> None:
        self.key = key
        self.sock = sock
        self.sent = sent


_waiting: list[EarlyRequest] = []
_observer: Callable[[Key, bytes, Outcome], None] | None = None
_first_seen = False
_rehearsal: Callable[[Key, bytes], None] | None = None

REHEARSED = "a rehearsed request is not sent"
NOT_REHEARSED = "a rehearsed request is not sent, and this transport cannot show its bytes"


def offer(request: EarlyRequest) -> None:
    _waiting.append(request)


def watch(observer: Callable[[Key, bytes, Outcome], None]) -> None:
    """Call ``observer(key, request bytes, outcome)`` once, for the next first request."""
    global _observer
    _observer = observer


def wants_first_request() -> bool:
    """Whether the next request must be shown here (an early request waits, or someone watches)."""
    return not _first_seen and (bool(_waiting) or _observer is not None)


def waiting_for(key: Key) -> bool:
    return any(request.key == key for request in _waiting)


def take(key: Key, data: bytes) -> EarlyRequest | None:
    """The first request of the process, about to go to ``key`` as ``data``: the early request to
    adopt when it sent exactly these bytes; every other early request is closed."""
    global _first_seen, _observer
    _first_seen = True

    adopted: EarlyRequest | None = None
    for request in _waiting:
        if adopted is None and request.key == key and request.sent == data:
            adopted = request
        else:
            request.sock.close()
    outcome = "adopted" if adopted is not None else ("mismatch" if _waiting else "none")
    _waiting.clear()
    observer, _observer = _observer, None
    if observer is not None:
        try:
            observer(key, data, outcome)
        except Exception:  # recording for the next run never fails this one
            pass
    return adopted


def rehearse(observer: Callable[[Key, bytes], None]) -> None:
    """The next request is a rehearsal: ``observer(key, request bytes)``, then it fails unsent."""
    global _rehearsal
    _rehearsal = observer


def rehearsing() -> bool:
    return _rehearsal is not None


def rehearsed(key: Key, data: bytes) -> None:
    """The rehearsed request's bytes (its transport then fails it with ``REHEARSED``)."""
    global _rehearsal
    observer, _rehearsal = _rehearsal, None
    if observer is not None:
        try:
            observer(key, data)
        except Exception:  # recording for the next run never fails this one
            pass


def refuse_rehearsal() -> None:
    """A transport that cannot show its bytes ends the rehearsal (it then fails with ``NOT_REHEARSED``)."""
    global _rehearsal
    _rehearsal = None


def discard() -> None:
    """Close every early request nobody took (the run ended before its first request), and start
    afresh: the next request is a first one again (a host that runs ``pi`` twice in-process)."""
    global _observer, _first_seen, _rehearsal
    _rehearsal = None
    for request in _waiting:
        request.sock.close()
    _waiting.clear()
    _observer = None
    _first_seen = False
