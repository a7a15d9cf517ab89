"""What a scan learnt about the covered part of a large session: the lines before its latest
compaction (``deferred.py``), as the index file beside the session records them
(``scan_index.py``)."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field


def _offsets() -> array[int]:
    return array("q")


@dataclass
class CoveredLines:
    """Every line before the latest compaction that gave the header or an entry, in file order.

    ``kinds`` has one letter per such line: ``h`` the header, ``f`` an entry parsed in full (its
    offset and length in ``line_offsets``/``line_lengths``, in the same order, after the
    header's), ``s`` a stub: a ``user``, ``assistant`` or ``toolResult`` message known by its id,
    parent, role, offset and length only (the ``stub_*`` lists, in the same order)."""

    end: int = 0  # the offset up to which the lines are known
    kinds: bytearray = field(default_factory=bytearray)
    line_offsets: array[int] = field(default_factory=_offsets)
    line_lengths: array[int] = field(default_factory=_offsets)
    stub_ids: list[str] = field(default_factory=list)
    stub_parents: list[str | None] = field(default_factory=list)
    stub_roles: bytearray = field(default_factory=bytearray)
    stub_offsets: array[int] = field(default_factory=_offsets)
    stub_lengths: array[int] = field(default_factory=_offsets)
    sample: str = ""  # scan_index.sample of the file's first ``end`` bytes, when they were read

    def add_line(self, kind: bytes, offset: int, length: int) -> None:
        """A header (``h``) or fully parsed (``f``) line."""
        self.kinds += kind
        self.line_offsets.append(offset)
        self.line_lengths.append(length)

    def add_stub(self, entry_id: str, parent: str | None, role: int, offset: int, length: int) -> None:
        self.kinds += b"s"
        self.stub_ids.append(entry_id)
        self.stub_parents.append(parent)
        self.stub_roles.append(role)
        self.stub_offsets.append(offset)
        self.stub_lengths.append(length)
