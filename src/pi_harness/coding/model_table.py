"""The model runtime's models by provider, each provider's list made when it is first asked for.

A session that uses one provider looks up its model and that provider's credentials; building
the list of every provider (the whole catalogue parsed, ``models.json`` applied to each) is left
to the calls that need all of them (``get_all``, ``get_available``, the provider list). Both
ways give the same lists: ``one(provider)`` must compute exactly what ``everything()[provider]``
holds.
"""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterator, KeysView, ValuesView

from pi_harness.ai.types import Model


class ModelTable:
    def __init__(
        self,
        one: Callable[[str], list[Model] | None],
        everything: Callable[[], dict[str, list[Model]]],
    ) -> None:
        self._one = one
        self._everything = everything
        self._some: dict[str, list[Model] | None] = {}
        self._all: dict[str, list[Model]] | None = None

    def full(self) -> dict[str, list[Model]]:
        if self._all is None:
            self._all = self._everything()
        return self._all

    def get(self, provider: str, default: list[Model]) -> list[Model]:
        if self._all is not None:
            return self._all.get(provider, default)
        if provider not in self._some:
            self._some[provider] = self._one(provider)
        found = self._some[provider]
        return default if found is None else found

    def __iter__(self) -> Iterator[str]:
        return iter(self.full())

    def keys(self) -> KeysView[str]:
        return self.full().keys()

    def values(self) -> ValuesView[list[Model]]:
        return self.full().values()

    def items(self) -> ItemsView[str, list[Model]]:
        return self.full().items()
