"""Reading and writing session JSONL.

Records are compact JSON (``orjson``: no spaces, non-ASCII kept) framed by a single ``\\n``.
Reading is tolerant: blank and unparsable lines are skipped, invalid UTF-8 is decoded with
replacement characters, and a file whose first parsed record is not a session header counts as
invalid. Files are read line by line in binary mode, which
splits on ``\\n`` only (never ``str.splitlines()``, which would also split on U+2028 and friends)
and keeps just one raw line in memory at a time.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import orjson

from pi_harness.ai.jsonutil import dumps
from pi_harness.coding.session_store.entries import SessionHeader

_BOM = b"\xef\xbb\xbf"
_HEADER_PROBE_LIMIT = 64 * 1024
# Sessions hold prompts, tool output and whatever secrets those contain: files and directories
# the store creates are for their owner only (existing ones keep the mode they have).
SESSION_FILE_MODE = 0o600
SESSION_DIR_MODE = 0o700


def make_private_dirs(directory: Path) -> None:
    """``mkdir -p`` where every directory created (not the existing ones) is ``0700``."""
    missing: list[Path] = []
    current = directory
    while not current.exists() and current.parent != current:
        missing.append(current)
        current = current.parent
    for path in reversed(missing):
        try:
            path.mkdir(mode=SESSION_DIR_MODE)
        except FileExistsError:
            continue
        # mkdir applies the umask; an unusual one could take the owner's own bits, so set it exactly.
        os.chmod(path, SESSION_DIR_MODE)


def encode_record(record: object) -> bytes:
    """One JSONL line: compact UTF-8 JSON plus ``\\n``."""
    return dumps(record) + b"\n"


def is_header(record: object) -> bool:
    return isinstance(record, dict) and record.get("type") == "session" and isinstance(record.get("id"), str)


@dataclass
class SessionFileContents:
    """What a tolerant read of one session file found."""

    exists: bool
    # The header record and every parsed object after it, in file order, as read: they may be
    # of an older format (``migrate.py`` brings them to the current one, in place).
    header_record: dict[str, object] | None = None
    entries: list[dict[str, object]] = field(default_factory=list)
    # True when the file holds no parsable record and nothing but whitespace.
    blank: bool = True
    ends_with_newline: bool = True
    size: int = 0

    @property
    def header(self) -> SessionHeader | None:
        """The header (its ``type`` and ``id`` are checked; the rest is as the file has it)."""
        return cast(SessionHeader | None, self.header_record)

    @property
    def valid(self) -> bool:
        return self.header_record is not None


def read_session_file(path: str | os.PathLike[str]) -> SessionFileContents:
    """Parse a session file tolerantly. A missing file gives ``exists=False`` and no entries."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below; iteration needs the handle
    except FileNotFoundError:
        return SessionFileContents(exists=False)
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    header: dict[str, object] | None = None
    entries: list[dict[str, object]] = []
    saw_record = False
    blank = True
    last = b""
    with handle:
        for raw in handle:
            last = raw
            line = raw[len(_BOM) :] if not saw_record and raw.startswith(_BOM) else raw
            try:
                record = loads(line)
            except decode_error:
                record = _loads_replacing(line)
                if record is None:
                    if blank and line and not line.isspace():
                        blank = False
                    continue
            blank = False
            if not isinstance(record, dict):
                continue
            if not saw_record:
                saw_record = True
                if not is_header(record):
                    # First parsed object is not a header: the file is invalid; stop reading.
                    return SessionFileContents(exists=True, blank=False, size=handle.seek(0, os.SEEK_END))
                header = record
                continue
            entries.append(record)
        size = handle.tell()
    return SessionFileContents(
        exists=True,
        header_record=header,
        entries=entries,
        blank=blank,
        ends_with_newline=not last or last.endswith(b"\n"),
        size=size,
    )


def loads_tolerant(line: bytes) -> object:
    """One line as the reader takes it: JSON, else JSON with invalid UTF-8 replaced, else None."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return _loads_replacing(line)


def _loads_replacing(line: bytes) -> object:
    """A line that is JSON apart from invalid UTF-8, decoded with U+FFFD for the bad bytes (as a
    JavaScript reader does) instead of being lost with every entry that descends from it."""
    if line.isascii():
        return None  # cannot be a UTF-8 problem; checked without copying a possibly huge line
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        try:
            return orjson.loads(line.decode("utf-8", "replace"))
        except orjson.JSONDecodeError:
            return None
    return None


def read_header(path: str | os.PathLike[str]) -> SessionHeader | None:
    """The header as ``read_session_file`` finds it (the first parsable record, unparsable lines
    before it skipped), reading only up to it. A line longer than a header can be is skipped
    unread beyond its first bytes, so a huge torn line costs no memory."""
    try:
        with open(path, "rb") as handle:
            first = True
            while True:
                line = handle.readline(_HEADER_PROBE_LIMIT)
                if not line:
                    return None
                if not line.endswith(b"\n") and len(line) >= _HEADER_PROBE_LIMIT:
                    while line and not line.endswith(b"\n"):
                        line = handle.readline(_HEADER_PROBE_LIMIT)
                    first = False
                    continue
                if first and line.startswith(_BOM):
                    line = line[len(_BOM) :]
                first = False
                try:
                    record = orjson.loads(line)
                except orjson.JSONDecodeError:
                    record = _loads_replacing(line)
                    if record is None:
                        continue
                if isinstance(record, dict):
                    return cast(SessionHeader, record) if is_header(record) else None
    except OSError:
        return None


def fsync_directory(directory: str | os.PathLike[str]) -> None:
    """Make a create/rename in ``directory`` durable (no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: str | os.PathLike[str], records: Iterable[object], *, sync_directory: bool = False) -> None:
    """Replace ``path`` with ``records`` (one JSONL line each) via a temp file and a rename.

    Readers see either the old or the new file, never a half-written one. The file's mode is kept.
    """
    import tempfile  # only rewrites need it; appends and reads are most runs

    target = Path(path)
    fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            for record in records:
                out.write(encode_record(record))
            out.flush()
            os.fsync(out.fileno())
        try:
            os.chmod(temp_name, stat.S_IMODE(os.stat(target).st_mode))
        except FileNotFoundError:
            os.chmod(temp_name, SESSION_FILE_MODE)
        os.replace(temp_name, target)
    except BaseException:
        try:
            os.unlink(temp_name)
        except FileNotFoundError:
            pass
        raise
    if sync_directory:
        fsync_directory(target.parent)
