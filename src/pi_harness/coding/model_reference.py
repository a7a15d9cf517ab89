"""Which catalog model a typed reference means: ``provider/id``, an id, or a fragment of an id or
name, each with an optional ``:<thinking level>``. The rules are Pi 1.4.0's, so that the same
``--model`` picks the same model in both programs:

* an exact id (any case) wins; ``provider/rest`` names a provider, but the whole text may also be
  an id elsewhere (gateway ids such as ``zai/glm-5``): several providers with the match are told
  apart by which ones have credentials (``usable``), else the reference is ambiguous;
* then fragments of id or name, preferring aliases (no ``-YYYYMMDD`` date) and, among those, the
  id that sorts last (``claude-sonnet-5-5`` over ``claude-sonnet-5``), sorted as Node's
  ``localeCompare`` sorts (``collation_key``);
* a reference that matches nothing but names a known provider gives a *target*: the caller may
  use the text as a model id the catalog does not list yet.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pi_harness.ai.types import THINKING_LEVELS, Model, ThinkingLevel

SuffixRule = Literal["strict", "lenient", "none"]
"""``strict``: a ``:<word>`` that is no thinking level stays part of the id; ``lenient``: it is
dropped with a warning; ``none``: no suffix is looked for."""

# Node's default collation (ICU root, as ``"a".localeCompare("b")`` uses) orders printable ASCII
# like this: punctuation, then symbols, then digits, then letters with case as a later tie-break.
_ICU_ASCII_ORDER = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"
_PRIMARY = {char: rank for rank, char in enumerate(_ICU_ASCII_ORDER)}


def collation_key(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Sort key that orders ASCII ids as Node's ``localeCompare`` does (case decides only between
    texts otherwise equal, lower case first); other characters sort after ASCII by code point."""
    primary = tuple(_PRIMARY.get(char, 1000 + ord(char)) for char in text.lower())
    tertiary = tuple(1 if char.isupper() else 0 for char in text)
    return primary, tertiary


def split_thinking_suffix(text: str) -> tuple[str, ThinkingLevel] | None:
    """``"sonnet:high"`` → ``("sonnet", "high")``; None unless the part after the last ``:`` is a
    thinking level."""
    head, colon, tail = text.rpartition(":")
    if not colon:
        return None
    level = next((known for known in THINKING_LEVELS if known == tail), None)
    return (head, level) if level is not None else None


def _split_provider_prefix(text: str, models: Sequence[Model]) -> tuple[str, str] | None:
    """``"Anthropic/opus"`` → ``("anthropic", "opus")`` when the prefix is a provider of ``models``."""
    prefix, slash, rest = text.partition("/")
    prefix, rest = prefix.strip().lower(), rest.strip()
    if not slash or not prefix or not rest:
        return None
    provider = next((m["provider"] for m in models if m["provider"].lower() == prefix), None)
    return (provider, rest) if provider is not None else None


@dataclass(frozen=True)
class Target:
    """A reference that matched no model but names a provider: the text as that provider's id."""

    provider: str
    provider_models: list[Model]  # the provider's models, the one to copy settings from first
    model_text: str  # the text after the provider (with any suffix)
    model_id: str  # without a thinking suffix
    thinking_level: ThinkingLevel | None


@dataclass(frozen=True)
class Resolution:
    status: Literal["resolved", "ambiguous", "not-found"]
    model: Model | None = None
    thinking_level: ThinkingLevel | None = None
    warning: str | None = None
    candidates: list[Model] = field(default_factory=list)  # ambiguous: the models it could mean
    usable_count: int = 0  # ambiguous: how many of them have credentials
    target: Target | None = None  # not-found: the provider the text names, if any


_NOT_FOUND = Resolution("not-found")


def _always(_provider: str) -> bool:
    return True


def resolve_model_reference(
    text: str,
    models: Sequence[Model],
    *,
    provider: str | None = None,
    suffix: SuffixRule = "strict",
    fuzzy: bool = True,
    usable: Callable[[str], bool] = _always,
) -> Resolution:
    """What ``text`` means among ``models`` (only ``provider``'s when given). ``usable`` breaks
    ties between providers only, so a unique match resolves without credentials (``--api-key``)."""
    text = text.strip()
    if not text:
        return _NOT_FOUND
    constraint = provider.lower() if provider else None
    pool = [m for m in models if m["provider"].lower() == constraint] if constraint else list(models)
    result = _resolve_text(text, pool, suffix, fuzzy, usable)
    if result.status != "not-found":
        return result
    split = _split_provider_prefix(text, pool)
    if constraint:
        anchor = pool[0] if pool else None
    else:
        anchor = next((m for m in pool if split is not None and m["provider"] == split[0]), None)
    if anchor is None:
        return result
    model_text = split[1] if split is not None else text
    thinking = None if suffix == "none" else split_thinking_suffix(model_text)
    siblings = [m for m in pool if m["provider"] == anchor["provider"] and m is not anchor]
    target = Target(
        provider=anchor["provider"],
        provider_models=[anchor, *siblings],
        model_text=model_text,
        model_id=thinking[0] if thinking else model_text,
        thinking_level=thinking[1] if thinking else None,
    )
    return Resolution("not-found", target=target)


def _resolve_text(
    text: str, pool: list[Model], suffix: SuffixRule, fuzzy: bool, usable: Callable[[str], bool]
) -> Resolution:
    reference = _select_reference(text, pool, fuzzy, usable)
    if reference is not None:
        return reference
    if fuzzy:
        found = _select_fuzzy(_fuzzy_matches(text, pool), usable)
        if found is not None:
            return found
    if suffix == "none":
        return _NOT_FOUND
    thinking = split_thinking_suffix(text)
    if thinking is not None:
        inner = _resolve_text(thinking[0], pool, suffix, fuzzy, usable)
        if inner.status == "not-found":
            return inner
        # A warning from further in (an invalid inner suffix) means the level is not trusted.
        level = None if inner.warning else thinking[1]
        return Resolution(inner.status, inner.model, level, inner.warning, inner.candidates, inner.usable_count)
    if suffix == "strict":
        return _NOT_FOUND  # "sonnet:bogus" stays an id, rather than resolving a different model
    head, colon, tail = text.rpartition(":")
    if not colon:
        return _NOT_FOUND
    inner = _resolve_text(head, pool, suffix, fuzzy, usable)
    if inner.status == "not-found":
        return inner
    warning = f'Invalid thinking level "{tail}" in pattern "{text}". Using default instead.'
    return Resolution(inner.status, inner.model, None, warning, inner.candidates, inner.usable_count)


def _select_reference(text: str, pool: list[Model], fuzzy: bool, usable: Callable[[str], bool]) -> Resolution | None:
    """An exact id, or a ``provider/rest`` whose provider has ``rest`` (exactly, else fuzzily)."""
    lowered = text.lower()
    raw = [m for m in pool if m["id"].lower() == lowered]
    split = _split_provider_prefix(text, pool)
    named: Model | None = None
    if split is not None:
        own = [m for m in pool if m["provider"] == split[0]]
        rest = split[1].lower()
        named = next((m for m in own if m["id"].lower() == rest), None)
        if named is None:
            named = next((m for m in raw if m["provider"] == split[0]), None)
        if named is None and fuzzy:
            named = _best_fuzzy(_fuzzy_matches(split[1], own))
    others = [m for m in raw if m is not named]
    candidates = [named, *others] if named is not None else others
    if not candidates:
        return None
    if len({m["provider"] for m in candidates}) == 1:
        return Resolution("resolved", candidates[0])
    if named is not None and usable(named["provider"]):
        return Resolution("resolved", named)
    usable_others = [m for m in others if usable(m["provider"])]
    if len(usable_others) == 1:
        return Resolution("resolved", usable_others[0])
    if not usable_others and named is not None:
        return Resolution("resolved", named)
    return Resolution("ambiguous", candidates=candidates, usable_count=len(usable_others))


def _fuzzy_matches(text: str, models: list[Model]) -> list[Model]:
    lowered = text.lower()
    return [m for m in models if lowered in m["id"].lower() or lowered in (m.get("name") or "").lower()]


def _select_fuzzy(matches: list[Model], usable: Callable[[str], bool]) -> Resolution | None:
    if not matches:
        return None
    several = len({m["provider"] for m in matches}) > 1
    usable_matches = [m for m in matches if usable(m["provider"])] if several else []
    pool = usable_matches or matches
    best = _best_fuzzy(pool)
    if best is None:
        return None
    # The same id on several providers would otherwise be decided by catalog order.
    tied = [m for m in pool if m["id"] == best["id"]]
    if len({m["provider"] for m in tied}) == 1:
        return Resolution("resolved", best)
    return Resolution("ambiguous", candidates=tied, usable_count=len(tied) if usable_matches else 0)


def is_alias(model_id: str) -> bool:
    """``claude-sonnet-4-5`` and ``…-latest`` are aliases; ``claude-sonnet-4-5-20250929`` is not."""
    return model_id.endswith("-latest") or not (
        len(model_id) >= 9 and model_id[-9] == "-" and model_id[-8:].isdigit() and model_id[-8:].isascii()
    )


def _best_fuzzy(matches: list[Model]) -> Model | None:
    aliases = [m for m in matches if is_alias(m["id"])]
    pool = aliases or matches
    if not pool:
        return None
    # The id that sorts last; the first such model in catalog order when several share it.
    best = pool[0]
    for model in pool[1:]:
        if collation_key(model["id"]) > collation_key(best["id"]):
            best = model
    return best
