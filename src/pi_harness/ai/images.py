"""Image generation: ``generate_images(model, context, options)``, dispatched on the model's
``api`` through its own registry (image APIs are not chat APIs, so they are not ``ApiProvider``s).

The result is a value, never an exception: a failed request has ``stopReason: "error"`` (or
``"aborted"``) and an ``errorMessage``. The key must be given in the options; the caller
resolves credentials, as it does for chat requests. Nothing is saved to disk.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, NotRequired, TypeAlias, TypedDict

from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.model_types import MediaModel
from pi_harness.ai.options import PayloadHook, ResponseHook
from pi_harness.ai.types import ImageContent, TextContent, Usage

ImageInput: TypeAlias = TextContent | ImageContent


class ImageGenerationContext(TypedDict):
    """The prompt: text blocks, and image blocks to edit or to use as references."""

    input: list[ImageInput]


class ImageGenerationResult(TypedDict):
    api: str
    provider: str
    model: str
    # generated images (base64) and any text the model wrote beside them, in order
    output: list[ImageInput]
    stopReason: Literal["stop", "error", "aborted"]
    timestamp: int
    responseId: NotRequired[str]
    usage: NotRequired[Usage]
    errorMessage: NotRequired[str]


@dataclass
class ImageGenerationOptions:
    api_key: str | None = None
    headers: dict[str, str] | None = None
    signal: AbortSignal | None = None
    timeout_ms: int | None = None
    on_payload: PayloadHook | None = None
    on_response: ResponseHook | None = None


GenerateImages: TypeAlias = Callable[
    [MediaModel, ImageGenerationContext, ImageGenerationOptions | None], Awaitable[ImageGenerationResult]
]

# api id -> module exposing ``GENERATE_IMAGES``; imported on first use
BUILTIN_IMAGE_APIS: dict[str, str] = {"openrouter-images": "pi_harness.ai.providers.openrouter_images"}
_registered: dict[str, tuple[GenerateImages, str | None]] = {}


def register_images_api_provider(api: str, generate: GenerateImages, source_id: str | None = None) -> None:
    """Register (or replace) the image generator of ``api``; ``source_id`` groups removals."""
    _registered[api] = (generate, source_id)


def unregister_images_api_providers(source_id: str) -> None:
    for api in [a for a, (_, source) in _registered.items() if source == source_id]:
        del _registered[api]


def get_images_api_provider(api: str) -> GenerateImages | None:
    entry = _registered.get(api)
    if entry is not None:
        return entry[0]
    module = BUILTIN_IMAGE_APIS.get(api)
    if module is None:
        return None
    generate: GenerateImages = importlib.import_module(module).GENERATE_IMAGES
    return generate


async def generate_images(
    model: MediaModel, context: ImageGenerationContext, options: ImageGenerationOptions | None = None
) -> ImageGenerationResult:
    """Generate images with ``model``. Raises ``ValueError`` only for an API nobody registered."""
    generate = get_images_api_provider(model["api"])
    if generate is None:
        raise ValueError(f"No API provider registered for api: {model['api']}")
    return await generate(model, context, options)
