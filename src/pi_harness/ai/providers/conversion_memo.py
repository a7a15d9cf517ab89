"""Each message's wire form, converted once: a conversation's requests differ by their last few
messages, so a converter that remembers the rest turns each request's cost from the whole
transcript into the messages that are new.

The memo is keyed by the message object's identity and by what else the conversion read (the
compat flags, whether images go through), and holds the message itself so that its id cannot be
reused by another object while the entry lives. Messages of a finished turn are not changed in
place (an edit replaces the message), and the wire forms handed out are shared between requests:
whatever changes one (cache markers, a payload hook) must change a copy.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar, cast

T = TypeVar("T")
M = TypeVar("M")
A = TypeVar("A")

# Enough for the longest sessions between compactions; past it the memo starts again (one
# request pays for converting everything, as without it).
MAX_ENTRIES = 16_384


class ConversionMemo:
    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._entries: dict[int, tuple[object, Hashable, object]] = {}
        self._max = max_entries

    def get(self, message: M, key: Hashable, convert: Callable[[M, A], T], argument: A) -> T:
        """``convert(message, argument)``, computed once per message and key."""
        ident = id(message)  # once: while an audit hook is installed, each ``id()`` calls it
        hit = self._entries.get(ident)
        if hit is not None and hit[0] is message and hit[1] == key:
            return cast(T, hit[2])  # stored by this method for the same key
        value = convert(message, argument)
        if len(self._entries) >= self._max:
            self._entries.clear()
        self._entries[ident] = (message, key, value)
        return value

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
