"""The record of a first request: where it is kept, what it must find unchanged, and its bytes
with holes for the prompt, the ``Content-Length`` and the credentials.

One record per working directory and command line (all but its last word, the prompt), in
``<agentDir>/cache/early-requests/<digest>.rec`` (mode 0600), in the interpreter's ``marshal``
format (read before anything else is imported: a JSON parser would cost more than the rest of
the check). It holds:

* ``version``, ``python``: the pi-harness version and the interpreter's, which made it;
* ``argv``, ``cwd``, ``env``: the command line less the prompt, the working directory and a digest
  of the environment (``environment_digest``), so no value of it is written down;
* ``stdin``: what standard input was (``tty``, ``null`` or ``closed``: nothing was piped);
  ``stdoutTty``: whether standard output was a terminal;
* ``paths``: ``[path, how, signature]`` for what startup looked at (``trace.py``);
* ``target``: ``[scheme, host, port]``; ``head``: the request head up to its ``Content-Length``
  line, as segments: text, or where a credential was, ``{"env": NAME}`` or ``{"file": path,
  "span": [start, end]}`` (the bytes of a JSON string in a configuration file startup read; the
  value is read from there again when the request is sent, so no credential is copied into the
  record); ``body``: ``[before, after]`` the JSON string of the prompt;
* ``adopted``: how many runs used the request sent ahead (their session's request was the same);
* ``disabled``: a sent copy did not match the session's own request: not sent again until
  something in the fingerprint changes.
"""

from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

FORMAT = 1
RECORD_DIR = ("cache", "early-requests")
# Shell bookkeeping that differs between two runs of the same command and never reaches a request.
VOLATILE_ENVIRONMENT = frozenset({"_", "OLDPWD", "SHLVL"})
# Header names whose values are credentials: a record is written only when each such value was
# found where it can be read again (an environment variable, a JSON file startup read).
CREDENTIAL_HINTS = ("auth", "key", "token", "secret", "cookie", "session")
MIN_SECRET_LENGTH = 8


def _blake2b(data: bytes) -> str:
    from _blake2 import blake2b  # without hashlib, which loads OpenSSL

    return blake2b(data, digest_size=20).hexdigest()


def agent_directory(environ: Mapping[str, str]) -> str:
    """``config.paths.agent_dir()`` without importing it: ``$PI_CODING_AGENT_DIR`` (``~``
    expanded, resolved) or ``~/.pi/agent``."""
    value = environ.get("PI_CODING_AGENT_DIR")
    home = os.path.expanduser("~")
    if value:
        if value == "~" or value.startswith("~/"):
            value = home + value[1:]
        return os.path.realpath(value)
    return os.path.join(home, ".pi", "agent")


def record_path(agent_dir: str, cwd: str, argv: Iterable[str]) -> str:
    key = "\0".join([cwd, agent_dir, *argv]).encode("utf-8", "surrogateescape")
    return os.path.join(agent_dir, *RECORD_DIR, _blake2b(key) + ".rec")


def environment_digest(environ: Mapping[str, str]) -> str:
    items = sorted((k, v) for k, v in environ.items() if k not in VOLATILE_ENVIRONMENT)
    text = "\0".join(f"{k}={v}" for k, v in items)
    return _blake2b(text.encode("utf-8", "surrogateescape"))


def stdin_kind() -> str | None:
    """``tty``, ``null`` (``/dev/null``) or ``closed``; ``None`` when something may be piped."""
    import stat

    try:
        info = os.fstat(0)
    except OSError:
        return "closed"
    if os.isatty(0):
        return "tty"
    if stat.S_ISCHR(info.st_mode):
        try:
            if os.stat(os.devnull).st_rdev == info.st_rdev:
                return "null"
        except OSError:
            return None
    return None


def interpreter() -> int:
    return sys.hexversion


def load(path: str) -> dict[str, object] | None:
    try:
        with open(path, "rb") as file:
            value = marshal.loads(file.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    return value if isinstance(value, dict) and value.get("format") == FORMAT else None


def save(path: str, record: Mapping[str, object]) -> None:
    """Write ``record`` atomically, readable by its owner only; a failure is silent (the record
    is only ever a shortcut)."""
    try:
        data = marshal.dumps(dict(record))
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        temporary = f"{path}.{os.getpid()}.tmp"
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except (OSError, ValueError):
        pass


def resolve_head(segments: object, environ: Mapping[str, str]) -> bytes | None:
    """The head with its credentials read again; ``None`` when one cannot be."""
    if not isinstance(segments, list):
        return None
    parts: list[str] = []
    for segment in segments:
        if isinstance(segment, str):
            parts.append(segment)
            continue
        value = _credential(segment, environ) if isinstance(segment, dict) else None
        if value is None:
            return None
        parts.append(value)
    try:
        return "".join(parts).encode("latin-1")
    except UnicodeEncodeError:
        return None


def _credential(source: Mapping[str, object], environ: Mapping[str, str]) -> str | None:
    name = source.get("env")
    if isinstance(name, str):
        return environ.get(name)
    file, span = source.get("file"), source.get("span")
    if not (isinstance(file, str) and isinstance(span, list) and len(span) == 2):
        return None
    start, end = span
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end):
        return None
    # The file is one of the recorded paths, unchanged since: the value is where it was.
    try:
        with open(file, "rb") as handle:
            handle.seek(start)
            return handle.read(end - start).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
