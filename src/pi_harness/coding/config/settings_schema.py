"""Declaring settings as dataclass fields, and reading a JSON object into them.

Each section of ``settings.json`` is a frozen ``Section`` dataclass whose fields are declared with
``setting`` (a value with a default), ``optional`` (no default: ``None`` when unset) or
``section`` (a nested object). The declaration carries the JSON key, the ``Rule`` that checks the
value and what the documentation says about the key, so that one declaration gives the default,
the validation, the ``pi config`` type check and the ``DEFAULTS`` entry.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import Field, dataclass, field, fields, replace
from typing import Literal, Self, TypeVar

from pi_harness.coding.config.settings_rules import JsonValue, ReadContext, Rejected, Rule, show, to_json

T = TypeVar("T")
S = TypeVar("S", bound="Section")

# "read": pi-harness acts on the key. "not-implemented": the key is accepted with its type and
# default, but the feature it configures is not built yet (``note`` says which). "beyond-pi":
# a pi-harness key that Pi does not have.
Status = Literal["read", "not-implemented", "beyond-pi"]

_INFO = "pi_harness.setting"


@dataclass(frozen=True)
class SettingInfo:
    key: str  # the JSON key inside its section (camelCase, as Pi writes it)
    rule: Rule[object]
    # Whether the default is written into ``DEFAULTS``: the defaults merged under the files and
    # listed by ``pi config``. Keys added later stay out so that listing does not change.
    listed: bool = False
    aliases: tuple[str, ...] = ()  # further keys read, in order, when ``key`` is unset or unusable
    global_only: bool = False  # ignored in project files
    status: Status = "read"
    note: str = ""  # what is missing (for "not-implemented") or how pi-harness differs
    pi_default: str | None = None  # Pi 1.4.0's default, where ours differs


def setting(
    default: T,
    rule: Rule[T],
    key: str,
    *,
    listed: bool = False,
    aliases: tuple[str, ...] = (),
    global_only: bool = False,
    status: Status = "read",
    note: str = "",
    pi_default: str | None = None,
) -> T:
    """A setting with a default. Non-scalar defaults must be immutable (tuples, mapping proxies)."""
    info = SettingInfo(key, rule, listed, aliases, global_only, status, note, pi_default)
    if isinstance(default, str | int | float | bool):
        return field(default=default, metadata={_INFO: info})
    return field(default_factory=lambda: default, metadata={_INFO: info})


def optional(
    rule: Rule[T],
    key: str,
    *,
    aliases: tuple[str, ...] = (),
    global_only: bool = False,
    status: Status = "read",
    note: str = "",
) -> T | None:
    """A setting without a default value: ``None`` until a file sets it."""
    info = SettingInfo(key, rule, False, aliases, global_only, status, note)
    return field(default=None, metadata={_INFO: info})


def section(cls: type[S], key: str, *, status: Status = "read", note: str = "") -> S:
    """A nested object of settings; its fields say which of them are listed."""
    info = SettingInfo(key, SectionRule(cls), status=status, note=note)
    return field(default_factory=cls, metadata={_INFO: info})


@dataclass(frozen=True)
class Section:
    """Settings stored together as one JSON object."""

    @classmethod
    def from_dict(cls, data: Mapping[str, object] | None) -> Self:
        """From a JSON object (camelCase keys); missing or unusable values keep their defaults."""
        return read_section(cls, data or {}, ReadContext(""))


class SectionRule(Rule[S]):
    expected = "an object"
    json_types = (dict,)

    def __init__(self, cls: type[S]) -> None:
        self.cls = cls

    def read(self, value: object, ctx: ReadContext) -> S:
        if not isinstance(value, Mapping):
            raise Rejected
        return read_section(self.cls, value, ctx)

    def part(self, key: str) -> Rule[object] | None:
        return rule_for_key(self.cls, key)


def info_of(f: Field[object]) -> SettingInfo:
    info = f.metadata.get(_INFO)
    if not isinstance(info, SettingInfo):
        raise TypeError(f"{f.name} is not declared with setting(), optional() or section()")
    return info


def _lookup(data: Mapping[str, object], dotted: str) -> object:
    node: object = data
    for part in dotted.split("."):
        if not isinstance(node, Mapping):
            return None
        node = node.get(part)
    return node


def _fallback(value: object) -> str:
    if value is None:
        return "ignoring it"
    if isinstance(value, Section):
        return "using the defaults"
    return f"using the default {show(to_json(value))}"


def read_section(cls: type[S], data: Mapping[str, object], ctx: ReadContext) -> S:
    """``data`` as a ``cls``: each field from its key (or an alias), checked by its rule.

    A JSON ``null`` counts as unset, as ``pi config set <key> null`` removes a key. Keys the
    section does not declare are left alone: a newer Pi may have written them.
    """
    default = cls()
    changes: dict[str, object] = {}
    for f in fields(cls):
        info = info_of(f)
        for key in (info.key, *info.aliases):
            raw = _lookup(data, key)
            if raw is None:
                continue
            key_ctx = ctx.child(key)
            try:
                changes[f.name] = info.rule.read(raw, key_ctx)
                break
            except Rejected:
                fallback = _fallback(getattr(default, f.name))
                key_ctx.warn(f"expected {info.rule.expected}, got {show(raw)}; {fallback}")
    return replace(default, **changes)


def rule_for_key(cls: type[Section], dotted: str) -> Rule[object] | None:
    """The rule that checks ``dotted`` (``retry.provider.maxRetries``) in a ``cls`` object."""
    for f in fields(cls):
        info = info_of(f)
        for key in (info.key, *info.aliases):
            if dotted == key:
                return info.rule
            if dotted.startswith(key + "."):
                found = info.rule.part(dotted[len(key) + 1 :])
                if found is not None:
                    return found
    return None


@dataclass(frozen=True)
class DeclaredSetting:
    """One leaf setting of the model, for documentation and tests."""

    key: str  # dotted, from the top (``retry.provider.maxRetries``)
    attribute: str  # dotted attribute path (``retry.provider.max_retries``)
    info: SettingInfo
    default: object


def declared_settings(cls: type[Section], prefix: str = "", attr_prefix: str = "") -> Iterator[DeclaredSetting]:
    """Every leaf setting of ``cls``, nested sections expanded, in declaration order."""
    default = cls()
    for f in fields(cls):
        info = info_of(f)
        if isinstance(info.rule, SectionRule):
            yield from declared_settings(info.rule.cls, f"{prefix}{info.key}.", f"{attr_prefix}{f.name}.")
        else:
            yield DeclaredSetting(prefix + info.key, attr_prefix + f.name, info, getattr(default, f.name))


def listed_defaults(cls: type[Section]) -> dict[str, JsonValue]:
    """The defaults of the listed settings of ``cls`` as a JSON object, in declaration order."""
    default = cls()
    out: dict[str, JsonValue] = {}
    for f in fields(cls):
        info = info_of(f)
        if isinstance(info.rule, SectionRule):
            nested = listed_defaults(info.rule.cls)
            if nested:
                out[info.key] = nested
        elif info.listed:
            out[info.key] = to_json(getattr(default, f.name))
    return out
