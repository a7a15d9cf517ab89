"""``google-vertex`` over real HTTP: API key, explicit token and ADC (google-auth against a
loopback token endpoint), never the internet."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from _streams import collect, hello

from pi_harness.ai import api
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.overflow import is_context_overflow
from pi_harness.ai.providers.google_vertex import (
    NO_LOCATION,
    NO_PROJECT,
    GoogleVertexOptions,
    model_path,
    request_url,
    stream,
    usable_api_key,
)
from pi_harness.ai.providers.google_vertex_auth import forget_credentials
from pi_harness.ai.retry import is_retryable_error_message
from pi_harness.ai.types import Model
from pi_harness.testing.fake_llm import (
    FakeLLMServer,
    HTTPErrorSpec,
    ScriptedResponse,
    TextStep,
    ThinkingStep,
    ToolCallStep,
)
from pi_harness.testing.fake_llm.google_vertex import MISSING_CREDENTIAL

API = "google-vertex"


@pytest.fixture(autouse=True)
def fresh_credentials() -> Iterator[None]:
    forget_credentials()
    yield
    forget_credentials()


def vertex_model(server: FakeLLMServer, **overrides: Any) -> Model:
    return server.model(API, model_id="gemini-2.5-flash", provider="google-vertex", **overrides)


_PRIVATE_KEY: list[str] = []


def private_key_pem() -> str:
    """One RSA key for the whole module (generating one takes a moment)."""
    if not _PRIVATE_KEY:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        _PRIVATE_KEY.append(pem.decode())
    return _PRIVATE_KEY[0]


def write_adc_file(tmp_path: Path, server: FakeLLMServer, account: str = "pi-test") -> Path:
    """A service-account key file whose token endpoint is the fake server's ``/token``."""
    path = tmp_path / f"{account}.json"
    info = {
        "type": "service_account",
        "project_id": "proj",
        "private_key_id": "0123456789abcdef",
        "private_key": private_key_pem(),
        "client_email": f"{account}@proj.iam.gserviceaccount.com",
        "client_id": "1234567890",
        "token_uri": f"{server.url}/token",
    }
    path.write_text(json.dumps(info))
    return path


# --- addresses --------------------------------------------------------------------------------


def test_urls_for_key_adc_regions_and_custom_base(monkeypatch: pytest.MonkeyPatch) -> None:
    template: Any = {"id": "gemini-2.5-pro", "baseUrl": "https://{location}-aiplatform.googleapis.com"}
    method = "publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    assert (
        request_url(template, GoogleVertexOptions(), with_key=True) == f"https://aiplatform.googleapis.com/v1/{method}"
    )
    adc = GoogleVertexOptions(project="proj", location="us-central1")
    assert request_url(template, adc, with_key=False) == (
        f"https://us-central1-aiplatform.googleapis.com/v1/projects/proj/locations/us-central1/{method}"
    )
    assert request_url(template, GoogleVertexOptions(project="p", location="global"), with_key=False).startswith(
        "https://aiplatform.googleapis.com/v1/projects/p/locations/global/"
    )
    assert request_url(template, GoogleVertexOptions(project="p", location="eu"), with_key=False).startswith(
        "https://aiplatform.eu.rep.googleapis.com/v1/projects/p/locations/eu/"
    )
    with pytest.raises(ValueError, match="requires a project ID"):
        request_url(template, GoogleVertexOptions(location="x"), with_key=False)
    monkeypatch.setenv("GCLOUD_PROJECT", "from-env")
    with pytest.raises(ValueError) as info:
        request_url(template, GoogleVertexOptions(), with_key=False)
    assert str(info.value) == NO_LOCATION
    custom: Any = {"id": "gemini-2.5-pro", "baseUrl": "https://proxy.example/vertex/v1beta1/"}
    assert (
        request_url(custom, GoogleVertexOptions(), with_key=False) == f"https://proxy.example/vertex/v1beta1/{method}"
    )
    assert model_path("anthropic/claude-x") == "publishers/anthropic/models/claude-x"
    assert model_path("projects/p/locations/l/endpoints/e") == "projects/p/locations/l/endpoints/e"
    assert [usable_api_key(k) for k in ("", " key ", "gcp-vertex-credentials", "<authenticated>", "<your key>")] == [
        None,
        "key",
        None,
        None,
        None,
    ]


# --- credentials ------------------------------------------------------------------------------


async def test_api_key_goes_in_x_goog_api_key_and_content_streams() -> None:
    script = ScriptedResponse(
        steps=[ThinkingStep("Plan."), TextStep("Calling."), ToolCallStep("read", {"path": "a"})],
        usage={"input": 900, "output": 40, "cacheRead": 100, "reasoning": 10},
    )
    with FakeLLMServer([script]) as server:
        model = vertex_model(server, reasoning=True)
        events, message = await collect(stream(model, hello("Be brief."), GoogleVertexOptions(api_key="vertex-key")))
        request = server.requests[0]
    assert request.path == "/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent"
    assert request.query == "alt=sse"
    assert request.headers["x-goog-api-key"] == "vertex-key" and "authorization" not in request.headers
    assert request.json["contents"] == [{"role": "user", "parts": [{"text": "Hello"}]}]
    assert request.json["systemInstruction"]["parts"] == [{"text": "Be brief."}]
    kinds = [e["type"] for e in events if e["type"].endswith("_start") or e["type"] == "done"]
    assert kinds == ["thinking_start", "text_start", "toolcall_start", "done"]
    assert message["api"] == API and message["stopReason"] == "toolUse"
    assert message["content"][2]["arguments"] == {"path": "a"}  # type: ignore[typeddict-item]
    usage = message["usage"]
    assert (usage["input"], usage["cacheRead"]) == (900, 100)


async def test_explicit_access_token_needs_a_project_unless_the_base_url_is_a_collection() -> None:
    template: Any = {
        "id": "gemini-2.5-flash",
        "name": "g",
        "api": API,
        "provider": "google-vertex",
        "baseUrl": "https://{location}-aiplatform.googleapis.com",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1000,
        "maxTokens": 100,
    }
    _, message = await collect(stream(template, hello("Be brief."), GoogleVertexOptions(access_token="ya29.given")))
    assert message["errorMessage"] == NO_PROJECT


async def test_explicit_access_token_is_a_bearer_token() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        options = GoogleVertexOptions(access_token="ya29.given")
        _, message = await collect(stream(vertex_model(server), hello("Be brief."), options))
        assert server.requests[0].headers["authorization"] == "Bearer ya29.given"
        assert server.token_requests == []
    assert message["stopReason"] == "stop"


async def test_adc_key_file_token_comes_from_the_token_endpoint_and_is_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("google.auth", reason="google-auth (extra 'vertex') is not installed")
    pytest.importorskip("cryptography", reason="google-auth signs service-account JWTs with cryptography")
    with FakeLLMServer(default=ScriptedResponse(steps=[TextStep("ok")])) as server:
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(write_adc_file(tmp_path, server)))
        model = vertex_model(server)
        for _ in range(2):
            _, message = await collect(
                stream(model, hello("Be brief."), GoogleVertexOptions(project="p", location="l"))
            )
            assert message["stopReason"] == "stop", message.get("errorMessage")
        assert [r.headers["authorization"] for r in server.requests] == ["Bearer ya29.fake-1"] * 2
        assert len(server.token_requests) == 1
        assert "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer" in server.token_requests[0]
        assert "assertion=" in server.token_requests[0]


async def test_adc_through_the_public_api_and_a_refused_refresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("google.auth", reason="google-auth (extra 'vertex') is not installed")
    pytest.importorskip("cryptography", reason="google-auth signs service-account JWTs with cryptography")
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("via adc")])]) as server:
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(write_adc_file(tmp_path, server)))
        monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "proj")
        monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-central1")
        message = await api.complete_simple(vertex_model(server), hello("Be brief."))
        assert message["content"][0]["text"] == "via adc"  # type: ignore[typeddict-item]
        forget_credentials()
        revoked = write_adc_file(tmp_path, server, account="revoked")
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(revoked))
        events, failed = await collect(
            api.stream_simple(vertex_model(server), hello("Be brief."), SimpleStreamOptions())
        )
        assert len(server.requests) == 1  # the refused refresh never reached the model
    assert [e["type"] for e in events] == ["error"]
    assert "invalid_grant" in failed["errorMessage"]
    assert "Invalid JWT Signature." in failed["errorMessage"]


async def test_missing_google_auth_is_a_one_line_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "google.auth", None)
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("never")])]) as server:
        _, message = await collect(
            stream(vertex_model(server), hello("Be brief."), GoogleVertexOptions(project="p", location="l"))
        )
        assert server.requests == []
    assert message["errorMessage"] == (
        "Google Vertex AI with Application Default Credentials needs the Python package 'google-auth', "
        "which is not installed (pip install 'pi-harness[vertex]')"
    )


async def test_missing_project_fails_before_any_token_is_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    template_model: Any = {
        "id": "gemini-2.5-flash",
        "name": "g",
        "api": API,
        "provider": "google-vertex",
        "baseUrl": "https://{location}-aiplatform.googleapis.com",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1000,
        "maxTokens": 100,
    }
    _, message = await collect(stream(template_model, hello("Be brief."), GoogleVertexOptions()))
    assert message["errorMessage"] == NO_PROJECT


# --- errors -----------------------------------------------------------------------------------


def test_fake_refuses_requests_without_credentials() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("x")])]) as server:
        url = server.url + "/v1/publishers/google/models/m:streamGenerateContent?alt=sse"
        response = httpx2.post(url, json={"contents": []})
        assert server.pending == 1
    assert response.status_code == 401
    assert response.json()["error"] == {"code": 401, "message": MISSING_CREDENTIAL, "status": "UNAUTHENTICATED"}


async def test_errors_are_classified() -> None:
    overflow = "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
    exhausted = (
        "Resource exhausted. Please try again later. Please refer to "
        "https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details."
    )
    scripts = [
        ScriptedResponse(http_error=HTTPErrorSpec(400, overflow)),
        ScriptedResponse(http_error=HTTPErrorSpec(429, exhausted)),
        ScriptedResponse(http_error=HTTPErrorSpec(403, "Permission 'aiplatform.endpoints.predict' denied")),
    ]
    with FakeLLMServer(scripts) as server:
        options = GoogleVertexOptions(api_key="k")
        results = [(await collect(stream(vertex_model(server), hello("Be brief."), options)))[1] for _ in scripts]
    too_long, limited, denied = results
    assert too_long["errorMessage"] == f"400 INVALID_ARGUMENT: {overflow}"
    assert is_context_overflow(too_long) and not is_retryable_error_message(too_long["errorMessage"])
    assert limited["errorMessage"] == f"429 RESOURCE_EXHAUSTED: {exhausted}"
    assert is_retryable_error_message(limited["errorMessage"]) and not is_context_overflow(limited)
    assert denied["errorMessage"].startswith("403 PERMISSION_DENIED")
    assert not is_retryable_error_message(denied["errorMessage"])


async def test_public_api_takes_google_cloud_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_CLOUD_API_KEY", "env-vertex-key")
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("hi")])]) as server:
        message = await api.complete_simple(vertex_model(server), hello("Be brief."))
        assert server.requests[0].headers["x-goog-api-key"] == "env-vertex-key"
    assert message["stopReason"] == "stop"
