"""Which entries of a large session's active path the model context reads (``context.py``).

Everything from the latest compaction's first kept entry on (the whole path without a
compaction), and the latest assistant message before that, which still names the model. Those are
the only stubs (``cold_part.py``) an open has to read from the file; every other entry the
projection looks at was parsed in full.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import cast

from pi_harness.coding.session_store.entries import SessionEntry


def context_window(
    path: Sequence[SessionEntry],
    candidates: Iterable[tuple[int, SessionEntry]],
    id_at: Callable[[int], object],
    stub_role: Callable[[int], str | None],
) -> tuple[list[int], int]:
    """The path indices whose content the projection reads, and the lowest of them (no stub
    before it can matter to the projection, ``context.WalkedPath``).

    ``candidates``: the entries that may be a compaction with their indices, newest first (a
    compaction is never a stub); ``id_at`` gives an entry's id and ``stub_role`` a stub's role
    (None for an entry parsed in full), both without making an entry object."""
    start = 0
    for index, entry in candidates:
        if entry["type"] == "compaction":
            first_kept = entry.get("firstKeptEntryId")
            start = index
            # Searched back from the compaction, near which it keeps (ids are unique on a path).
            for earlier in range(index - 1, -1, -1):
                if id_at(earlier) == first_kept:
                    start = earlier
                    break
            break
    wanted = list(range(start, len(path)))
    for index in range(start - 1, -1, -1):
        role = stub_role(index)
        if role is not None:
            if role == "assistant":
                wanted.append(index)
                return wanted, index
            continue
        entry = path[index]
        if entry["type"] == "model_change":
            break
        message = entry.get("message")
        if (
            entry["type"] == "message"
            and isinstance(message, dict)
            and cast(dict[str, object], message).get("role") == "assistant"
        ):
            wanted.append(index)
            return wanted, index
    return wanted, start
