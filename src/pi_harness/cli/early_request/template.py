"""A session's first request turned into a record (``record.py``): its head without the
``Content-Length`` line and with each credential replaced by where it came from, its body split
around the prompt's JSON string.

Nothing is recorded that could not be sent again byte for byte: a body in which the prompt's
JSON does not occur exactly once, a head that is not ``light_http``'s form, or a credential
found neither in the environment nor, exactly once and without escapes, in a JSON file that
startup read.
"""

from __future__ import annotations

import os

import orjson  # recording happens once the session runs: orjson is loaded by then

from pi_harness.cli.early_request.record import CREDENTIAL_HINTS, MIN_SECRET_LENGTH

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

LENGTH_FIELD = b"\r\nContent-Length: "


def split_request(data: bytes) -> tuple[str, bytes] | None:
    """``(head before its Content-Length line, body)``, or ``None`` when ``data`` is not a head
    that ends with its ``Content-Length`` followed by exactly that many bytes of body."""
    end = data.find(b"\r\n\r\n")
    if end < 0:
        return None
    start = data.rfind(LENGTH_FIELD, 0, end)
    body = data[end + 4 :]
    if start < 0 or data[start + len(LENGTH_FIELD) : end] != b"%d" % len(body):
        return None
    return data[: start + 2].decode("latin-1"), body


def split_body(body: bytes, prompt: str) -> list[str] | None:
    try:
        encoded = orjson.dumps(prompt)
        if body.count(encoded) != 1:
            return None
        before, after = body.split(encoded)
        return [before.decode("utf-8"), after.decode("utf-8")]
    except (orjson.JSONEncodeError, UnicodeDecodeError):
        return None


def _file_contents(paths: Iterable[str]) -> list[tuple[str, bytes]]:
    contents: list[tuple[str, bytes]] = []
    for path in paths:
        if path.endswith(".json"):
            try:
                with open(path, "rb") as file:
                    contents.append((path, file.read()))
            except OSError:
                continue
    return contents


class _Credentials:
    """Where a credential's value can be read again."""

    def __init__(self, environ: Mapping[str, str], read_files: Iterable[str]) -> None:
        self._environ = environ
        self._read_files = list(read_files)
        self._contents: list[tuple[str, bytes]] | None = None

    def source(self, value: str) -> dict[str, object] | None:
        if len(value) < MIN_SECRET_LENGTH:
            return None
        for name, candidate in sorted(self._environ.items()):
            if candidate == value:
                return {"env": name}
        raw = value.encode("utf-8")
        if b'"' + raw + b'"' != orjson.dumps(value):
            return None  # written with escapes: its bytes in a file are not the value
        if self._contents is None:
            self._contents = _file_contents(self._read_files)
        quoted = b'"' + raw + b'"'
        for path, content in self._contents:
            if content.count(quoted) == 1:
                start = content.index(quoted) + 1
                return {"file": path, "span": [start, start + len(raw)]}
        return None


def head_segments(head: str, environ: Mapping[str, str], read_files: Iterable[str]) -> list[object] | None:
    """The head as text segments and credential sources; ``None`` when a credential's source is
    unknown (it would have to be written into the record)."""
    credentials = _Credentials(environ, read_files)
    lines = head.split("\r\n")
    segments: list[object] = [lines[0] + "\r\n"]
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(": ")
        if not sep:
            return None
        prefix, _space, last = value.rpartition(" ")
        found = credentials.source(value)
        if found is not None:
            segments += [f"{name}: ", found, "\r\n"]
            continue
        found = credentials.source(last) if prefix else None
        if found is not None:
            segments += [f"{name}: {prefix} ", found, "\r\n"]
            continue
        # A value of unknown origin in a credential's header (``Bearer <token>``: the token) is
        # written as it is only when it is too short to be a secret (``local``, ``none``).
        if any(hint in name.lower() for hint in CREDENTIAL_HINTS) and len(last) >= MIN_SECRET_LENGTH:
            return None
        segments.append(line + "\r\n")
    return _merged(segments)


def _merged(segments: list[object]) -> list[object]:
    merged: list[object] = []
    for segment in segments:
        if isinstance(segment, str) and merged and isinstance(merged[-1], str):
            merged[-1] = merged[-1] + segment
        else:
            merged.append(segment)
    return merged


def read_files(observed: Iterable[tuple[str, str]], roots: Iterable[str]) -> list[str]:
    """The files startup read under ``roots`` (the agent directory, the project): where a
    configured credential can be."""
    prefixes = tuple(os.path.join(root, "") for root in roots)
    return sorted({path for path, how in observed if how == "r" and path.startswith(prefixes)})
