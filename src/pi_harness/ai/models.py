"""The built-in model catalogue (a data file) and lookups over it (docs: models.md).

The catalogue is loaded on first use, not at import, so ``import pi_harness.ai`` stays cheap.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import cache

import orjson

from pi_harness.ai.package_data import read_package_data
from pi_harness.ai.types import Model

_XHIGH_MARKERS = ("gpt-5.2", "gpt-5.3", "gpt-5.4", "opus-4-6", "opus-4.6")


_ENTRY_MARKER = b':[{"id":'


@cache
def _raw() -> bytes:
    return read_package_data("catalog.json")


@cache
def _index() -> dict[str, tuple[int, int]] | None:
    """Where each provider's array is in the catalogue file, found without parsing the file.

    ``scripts/build_catalog.py`` writes compact JSON, ``{"<provider>":[{"id":...},...],...}``, so
    each provider's array starts right after ``"<provider>":`` and the first model's ``"id"``.
    Parsing one provider instead of all keeps a session that uses one provider from loading the
    whole catalogue (about 7 MiB once parsed). ``None`` when the text has another shape: then
    the whole file is parsed, as before.
    """
    raw = _raw()
    starts: list[int] = []
    found = raw.find(_ENTRY_MARKER)
    while found >= 0:
        starts.append(found)
        found = raw.find(_ENTRY_MARKER, found + 1)
    keys: list[tuple[str, int]] = []  # (provider, offset of its opening quote)
    for colon in starts:
        opening = raw.rfind(b'"', 0, colon - 1)
        if opening <= 0 or raw[colon - 1 : colon] != b'"' or raw[opening - 1 : opening] not in (b"{", b","):
            return None
        keys.append((raw[opening + 1 : colon - 1].decode("utf-8"), opening))
    end = raw.rstrip().rfind(b"}")
    if not keys or keys[0][1] != 1 or end < 0:
        return None
    index: dict[str, tuple[int, int]] = {}
    for number, (provider, opening) in enumerate(keys):
        array_end = keys[number + 1][1] - 1 if number + 1 < len(keys) else end  # the "," or the final "}"
        index[provider] = (opening + len(provider) + 3, array_end)  # after '"<provider>":'
    return index


_parsed: dict[str, list[Model]] = {}


def _provider_models(provider: str) -> list[Model] | None:
    """The catalogue's (shared, uncopied) models of ``provider``; ``None`` for an unknown one."""
    cached = _parsed.get(provider)
    if cached is not None:
        return cached
    index = _index()
    if index is None:
        return _whole_file().get(provider)
    span = index.get(provider)
    if span is None:
        return None
    try:
        parsed = orjson.loads(_raw()[span[0] : span[1]])
    except orjson.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, list):
        return _whole_file().get(provider)  # not the shape _index() expects after all
    models: list[Model] = _parsed.setdefault(provider, parsed)
    return models


@cache
def _whole_file() -> dict[str, list[Model]]:
    data: dict[str, list[Model]] = orjson.loads(_raw())
    return data


@cache
def _catalog() -> dict[str, list[Model]]:
    """The whole catalogue, provider by provider in the file's order."""
    index = _index()
    if index is None:
        return _whole_file()
    whole: dict[str, list[Model]] = {}
    for provider in index:
        models = _provider_models(provider)
        if models is None:
            return _whole_file()
        whole[provider] = models
    return whole


def catalog_provider_models(provider: str) -> list[Model] | None:
    """The built-in models of one provider, parsing only that provider (shared objects: copy
    before changing them); ``None`` when the catalogue has no such provider."""
    return _provider_models(provider)


def get_providers() -> list[str]:
    """Provider ids of the built-in catalogue."""
    return list(_catalog())


def get_models(provider: str) -> list[Model]:
    """Copies of the catalogue's models of ``provider`` (empty for an unknown provider)."""
    return copy.deepcopy(_catalog().get(provider, []))


def get_model(provider: str, model_id: str) -> Model | None:
    for model in _catalog().get(provider, []):
        if model["id"] == model_id:
            return copy.deepcopy(model)
    return None


def all_models() -> list[Model]:
    return [copy.deepcopy(m) for models in _catalog().values() for m in models]


def models_are_equal(a: Model | None, b: Model | None) -> bool:
    """Same ``id`` and ``provider``; false when either is missing."""
    if not a or not b:
        return False
    return a.get("id") == b.get("id") and a.get("provider") == b.get("provider")


@dataclass(frozen=True)
class ImageResize:
    """The model's ``inputLimits.images.resize`` profile; ``None`` fields keep the defaults of
    whoever fits the image (2000x2000 pixels, 4.5 MiB, JPEG quality 80)."""

    max_width: int | None = None
    max_height: int | None = None
    max_bytes: int | None = None  # of the base64-encoded payload
    jpeg_quality: int | None = None


def image_resize(model: Model | None) -> ImageResize:
    limits = model.get("inputLimits") if model is not None else None
    images = limits.get("images") if isinstance(limits, dict) else None
    resize = images.get("resize") if isinstance(images, dict) else None
    if not isinstance(resize, dict):
        return ImageResize()

    def number(name: str) -> int | None:
        value = resize.get(name)
        return int(value) if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 else None

    return ImageResize(number("maxWidth"), number("maxHeight"), number("maxBytes"), number("jpegQuality"))


def supports_xhigh(model: Model) -> bool:
    level_map = model.get("thinkingLevelMap")
    if level_map is not None and "xhigh" in level_map:
        return level_map["xhigh"] is not None
    return any(marker in model["id"] for marker in _XHIGH_MARKERS)
