"""Image and classifier models of the built-in catalogue (``media_catalog.json``).

They are kept apart from the chat catalogue (``models``): they do not chat, so ``--list-models``
and ``/model`` never show them. Callers look them up by type, as Pi's ``getModelsOfType`` does:
image models generate pictures (``images.generate_images``); classifier models answer typed
questions over JSON state through protocols pi-harness does not speak yet.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Literal, NotRequired, TypeAlias, TypedDict

import orjson

from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.package_data import read_package_data
from pi_harness.ai.types import ModelCost

ModelType: TypeAlias = Literal["chat", "image", "classifier"]
MEDIA_TYPES: tuple[ModelType, ...] = ("image", "classifier")


class MediaModel(TypedDict):
    """An image or classifier model descriptor, with Pi's field names."""

    type: Literal["image", "classifier"]
    id: str
    name: str
    api: str
    provider: str
    baseUrl: str
    input: list[str]
    cost: ModelCost
    # image models: what they return (``["image"]`` or ``["image", "text"]``)
    output: NotRequired[list[str]]
    inputLimits: NotRequired[JsonObject]
    headers: NotRequired[dict[str, str]]
    # classifier models
    contextWindow: NotRequired[int]
    compat: NotRequired[JsonObject]


@cache
def _media() -> dict[str, dict[str, list[MediaModel]]]:
    raw = read_package_data("media_catalog.json")
    data: dict[str, dict[str, list[MediaModel]]] = orjson.loads(raw)
    return data


def get_providers_of_type(kind: Literal["image", "classifier"]) -> list[str]:
    return list(_media().get(kind, {}))


def get_models_of_type(kind: Literal["image", "classifier"], provider: str | None = None) -> list[MediaModel]:
    """Copies of the built-in models of ``kind``, of one provider or of all."""
    groups = _media().get(kind, {})
    chosen = [groups.get(provider, [])] if provider is not None else list(groups.values())
    return [copy.deepcopy(model) for models in chosen for model in models]


def get_model_of_type(kind: Literal["image", "classifier"], provider: str, model_id: str) -> MediaModel | None:
    for model in _media().get(kind, {}).get(provider, []):
        if model["id"] == model_id:
            return copy.deepcopy(model)
    return None


def get_image_models(provider: str) -> list[MediaModel]:
    return get_models_of_type("image", provider)


def get_image_model(provider: str, model_id: str) -> MediaModel | None:
    return get_model_of_type("image", provider, model_id)
