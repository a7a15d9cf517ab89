"""How one JSON value of ``settings.json`` becomes the typed value of one setting.

A ``Rule`` checks a value and converts it (lists to tuples, objects to read-only mappings). A value
it cannot use raises ``Rejected``: the setting keeps its default and the reader reports a warning.
A value it can use after a fix (a number clamped into range, a list with a non-string entry
dropped) is kept and the fix is reported through ``ReadContext.warn``. Rules also say which JSON
types ``pi config set`` accepts for the key (``json_types``) and, for enumerations, the choices.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Generic, Literal, TypeAlias, TypeVar

JsonScalar: TypeAlias = str | int | float | bool | None
JsonValue: TypeAlias = JsonScalar | list["JsonValue"] | dict[str, "JsonValue"]
JsonObject: TypeAlias = Mapping[str, JsonValue]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
C = TypeVar("C", bound=JsonScalar)

_JSON_NAMES: dict[type, str] = {bool: "boolean", int: "number", float: "number", str: "string"}
_JSON_NAMES.update({list: "array", dict: "object"})


@dataclass(frozen=True)
class SettingsDiagnostic:
    """A problem with the settings: a file that cannot be read (error) or a value that cannot be
    used as it is (warning, ``key`` names the setting)."""

    path: str
    message: str
    level: Literal["error", "warning"] = "error"
    key: str | None = None

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def show(value: object) -> str:
    """A value as the user wrote it in JSON (``true``, ``"yes"``, ``[1]``)."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def to_json(value: object) -> JsonValue:
    """A setting's value back in JSON form: tuples as lists, mappings as dicts."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, Sequence):
        return [to_json(v) for v in value]
    raise TypeError(f"not a JSON value: {value!r}")


def copy_json(value: object) -> JsonValue:
    """A deep copy of a parsed JSON value: the model shares no object with the raw settings, so
    changing one never changes the other. Anything that is not JSON is rejected."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, Mapping):
        return {str(k): copy_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [copy_json(v) for v in value]
    raise Rejected


class Rejected(Exception):
    """The value cannot be used: the setting keeps its default."""


@dataclass
class ReadContext:
    """Where a value is read (its dotted key) and where warnings about it go."""

    key: str
    warnings: list[tuple[str, str]] = field(default_factory=list)  # (key, message)

    def child(self, name: str) -> ReadContext:
        return ReadContext(f"{self.key}.{name}" if self.key else name, self.warnings)

    def warn(self, message: str) -> None:
        self.warnings.append((self.key, f"{self.key}: {message}"))


class Rule(ABC, Generic[T_co]):
    """How a JSON value becomes the value of one setting."""

    expected: str = "a value"  # completes "expected ...": "a boolean", "an integer from 0 to 3"
    json_types: tuple[type, ...] = ()  # what ``pi config set`` accepts (empty: anything)
    choices: tuple[JsonScalar, ...] | None = None

    @abstractmethod
    def read(self, value: object, ctx: ReadContext) -> T_co:
        """The value to use; raises ``Rejected`` when the default must apply instead."""

    def part(self, key: str) -> Rule[object] | None:
        """The rule of a key inside this value (``thinkingBudgets.high``), if it has one."""
        del key
        return None

    @property
    def json_name(self) -> str:
        names = dict.fromkeys(_JSON_NAMES.get(t, t.__name__) for t in self.json_types)
        return " or ".join(names) or "value"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Flag(Rule[bool]):
    expected = "a boolean"
    json_types = (bool,)

    def read(self, value: object, ctx: ReadContext) -> bool:
        if not isinstance(value, bool):
            raise Rejected
        return value


class Count(Rule[int]):
    """A whole number at or above ``minimum``. ``pi config set`` takes any number here, as it
    always has; a fraction is then rejected when the file is read."""

    json_types = (int, float)

    def __init__(self, minimum: int = 0) -> None:
        self.minimum = minimum
        self.expected = "a non-negative integer" if minimum == 0 else f"an integer of at least {minimum}"

    def read(self, value: object, ctx: ReadContext) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or value < self.minimum:
            raise Rejected
        return value


class Clamped(Rule[int]):
    """A whole number limited to ``low..high``: outside it is clamped (with a warning)."""

    json_types = (int, float)

    def __init__(self, low: int, high: int) -> None:
        self.low, self.high = low, high
        self.expected = f"an integer from {low} to {high}"

    def read(self, value: object, ctx: ReadContext) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise Rejected
        used = max(self.low, min(self.high, value))
        if used != value:
            ctx.warn(f"expected {self.expected}, got {show(value)}; using {used}")
        return used


class Amount(Rule[float]):
    """A non-negative number, whole or not (a cost in USD)."""

    expected = "a non-negative number"
    json_types = (int, float)

    def read(self, value: object, ctx: ReadContext) -> float:
        if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
            raise Rejected
        return float(value)


class Text(Rule[str]):
    json_types = (str,)

    def __init__(self, *, non_empty: bool = False) -> None:
        self.non_empty = non_empty
        self.expected = "a non-empty string" if non_empty else "a string"

    def read(self, value: object, ctx: ReadContext) -> str:
        if not isinstance(value, str) or (self.non_empty and not value):
            raise Rejected
        return value


class Choice(Rule[C]):
    """One of fixed JSON values. Matching is by type as well, so ``true`` is not ``1``."""

    def __init__(self, choices: tuple[C, ...]) -> None:
        self.values = choices
        self.choices = choices
        self.json_types = tuple(dict.fromkeys(type(c) for c in choices))
        self.expected = show(choices[0]) if len(choices) == 1 else "one of " + ", ".join(show(c) for c in choices)

    def read(self, value: object, ctx: ReadContext) -> C:
        for candidate in self.values:
            if type(value) is type(candidate) and value == candidate:
                return candidate
        raise Rejected


class Either(Rule[T_co]):
    """The first of two rules that accepts the value (``"auto"`` or a number)."""

    def __init__(self, first: Rule[T_co], second: Rule[T_co]) -> None:
        self.rules = (first, second)
        self.expected = f"{first.expected} or {second.expected}"
        self.json_types = tuple(dict.fromkeys((*first.json_types, *second.json_types)))

    def read(self, value: object, ctx: ReadContext) -> T_co:
        try:
            return self.rules[0].read(value, ctx)
        except Rejected:
            return self.rules[1].read(value, ctx)


class TextList(Rule[tuple[str, ...]]):
    """A list of strings; entries that are not strings are dropped (with a warning)."""

    expected = "a list of strings"
    json_types = (list,)

    def read(self, value: object, ctx: ReadContext) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise Rejected
        return _strings(value, ctx)


def _strings(value: list[object], ctx: ReadContext) -> tuple[str, ...]:
    kept = tuple(v for v in value if isinstance(v, str))
    if len(kept) != len(value):
        dropped = [v for v in value if not isinstance(v, str)]
        ctx.warn(f"expected a list of strings, got {show(value)}; ignoring {show(dropped)}")
    return kept


class PathList(Rule[tuple[str, ...]]):
    """A resource path list: a list of strings, or an object keeping the list under ``paths``
    (the form that lets ``extensions`` also carry ``handlerTimeoutMs``)."""

    expected = "a list of paths"
    json_types = (list,)  # ``pi config set`` has never taken the object form for the whole key

    def read(self, value: object, ctx: ReadContext) -> tuple[str, ...]:
        if isinstance(value, Mapping):
            paths = value.get("paths")
            if paths is None:
                return ()
            value = paths
            ctx = ctx.child("paths")
        if not isinstance(value, list):
            raise Rejected
        return _strings(value, ctx)

    def part(self, key: str) -> Rule[object] | None:
        return TextList() if key == "paths" else None


class PackageList(Rule[tuple[str | JsonObject, ...]]):
    """``packages``: sources as strings or objects (``{"source": ..., ...}``)."""

    expected = "a list of package sources"
    json_types = (list,)

    def read(self, value: object, ctx: ReadContext) -> tuple[str | JsonObject, ...]:
        if not isinstance(value, list):
            raise Rejected
        kept: list[str | JsonObject] = []
        for entry in value:
            if isinstance(entry, str):
                kept.append(entry)
            elif isinstance(entry, Mapping):
                kept.append(MappingProxyType(dict(_object(entry))))
            else:
                ctx.warn(f"expected a package source (a string or an object), got {show(entry)}; ignoring it")
        return tuple(kept)


def _object(value: Mapping[object, object]) -> dict[str, JsonValue]:
    copied = copy_json(value)
    assert isinstance(copied, dict)
    return copied


class RawObject(Rule[JsonObject]):
    """Any JSON object, kept as it is: its reader checks the contents and reports on them."""

    expected = "an object"
    json_types = (dict,)

    def read(self, value: object, ctx: ReadContext) -> JsonObject:
        if not isinstance(value, Mapping):
            raise Rejected
        return MappingProxyType(_object(value))


class MapOf(Rule[Mapping[str, T]]):
    """An object whose entries all follow one rule; a bad entry falls back to the entry of the
    same name in ``defaults``, or is dropped when there is none (with a warning either way)."""

    json_types = (dict,)

    def __init__(self, entry: Rule[T], expected: str, defaults: Mapping[str, T] | None = None) -> None:
        self.entry = entry
        self.expected = expected
        self.defaults: Mapping[str, T] = defaults or {}

    def read(self, value: object, ctx: ReadContext) -> Mapping[str, T]:
        if not isinstance(value, Mapping):
            raise Rejected
        out: dict[str, T] = {}
        for name, raw in value.items():
            entry_ctx = ctx.child(str(name))
            try:
                out[str(name)] = self.entry.read(raw, entry_ctx)
            except Rejected:
                fallback = self.defaults.get(str(name))
                then = "ignoring it" if fallback is None else f"using the default {show(to_json(fallback))}"
                entry_ctx.warn(f"expected {self.entry.expected}, got {show(raw)}; {then}")
                if fallback is not None:
                    out[str(name)] = fallback
        return MappingProxyType(out)

    def part(self, key: str) -> Rule[object] | None:
        _name, _, rest = key.partition(".")  # the first part is the entry's name
        return self.entry.part(rest) if rest else self.entry


FLAG = Flag()
COUNT = Count()
POSITIVE = Count(1)
AMOUNT = Amount()
TEXT = Text()
NAME = Text(non_empty=True)
TEXT_LIST = TextList()
PATH_LIST = PathList()
RAW_OBJECT = RawObject()
