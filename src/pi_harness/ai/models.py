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


@cache
def _catalog() -> dict[str, list[Model]]:
    raw = read_package_data("catalog.json")
    data: dict[str, list[Model]] = orjson.loads(raw)
    return data


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
