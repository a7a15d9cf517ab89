"""Work over a conversation resumed where the previous request left it.

Each request of a turn loop carries the previous request's messages plus a few new ones. A pass
over the messages whose state after the last message is known (the cross-provider transform, the
search for the last usage, a converter) can start from that state and go over the new messages
only: ``AppendMemo`` keeps the inputs of the last pass (the objects themselves, so that their ids
stay theirs) and the state it reached, and says how far a new input list is the same objects.
Any other change (an edit, a compaction, another model) starts the pass from the beginning.
"""

from __future__ import annotations

import operator
from collections.abc import Hashable, Sequence
from typing import Generic, TypeVar

S = TypeVar("S")


class AppendMemo(Generic[S]):
    def __init__(self) -> None:
        self._inputs: list[object] = []
        self._key: Hashable = None
        self._state: S | None = None

    def resume(self, inputs: Sequence[object], key: Hashable) -> tuple[int, S | None]:
        """How many of ``inputs`` the saved state covers and the state (taken: save it again
        when done), or ``(0, None)`` when ``inputs`` does not extend the last ones."""
        state, saved = self._state, self._inputs
        count = len(saved)
        self._state = None  # a pass that fails half-way leaves nothing to resume from
        if state is None or key != self._key or len(inputs) < count:
            return 0, None
        # Object by object (``is``, in C): equal but different objects do not count.
        if not all(map(operator.is_, inputs, saved)):
            return 0, None
        return count, state

    def save(self, inputs: Sequence[object], key: Hashable, state: S) -> None:
        self._inputs = list(inputs)
        self._key = key
        self._state = state

    def clear(self) -> None:
        self._inputs, self._key, self._state = [], None, None
