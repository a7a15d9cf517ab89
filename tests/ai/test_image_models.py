"""Image and classifier models: kept in their own catalogue, out of the chat lists, and image
generation over OpenRouter's chat completions endpoint against the fake server on loopback."""

from __future__ import annotations

import base64
from typing import Any

from pi_harness.ai import (
    ImageGenerationOptions,
    generate_images,
    get_image_model,
    get_model_of_type,
    get_models,
    get_models_of_type,
    get_providers_of_type,
)
from pi_harness.ai.abort import AbortController
from pi_harness.ai.model_types import MediaModel
from pi_harness.ai.providers.openrouter_images import read_output
from pi_harness.testing.fake_llm import FakeLLMServer, HTTPErrorSpec, ScriptedResponse, TextStep

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()
PROMPT: Any = {"input": [{"type": "text", "text": "A red fox in the snow"}]}


def painter(server: FakeLLMServer, model_id: str = "google/gemini-2.5-flash-image") -> MediaModel:
    model = get_image_model("openrouter", model_id)
    assert model is not None
    return {**model, "baseUrl": f"{server.url}/v1"}


# --- the catalogue ---------------------------------------------------------------------------


def test_image_and_classifier_models_come_from_their_own_catalogue() -> None:
    images = get_models_of_type("image", "openrouter")
    ids = {m["id"] for m in images}
    assert {"google/gemini-2.5-flash-image", "black-forest-labs/flux.2-pro"} <= ids
    assert all(m["type"] == "image" and m["api"] == "openrouter-images" for m in images)
    assert get_providers_of_type("image") == ["openrouter"]
    flux = get_image_model("openrouter", "black-forest-labs/flux.2-pro")
    assert flux is not None and flux["output"] == ["image"]

    jev = get_model_of_type("classifier", "typesafe", "jev-latest")
    assert jev is not None and jev["api"] == "typesafe-system-one"
    luna = get_model_of_type("classifier", "openai", "gpt-6-luna")
    assert luna is not None and luna["api"] == "openai-decisions" and "image" in luna["input"]
    assert set(get_providers_of_type("classifier")) == {
        "cloudflare-workers-ai",
        "openai",
        "opencode",
        "openrouter",
        "typesafe",
        "vercel-ai-gateway",
    }


def test_the_chat_catalogue_does_not_list_them() -> None:
    chat_ids = {m["id"] for m in get_models("openrouter")}
    assert "google/gemini-2.5-flash-image" not in chat_ids
    assert "cloudflare/clef" not in chat_ids
    assert get_models("typesafe") == []  # a provider with classifiers only has no chat models


def test_lookups_return_copies() -> None:
    first = get_models_of_type("image", "openrouter")[0]
    first["name"] = "changed"
    assert get_models_of_type("image", "openrouter")[0]["name"] != "changed"


# --- image generation on the wire ------------------------------------------------------------


async def test_a_prompt_becomes_one_user_message_and_the_images_come_back() -> None:
    script = ScriptedResponse(
        steps=[TextStep("Here is your fox.")],
        images=[("image/png", PNG)],
        usage={"input": 12, "output": 1290, "cacheRead": 4},
        response_id="gen-123",
    )
    with FakeLLMServer([script]) as server:
        model = painter(server)
        context: Any = {
            "input": [
                {"type": "text", "text": "Make it watercolor"},
                {"type": "image", "data": PNG, "mimeType": "image/png"},
            ]
        }
        result = await generate_images(model, context, ImageGenerationOptions(api_key="or-key"))
        request = server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer or-key"
    assert request.json == {
        "model": "google/gemini-2.5-flash-image",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Make it watercolor"},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
                ],
            }
        ],
        "stream": False,
        "modalities": ["image", "text"],  # the model also writes text
    }
    assert result["stopReason"] == "stop", result.get("errorMessage")
    assert result["output"] == [
        {"type": "text", "text": "Here is your fox."},
        {"type": "image", "mimeType": "image/png", "data": PNG},
    ]
    assert result["responseId"] == "gen-123"
    usage = result["usage"]
    assert (usage["input"], usage["output"], usage["cacheRead"], usage["totalTokens"]) == (12, 1290, 4, 1306)
    assert usage["cost"]["output"] == 2.5 * 1290 / 1_000_000  # the catalogue's price
    assert (result["api"], result["provider"], result["model"]) == (
        "openrouter-images",
        "openrouter",
        "google/gemini-2.5-flash-image",
    )


async def test_an_image_only_model_asks_for_images_only() -> None:
    with FakeLLMServer([ScriptedResponse(images=[("image/webp", PNG)])]) as server:
        result = await generate_images(
            painter(server, "black-forest-labs/flux.2-pro"), PROMPT, ImageGenerationOptions(api_key="k")
        )
        body = server.requests[0].json
    assert body["modalities"] == ["image"]
    assert result["output"] == [{"type": "image", "mimeType": "image/webp", "data": PNG}]


async def test_an_http_error_is_a_result_with_the_services_message() -> None:
    script = ScriptedResponse(http_error=HTTPErrorSpec(402, "Insufficient credits"))
    with FakeLLMServer([script]) as server:
        result = await generate_images(painter(server), PROMPT, ImageGenerationOptions(api_key="k"))
    assert result["stopReason"] == "error"
    assert result["errorMessage"] == "402 Insufficient credits"
    assert result["output"] == []


async def test_no_key_and_an_aborted_signal_send_nothing() -> None:
    controller = AbortController()
    controller.abort()
    with FakeLLMServer([ScriptedResponse(images=[("image/png", PNG)])]) as server:
        missing = await generate_images(painter(server), PROMPT)
        aborted = await generate_images(
            painter(server), PROMPT, ImageGenerationOptions(api_key="k", signal=controller.signal)
        )
        assert server.requests == []
    assert missing["stopReason"] == "error"
    assert missing["errorMessage"] == "No API key for provider: openrouter"
    assert aborted["stopReason"] == "aborted"


async def test_hooks_see_the_payload_and_the_response() -> None:
    statuses: list[int] = []

    def replace(payload: dict[str, object], _model: Any) -> dict[str, object]:
        return {**payload, "provider": {"order": ["google"]}}

    options = ImageGenerationOptions(
        api_key="k", headers={"X-Extra": "1"}, on_payload=replace, on_response=lambda s, _h: statuses.append(s)
    )
    with FakeLLMServer([ScriptedResponse(images=[("image/png", PNG)])]) as server:
        result = await generate_images(painter(server), PROMPT, options)
        request = server.requests[0]
    assert result["stopReason"] == "stop"
    assert request.json["provider"] == {"order": ["google"]}
    assert request.headers["x-extra"] == "1"
    assert statuses == [200]


def test_only_base64_data_urls_become_images() -> None:
    body: Any = {
        "choices": [
            {
                "message": {
                    "content": "",
                    "images": [
                        {"image_url": {"url": "https://cdn.example/fox.png"}},
                        {"image_url": f"data:image/jpeg;base64,{PNG}"},  # a bare string is accepted too
                        {"image_url": {"url": "data:image/png,notbase64"}},
                    ],
                }
            }
        ]
    }
    assert read_output(body) == [{"type": "image", "mimeType": "image/jpeg", "data": PNG}]
    assert read_output({"choices": []}) == []


async def test_an_api_nobody_registered_is_refused() -> None:
    jev = get_model_of_type("classifier", "typesafe", "jev-latest")
    assert jev is not None
    try:
        await generate_images(jev, PROMPT)
    except ValueError as exc:
        assert str(exc) == "No API provider registered for api: typesafe-system-one"
    else:
        raise AssertionError("expected a ValueError")


async def test_a_script_file_can_carry_generated_images() -> None:
    from pi_harness.testing.fake_llm.script_file import load_script

    responses = load_script([{"text": "one fox", "images": [{"mimeType": "image/png", "data": PNG}]}])
    with FakeLLMServer(responses) as server:
        result = await generate_images(painter(server), PROMPT, ImageGenerationOptions(api_key="k"))
    assert result["output"] == [
        {"type": "text", "text": "one fox"},
        {"type": "image", "mimeType": "image/png", "data": PNG},
    ]
