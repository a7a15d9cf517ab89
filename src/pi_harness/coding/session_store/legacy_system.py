"""Upgrading the system messages written by earlier pi-harness versions to Pi's shape.

Those versions stored the first system message with the whole rendered prompt in ``content`` and
the sections again, without their tags, in ``sections``; removed tools were bare names. Read as
they are, the prompt would be sent twice (the content, then the sections), by Pi as well as by
us, and Pi would not see the removals. So, when a file is opened, such a message gets its
sections tagged, its content emptied (it only repeated the sections) and ``{"name": …}``
references for its removed tools. A section that is not tagged is the mark of that old shape:
Pi and the current version tag every section but the preamble.
"""

from __future__ import annotations

from pi_harness.coding.session_store.ids import iso_to_ms
from pi_harness.coding.session_store.system_messages import is_tagged, tag_section

Record = dict[str, object]


def _tag_sections(message: Record) -> bool:
    sections = message.get("sections")
    if not isinstance(sections, dict):
        return False
    untagged = [
        name
        for name, text in sections.items()
        if name != "preamble" and isinstance(name, str) and isinstance(text, str) and not is_tagged(name, text)
    ]
    for name in untagged:
        sections[name] = tag_section(name, sections[name])
    return bool(untagged)


def _name_removed_tools(message: Record) -> bool:
    removed = message.get("toolsRemoved")
    if not isinstance(removed, list) or not any(isinstance(item, str) for item in removed):
        return False
    message["toolsRemoved"] = [{"name": item} if isinstance(item, str) else item for item in removed]
    return True


def upgrade_system_entry(entry: Record) -> bool:
    """Bring the system message of a ``message`` entry to Pi's shape in place; True if it changed."""
    message = entry.get("message")
    if entry.get("type") != "message" or not isinstance(message, dict) or message.get("role") != "system":
        return False
    changed = _name_removed_tools(message)
    if _tag_sections(message):
        changed = True
        if message.get("content"):
            message["content"] = ""
        if message.get("timestamp") == 0:
            # The first message had no time of its own; the entry's is the nearest.
            stamp = entry.get("timestamp")
            message["timestamp"] = iso_to_ms(stamp if isinstance(stamp, str) else None)
    return changed


def upgrade_system_entries(entries: list[Record]) -> bool:
    """``upgrade_system_entry`` for every entry; True if any changed."""
    changed = False
    for entry in entries:
        # Only system messages can need it: the others are passed over without a call.
        message = entry.get("message")
        if type(message) is dict and message.get("role") == "system" and upgrade_system_entry(entry):
            changed = True
    return changed
