"""Which files the summarised history read and changed.

Taken from ``read``/``write``/``edit`` tool calls with a string ``path`` argument and carried
over from the ``details`` of earlier pi-generated compactions and branch summaries. The lists
are appended to the summary as ``<read-files>`` / ``<modified-files>`` blocks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from pi_harness.coding.message_content import content_blocks


@dataclass
class FileOperations:
    read: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    edited: set[str] = field(default_factory=set)

    def add_tool_calls(self, messages: Iterable[Mapping[str, object]]) -> None:
        for message in messages:
            if message.get("role") != "assistant":
                continue
            for block in content_blocks(message.get("content")):
                if block.get("type") != "toolCall":
                    continue
                arguments = block.get("arguments")
                path = arguments.get("path") if isinstance(arguments, dict) else None
                if not isinstance(path, str):
                    continue
                name = block.get("name")
                if name == "read":
                    self.read.add(path)
                elif name == "write":
                    self.written.add(path)
                elif name == "edit":
                    self.edited.add(path)

    def add_details(self, details: object) -> None:
        """Carry over the lists stored by an earlier compaction or branch summary."""
        if not isinstance(details, dict):
            return
        for path in _items(details.get("readFiles")):
            if isinstance(path, str):
                self.read.add(path)
        for path in _items(details.get("modifiedFiles")):
            if isinstance(path, str):
                self.edited.add(path)

    def file_lists(self) -> tuple[list[str], list[str]]:
        """``(readFiles, modifiedFiles)``: modified = edited ∪ written; read excludes modified."""
        modified = self.edited | self.written
        return sorted(self.read - modified), sorted(modified)

    def details(self) -> dict[str, list[str]]:
        read_files, modified_files = self.file_lists()
        return {"readFiles": read_files, "modifiedFiles": modified_files}


def _items(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def format_file_lists(read_files: list[str], modified_files: list[str]) -> str:
    """The blocks appended to a summary (each only when non-empty, read files first)."""
    text = ""
    if read_files:
        text += "\n\n<read-files>\n" + "\n".join(read_files) + "\n</read-files>"
    if modified_files:
        text += "\n\n<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>"
    return text
