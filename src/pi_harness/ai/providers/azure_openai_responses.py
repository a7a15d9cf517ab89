"""``azure-openai-responses``: the OpenAI Responses API served by Azure OpenAI / Microsoft Foundry.

``POST {baseUrl}/responses?api-version=<v>`` with the key in an ``api-key`` header (not
``Authorization``). The body is the Responses body with the deployment name as ``model``
(see ``azure_openai_config`` for how deployment, base URL and version are found). Conversion and
stream reading are the ``openai-responses`` ones; only these rules differ from that API:

* ``prompt_cache_key`` is the session id cut to 64 characters, whatever the cache retention;
* ``max_output_tokens`` is at least 16 (smaller values are rejected by the service);
* a reasoning model with reasoning off is sent ``reasoning: {effort: "none"}`` (or the model's
  ``thinkingLevelMap.off``; a ``null`` there sends nothing);
* errors read ``Azure OpenAI API error (<status>): <the error object as JSON>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote

from pi_harness.ai.env_keys import AUTHENTICATED
from pi_harness.ai.http import join_url, merge_headers
from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.jsonutil import dumps_str, loads
from pi_harness.ai.options import SimpleStreamOptions, StreamOptions, shared_options
from pi_harness.ai.output_cap import simple_max_tokens
from pi_harness.ai.providers.azure_openai_config import (
    resolve_api_version,
    resolve_base_url,
    resolve_deployment_name,
)
from pi_harness.ai.providers.openai_responses import OpenAIResponsesOptions
from pi_harness.ai.providers.openai_responses_convert import build_input, convert_tools
from pi_harness.ai.providers.openai_responses_read import read_responses_events
from pi_harness.ai.providers.option_fields import options_as
from pi_harness.ai.registry import ApiProvider
from pi_harness.ai.sse_provider import SSERequest, stream_sse_request
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.thinking import requested_level
from pi_harness.ai.types import Context, Model

API = "azure-openai-responses"
MIN_OUTPUT_TOKENS = 16
PROMPT_CACHE_KEY_MAX = 64
ERROR_PREFIX = "Azure OpenAI API error"


@dataclass
class AzureOpenAIResponsesOptions(OpenAIResponsesOptions):
    azure_api_version: str | None = None
    azure_resource_name: str | None = None
    azure_base_url: str | None = None
    azure_deployment_name: str | None = None
    # ``tool_choice`` passed through as given ("auto", "none", "required" or an object).
    tool_choice: str | JsonObject | None = None


def request_url(model: Model, options: AzureOpenAIResponsesOptions) -> str:
    base = resolve_base_url(model, base_url=options.azure_base_url, resource_name=options.azure_resource_name)
    version = resolve_api_version(options.azure_api_version)
    return f"{join_url(base, 'responses')}?api-version={quote(version, safe='')}"


def _reasoning_fields(model: Model, options: AzureOpenAIResponsesOptions, body: dict[str, object]) -> None:
    if not model.get("reasoning"):
        return
    level_map = model.get("thinkingLevelMap") or {}
    effort = options.reasoning_effort
    if effort:
        mapped = level_map.get(effort)
        effort = mapped if mapped is not None else effort
    elif options.reasoning_summary:
        effort = "medium"
    if effort:
        body["reasoning"] = {"effort": effort, "summary": options.reasoning_summary or "auto"}
        body["include"] = ["reasoning.encrypted_content"]
    elif "off" not in level_map or level_map["off"] is not None:
        body["reasoning"] = {"effort": level_map.get("off") or "none"}


def build_request_body(model: Model, context: Context, options: AzureOpenAIResponsesOptions) -> dict[str, object]:
    """The body before ``extra_body`` and the payload hook; keys in Pi's order."""
    body: dict[str, object] = {
        "model": resolve_deployment_name(model, options.azure_deployment_name),
        "input": build_input(model, context),
        "stream": True,
    }
    if options.session_id:
        body["prompt_cache_key"] = options.session_id[:PROMPT_CACHE_KEY_MAX]
    body["store"] = False
    if options.max_tokens:
        body["max_output_tokens"] = max(options.max_tokens, MIN_OUTPUT_TOKENS)
    if options.temperature is not None:
        body["temperature"] = options.temperature
    tools = context.get("tools")
    if tools:
        converted: list[dict[str, object]] = [dict(tool) for tool in convert_tools(tools)]
        if (model.get("compat") or {}).get("supportsStrictMode") is False:
            for tool in converted:
                tool.pop("strict", None)
        body["tools"] = converted
    if options.tool_choice is not None:
        body["tool_choice"] = options.tool_choice
    _reasoning_fields(model, options, body)
    return body


def build_headers(model: Model, options: StreamOptions) -> dict[str, str]:
    base = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    key = options.api_key
    auth = {"api-key": key} if key and key != AUTHENTICATED else {}
    return merge_headers(base, auth, model.get("headers"), options.headers)


def format_error(status: int, body: str, _headers: Mapping[str, str]) -> str:
    """Pi's wording: the service's ``error`` object as JSON, else the status and the raw text."""
    text = body.strip()
    try:
        data = loads(text) if text else None
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("error"), dict) and data["error"]:
        return f"{ERROR_PREFIX} ({status}): {dumps_str(data['error'])}"
    if data is None and text:
        return f"{ERROR_PREFIX} ({status}): {status} {text}"
    return f"{ERROR_PREFIX} ({status}): {status} status code (no body)"


def stream(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessageEventStream:
    opts = options_as(options, AzureOpenAIResponsesOptions)

    def prepare() -> SSERequest:
        if not opts.api_key:
            raise ValueError(f"No API key for provider: {model['provider']}")
        return SSERequest(
            request_url(model, opts),
            build_headers(model, opts),
            build_request_body(model, context, opts),
            format_error,
        )

    return stream_sse_request(model, opts, prepare, read_responses_events)


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    simple = options if options is not None else SimpleStreamOptions()
    opts = shared_options(simple, AzureOpenAIResponsesOptions)
    opts.max_tokens = simple_max_tokens(model, context, simple.max_tokens)
    # The clamped level; the body maps it through ``thinkingLevelMap``.
    opts.reasoning_effort = requested_level(model, simple.reasoning)
    return stream(model, context, opts)


PROVIDER = ApiProvider(api=API, stream=stream, stream_simple=stream_simple)
