"""Replacing secret values by ``[redacted:<name>]`` in text and in JSON-like data.

A value is matched as it is, as it appears inside a JSON string (quotes, backslashes and newlines
escaped) and, for a multi-line value, with CRLF line ends. Image data is never rewritten. Data
structures are copied only where something changed, so an unchanged result is the same object.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable
from typing import TypeVar, cast

from pi_harness.coding.secrets.sources import NamedSecret

T = TypeVar("T")

_MARKER = re.compile(r"\[redacted:([^\]\s]+)\]")


def marker(name: str) -> str:
    """What replaces a secret: ``[redacted:OPENAI_API_KEY]``."""
    return f"[redacted:{name}]"


class _Compiled:
    __slots__ = ("_last", "markers", "pattern")

    def __init__(self, pattern: re.Pattern[str], markers: dict[str, str]) -> None:
        self.pattern = pattern
        self.markers = markers
        # The last text looked at and its masked form: a result often holds one text twice (a
        # tool's content and its ``structuredContent`` are the same string).
        self._last: tuple[str, str] = ("", "")

    def sub(self, text: str) -> str:
        last = self._last
        if text is last[0]:
            return last[1]
        masked = text if self.pattern.search(text) is None else self._replace(text)
        self._last = (text, masked)
        return masked

    def _replace(self, text: str) -> str:
        return self.pattern.sub(lambda match: self.markers[match.group(0)], text)


def _variants(value: str) -> list[str]:
    forms = [value, json.dumps(value, ensure_ascii=False)[1:-1]]
    if "\n" in value and "\r\n" not in value:
        forms.append(value.replace("\n", "\r\n"))
    return forms


@functools.lru_cache(maxsize=16)
def _compile(secrets: tuple[NamedSecret, ...]) -> _Compiled | None:
    markers: dict[str, str] = {}
    for secret in secrets:
        for form in _variants(secret.value):
            markers.setdefault(form, marker(secret.name))
    if not markers:
        return None
    # Longest first: the alternation takes the first that matches at a position.
    alternatives = sorted(markers, key=lambda form: (-len(form), form))
    return _Compiled(re.compile("|".join(re.escape(form) for form in alternatives)), markers)


def _mask(node: object, sub: Callable[[str], str]) -> object:
    if isinstance(node, str):
        return sub(node)
    if isinstance(node, dict):
        image = node.get("type") == "image"
        out: dict[object, object] = {}
        changed = False
        for key, value in node.items():
            masked = value if image and key == "data" else _mask(value, sub)
            changed = changed or masked is not value
            out[key] = masked
        return out if changed else node
    if isinstance(node, list | tuple):
        items = [_mask(item, sub) for item in node]
        if all(new is old for new, old in zip(items, node, strict=True)):
            return node
        return items if isinstance(node, list) else tuple(items)
    return node


class SecretMasker:
    """Masks the secrets ``secrets()`` names at the moment of each call, while ``enabled()``."""

    def __init__(
        self,
        secrets: Callable[[], Iterable[NamedSecret]],
        *,
        enabled: Callable[[], bool] | None = None,
    ) -> None:
        self._secrets = secrets
        self._enabled = enabled
        # The last collection seen and its pattern: a source that answers with the same object
        # while nothing changed (``CollectedSecrets``, ``of``) is sorted and compiled once.
        self._last: Iterable[NamedSecret] | None = None
        self._last_compiled: _Compiled | None = None

    @classmethod
    def of(cls, secrets: Iterable[NamedSecret]) -> SecretMasker:
        fixed = tuple(secrets)
        return cls(lambda: fixed)

    @property
    def enabled(self) -> bool:
        return self._enabled is None or self._enabled()

    def _compiled(self) -> _Compiled | None:
        if not self.enabled:
            return None
        found = self._secrets()
        if found is self._last:
            return self._last_compiled
        secrets = tuple(sorted(set(found), key=lambda s: (-len(s.value), s.value, s.name)))
        compiled = _compile(secrets) if secrets else None
        if isinstance(found, tuple):  # an immutable answer: the same object means the same secrets
            self._last, self._last_compiled = found, compiled
        return compiled

    def snapshot(self) -> SecretMasker:
        """A masker of the secrets known now (for the many chunks of one running command, without
        collecting the secrets again for each)."""
        return SecretMasker.of(self._secrets() if self.enabled else ())

    def text(self, text: str) -> str:
        compiled = self._compiled()
        return compiled.sub(text) if compiled is not None else text

    def restore(self, text: str) -> str:
        """``text`` with each marker of a known secret turned back into its value; a name that
        stands for several values stays a marker. (For what the model writes into files: a line
        it read masked keeps its credential when written back.)"""
        if not self.enabled or "[redacted:" not in text:
            return text
        values: dict[str, set[str]] = {}
        for secret in self._secrets():
            values.setdefault(secret.name, set()).add(secret.value)

        def value_of(match: re.Match[str]) -> str:
            found = values.get(match.group(1), set())
            return next(iter(found)) if len(found) == 1 else match.group(0)

        return _MARKER.sub(value_of, text)

    def value(self, value: T) -> T:
        """``value`` (strings, lists, dicts at any depth) with every secret masked."""
        compiled = self._compiled()
        if compiled is None:
            return value
        return cast(T, _mask(value, compiled.sub))


__all__ = ["SecretMasker", "marker"]
