"""Every provider of the catalogue streams a tool-using turn against the fake server.

One model per provider (the first by id that has the provider's most common API), with its base
URL moved to the fake server but its path kept, so each provider's own URL layout, headers and
compat flags are what goes over the wire. Providers whose API pi-harness does not implement yet are
skipped with a reason naming the API.
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from urllib.parse import urlsplit

import pytest

from pi_harness.ai import SimpleStreamOptions, stream_simple
from pi_harness.ai.models import get_models, get_providers
from pi_harness.ai.registry import get_api_provider
from pi_harness.ai.types import Context, Model
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, ToolCallStep
from pi_harness.testing.fake_llm.server import PROTOCOL_MODULES

SETTINGS = {"CLOUDFLARE_ACCOUNT_ID": "acc-1", "CLOUDFLARE_GATEWAY_ID": "gw-1"}
TOOL = {
    "name": "read",
    "description": "Read a file",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
}


def _representative(provider: str) -> Model:
    models = get_models(provider)
    api = Counter(m["api"] for m in models).most_common(1)[0][0]
    return next(m for m in models if m["api"] == api)


CASES = [_representative(p) for p in get_providers()]


def _on_server(model: Model, server: FakeLLMServer) -> Model:
    # The provider's own path, behind a prefix naming the protocol: several protocols share a
    # route (a gateway's .../openai/responses looks like Azure's, Pi's /messages like Anthropic's).
    path = urlsplit(model["baseUrl"]).path.rstrip("/")
    return {**model, "baseUrl": f"{server.url}/@{model['api']}{path}"}


def _tool_names(body: object) -> str:
    """The declared tools of a request body, wherever the protocol puts them."""
    if not isinstance(body, dict):
        return ""
    if "toolConfig" in body:  # Bedrock Converse
        return str(body["toolConfig"])
    if "context" in body:  # Pi's own protocol sends the whole context
        return str(body["context"].get("tools"))
    return str(body.get("tools"))


def _api_key(model: Model) -> str:
    if model["api"] == "openai-codex-responses":
        # Codex wants a ChatGPT access token: a JWT naming the account.
        claims = {"https://api.openai.com/auth": {"chatgpt_account_id": "acct-1"}}
        payload = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
        return f"e30.{payload}.k-test"
    return "k-test"


def test_every_provider_is_covered() -> None:
    assert len(CASES) == len(get_providers()) >= 41


@pytest.mark.parametrize("model", CASES, ids=[m["provider"] for m in CASES])
async def test_a_tool_using_turn_streams(model: Model) -> None:
    api = model["api"]
    if get_api_provider(api) is None:
        pytest.skip(f"API {api} is not implemented yet")
    if api not in PROTOCOL_MODULES:
        pytest.skip(f"the fake server does not speak API {api} yet")
    context: Context = {
        "systemPrompt": "Be brief.",
        "messages": [{"role": "user", "content": "read a.txt", "timestamp": 1}],
        "tools": [TOOL],  # type: ignore[list-item]  # a literal tool schema
    }
    script = ScriptedResponse(steps=[ToolCallStep("read", {"path": "a.txt"}, id="call_1")])
    with FakeLLMServer([script]) as server:
        target = _on_server(model, server)
        options = SimpleStreamOptions(api_key=_api_key(model), env=dict(SETTINGS), reasoning="low")
        events = [e["type"] async for e in stream_simple(target, context, options)]
        request = server.requests[0]
    assert events[-1] == "done", events
    assert "toolcall_end" in events
    # The request went to the provider's own path, placeholders filled from the settings.
    assert "{" not in request.path
    for name, value in SETTINGS.items():
        if "{" + name + "}" in model["baseUrl"]:
            assert value in request.path
    assert TOOL["name"] in _tool_names(request.json)
    sent = {name: value for name, value in request.headers.items() if "k-test" in value}
    if model["provider"] == "cloudflare-ai-gateway":
        assert sent == {"cf-aig-authorization": "Bearer k-test"}
    else:
        assert len(sent) == 1, request.headers
    assert request.json.get("model", model["id"]) == model["id"] or model["id"] in request.path
