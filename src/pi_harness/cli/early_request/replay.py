"""The first lines of ``pi``: send the recorded first request at once, or start tracing startup
so that this run can record it.

``begin(argv)`` runs before anything else is imported. It looks for the record of this working
directory and command line (``record.py``) and checks that everything the recorded run's startup
looked at is unchanged. Then it fills in the prompt and the credentials, connects (plain ``http``
only: a TLS connection cannot be handed to the event loop), writes the request and offers the
socket to ``pi_harness.early_exchange``, where the session's own first request adopts it if the bytes
are the same. On any doubt it sends nothing: the session then sends its request as usual.

Off with ``PI_EARLY_REQUEST=0`` (nothing is sent, traced or recorded).
"""

from __future__ import annotations

import os

from pi_harness.cli.early_request import record as records
from pi_harness.cli.early_request.state import STATE, EarlyState, stop_tracing
from pi_harness.cli.early_request.trace import FileTrace, signature

TYPE_CHECKING = False
if TYPE_CHECKING:
    import _socket
    from collections.abc import Mapping, Sequence

__all__ = ["ENV_VAR", "begin", "encode_prompt", "stop_tracing"]

ENV_VAR = "PI_EARLY_REQUEST"
CONNECT_TIMEOUT_S = 0.3  # a local server answers in microseconds; a missing one is not waited for
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
# A session found or made another way each time: its request carries a history the command line
# does not name; never recorded, so not traced either. (``--session FILE`` names its file: such a
# run is recorded at its end, for the next one, see ``rehearsal.py``.)
EXISTING_SESSION_FLAGS = frozenset({"-c", "--continue", "-r", "--resume", "--fork", "--session-id"})
# A prompt that startup would change before sending it (a command, a template, a shell line).
CHANGED_PROMPT_PREFIXES = ("-", "@", "/", "!")


_TRACE = FileTrace()  # one per process (its audit hook cannot be removed)


def enabled(environ: Mapping[str, str]) -> bool:
    return environ.get(ENV_VAR, "").strip().lower() not in ("0", "false", "no", "off")


def _prompt_sendable(prompt: str) -> bool:
    return bool(prompt) and not prompt.startswith(CHANGED_PROMPT_PREFIXES)


def begin(argv: Sequence[str]) -> EarlyState:
    """Decide for this run: send a recorded request, trace startup, or neither."""
    from pi_harness import early_exchange

    early_exchange.discard()
    state = STATE.reset()
    environ = dict(os.environ)
    if len(argv) < 2 or not enabled(environ) or any(environ.get(name) for name in PROXY_VARIABLES):
        return state
    if any(arg.partition("=")[0] in EXISTING_SESSION_FLAGS for arg in argv[:-1]):
        return state
    prompt = argv[-1]
    kind = records.stdin_kind()
    if kind is None or not _prompt_sendable(prompt):
        return state
    try:
        cwd = os.getcwd()
    except OSError:
        return state
    state.argv, state.cwd, state.environ, state.stdin = list(argv), cwd, environ, kind
    state.stdout_tty = os.isatty(1)
    state.agent_dir = records.agent_directory(environ)
    state.path = records.record_path(state.agent_dir, cwd, argv[:-1])
    found = records.load(state.path)
    if found is not None and _unchanged(found, state):
        if found.get("disabled"):
            return state
        if _send(found, state, prompt):
            state.mode, state.record = "sent", found
            early_exchange.watch(_after_sent)
        return state
    state.mode, state.trace = "tracing", _TRACE
    _TRACE.start()
    from pi_harness.cli.early_request.recorder import after_traced

    early_exchange.watch(after_traced)
    return state


def _unchanged(found: Mapping[str, object], state: EarlyState) -> bool:
    from pi_harness.__about__ import __version__

    if (
        found.get("version") != __version__
        or found.get("python") != records.interpreter()
        or found.get("argv") != state.argv[:-1]
        or found.get("cwd") != state.cwd
        or found.get("stdin") != state.stdin
        or found.get("stdoutTty") != state.stdout_tty
        or found.get("env") != records.environment_digest(state.environ)
    ):
        return False
    paths = found.get("paths")
    if not isinstance(paths, list):
        return False
    for entry in paths:
        if not (isinstance(entry, list) and len(entry) == 3):
            return False
        if not (isinstance(entry[0], str) and isinstance(entry[1], str)):
            return False
        if signature(entry[0], entry[1]) != entry[2]:
            return False
    return True


def encode_prompt(prompt: str) -> bytes | None:
    """The prompt as a JSON string, byte for byte as ``orjson`` writes it, without importing it:
    a prompt that needs an escape is left to the session (``None``)."""
    if '"' in prompt or "\\" in prompt or any(ord(character) < 0x20 for character in prompt):
        return None
    try:
        return b'"' + prompt.encode("utf-8") + b'"'
    except UnicodeEncodeError:  # a lone surrogate: orjson refuses it too
        return None


def _send(found: Mapping[str, object], state: EarlyState, prompt: str) -> bool:
    target, body = found.get("target"), found.get("body")
    if not (isinstance(target, list) and len(target) == 3 and target[0] == "http"):
        return False
    host, port = target[1], target[2]
    if not (isinstance(host, str) and isinstance(port, int) and isinstance(body, list) and len(body) == 2):
        return False
    head = records.resolve_head(found.get("head"), state.environ)
    encoded = encode_prompt(prompt)
    if head is None or encoded is None or not all(isinstance(part, str) for part in body):
        return False
    try:
        data = b"".join([body[0].encode("utf-8"), encoded, body[1].encode("utf-8")])
    except UnicodeEncodeError:
        return False
    request = head + b"Content-Length: %d\r\n\r\n" % len(data) + data
    from pi_harness import early_exchange

    sock = _connect(host, port)
    if sock is None:
        return False
    try:
        sock.sendall(request)
        sock.setblocking(False)
    except OSError:
        sock.close()
        return False
    early_exchange.offer(early_exchange.EarlyRequest(("http", host, port), sock, request))
    return True


def _connect(host: str, port: int) -> _socket.socket | None:
    """A connected TCP socket of the C module (``socket.py`` would load ``enum`` and
    ``selectors`` first), the host given as bytes (a str goes through the ``idna`` codec)."""
    import _socket

    try:
        addresses = _socket.getaddrinfo(host.encode("ascii"), port, 0, _socket.SOCK_STREAM)
    except (OSError, UnicodeEncodeError):
        return None
    for family, kind, proto, _name, address in addresses:
        sock = _socket.socket(family, kind, proto)
        try:
            sock.settimeout(CONNECT_TIMEOUT_S)
            sock.connect(address)
        except OSError:
            sock.close()
            continue
        return sock
    return None


def _after_sent(key: tuple[str, str, int], data: bytes, outcome: str) -> None:
    """The session's own first request, after a recorded one went out: counted in the record
    when it was the same (the answer was already on its way), else the record stays unused until
    something it depends on changes. Written after the request went out, off its path."""
    if outcome == "adopted":
        uses = STATE.record.get("adopted")
        records.save(STATE.path, {**STATE.record, "adopted": (uses if isinstance(uses, int) else 0) + 1})
    else:
        STATE.mismatched = True
        records.save(STATE.path, {**STATE.record, "disabled": True})
