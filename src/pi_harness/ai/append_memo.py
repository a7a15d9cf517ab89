"""Work over a conversation resumed where the previous request left it.

Each request of a turn loop carries the previous request's messages plus a few new ones. A pass
over the messages whose state after the last message is known (the cross-provider transform, the
search for the last usage, a converter) can start from that state and go over the new messages
only: ``AppendMemo`` keeps the inputs of the last pass (the objects themselves, so that their ids
stay theirs) and the state it reached, and says how far a new input list is the same objects.
Any other change (an edit, a compaction, another model) starts the pass from the beginning.

Saying "the same objects" costs a comparison per message, a whole transcript on every request,
unless the list says so itself: a pass that only ever appends to its output hands it out as an
``AppendOnly`` list of one *lineage* (``issue``), and every list of a lineage begins with the
items of every shorter one. A memo that saw a list of the lineage then knows, without looking,
that a longer one extends it. Changing such a list in place takes it out of its lineage.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, Generic, Self, SupportsIndex, TypeVar, cast, overload

S = TypeVar("S")
T = TypeVar("T")


class Lineage:
    """The identity of one run of an append-only output (a new one whenever it starts over)."""

    __slots__ = ()


class AppendOnly(list[T]):
    """A snapshot of an append-only output: its items are those of every shorter list of the same
    ``lineage`` followed by newer ones. Any change in place (even an append: the items would no
    longer be the producer's) sets ``lineage`` to ``None``, so a memo never trusts a list that
    differs from what was issued."""

    __slots__ = ("lineage",)

    def __init__(self, items: Iterable[T] = (), lineage: Lineage | None = None) -> None:
        super().__init__(items)
        self.lineage = lineage

    def append(self, item: T) -> None:
        self.lineage = None
        super().append(item)

    def extend(self, items: Iterable[T]) -> None:
        self.lineage = None
        super().extend(items)

    def insert(self, index: SupportsIndex, item: T) -> None:
        self.lineage = None
        super().insert(index, item)

    def pop(self, index: SupportsIndex = -1) -> T:
        self.lineage = None
        return super().pop(index)

    def remove(self, item: T) -> None:
        self.lineage = None
        super().remove(item)

    def clear(self) -> None:
        self.lineage = None
        super().clear()

    def sort(self, *, key: Callable[[T], Any] | None = None, reverse: bool = False) -> None:
        self.lineage = None
        list.sort(cast(list[Any], self), key=key, reverse=reverse)

    def reverse(self) -> None:
        self.lineage = None
        super().reverse()

    @overload
    def __setitem__(self, index: SupportsIndex, value: T) -> None: ...

    @overload
    def __setitem__(self, index: slice, value: Iterable[T]) -> None: ...

    def __setitem__(self, index: SupportsIndex | slice, value: Any) -> None:
        self.lineage = None
        list.__setitem__(self, index, value)

    def __delitem__(self, index: SupportsIndex | slice) -> None:
        self.lineage = None
        super().__delitem__(index)

    def __iadd__(self, items: Iterable[T]) -> Self:  # type: ignore[override, misc]  # list's is narrower
        self.lineage = None
        super().extend(items)
        return self

    def __imul__(self, count: SupportsIndex) -> Self:
        self.lineage = None
        super().__imul__(count)
        return self


def lineage_of(items: Sequence[object]) -> Lineage | None:
    """The lineage of an issued list that is still as it was issued, else ``None``."""
    return items.lineage if type(items) is AppendOnly else None


def issue(items: Sequence[T], lineage: Lineage) -> AppendOnly[T]:
    """A snapshot of an append-only output for its consumers (``items`` goes on growing)."""
    return AppendOnly(items, lineage)


def extends(items: Sequence[object], lineage: Lineage | None, saved: Sequence[object]) -> bool:
    """Whether ``items`` begins with the objects of ``saved``, which was ``items``' lineage
    ``lineage`` (``None``: not an issued list) when it was saved: said by the lineage when both
    have the same, else object by object (``is``, in C)."""
    count = len(saved)
    if len(items) < count:
        return False
    if lineage is not None and lineage_of(saved) is not lineage:
        return False  # ``saved`` was changed in place since: what it held is unknown
    if lineage is not None and lineage_of(items) is lineage:
        return True
    # Equal but different objects do not count.
    return all(map(operator.is_, items, saved))


class AppendMemo(Generic[S]):
    def __init__(self) -> None:
        self._inputs: Sequence[object] = ()
        self._lineage: Lineage | None = None
        self._key: Hashable = None
        self._state: S | None = None

    def resume(self, inputs: Sequence[object], key: Hashable) -> tuple[int, S | None]:
        """How many of ``inputs`` the saved state covers and the state (taken: save it again
        when done), or ``(0, None)`` when ``inputs`` does not extend the last ones."""
        state, saved = self._state, self._inputs
        self._state = None  # a pass that fails half-way leaves nothing to resume from
        if state is None or key != self._key or not extends(inputs, self._lineage, saved):
            return 0, None
        return len(saved), state

    def save(self, inputs: Sequence[object], key: Hashable, state: S) -> None:
        lineage = lineage_of(inputs)
        # An issued list stays as it is (or leaves its lineage): no copy needed to compare later.
        self._inputs = inputs if lineage is not None else list(inputs)
        self._lineage = lineage
        self._key = key
        self._state = state

    def clear(self) -> None:
        self._inputs, self._lineage, self._key, self._state = (), None, None, None
