"""``pi -p`` sends a built-in provider's request where its settings say, with models.json's
fields applied. The expected key, URL and body are what the real Pi 1.4.0 sent to the fake server
in the same setup: Cloudflare's account id from auth.json's ``env`` (else the environment) fills
the base URL; models.json ``samplingParams`` reach the body; the key comes from auth.json, else
models.json, else the environment, and a stored credential with only settings takes the key from
the environment, not from models.json."""

from __future__ import annotations

import json

import pytest
from _pi_env import PiEnv

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep

MODEL = "@cf/deepseek-ai/deepseek-v4-flash-0731"


@pytest.mark.parametrize(
    ("stored", "account", "key"),
    [
        ({"type": "api_key", "env": {"CLOUDFLARE_ACCOUNT_ID": "acc-42"}}, "acc-42", "from-env"),
        ({"type": "api_key", "key": "from-auth", "env": {"CLOUDFLARE_ACCOUNT_ID": "acc-42"}}, "acc-42", "from-auth"),
        (None, "env-acc", "from-models-json"),
    ],
    ids=["settings-only-credential", "stored-key", "no-credential"],
)
def test_cloudflare_request_settings_and_key(
    pi_env: PiEnv, stored: dict[str, object] | None, account: str, key: str
) -> None:
    server = pi_env.server
    server.push(ScriptedResponse(steps=[TextStep("hello from cloudflare")]))
    provider = {
        "baseUrl": f"{server.url}/client/v4/accounts/{{CLOUDFLARE_ACCOUNT_ID}}/ai/v1",
        "apiKey": "from-models-json",
        "modelOverrides": {MODEL: {"samplingParams": {"top_p": 0.5}}},
    }
    (pi_env.agent_dir / "models.json").write_text(json.dumps({"providers": {"cloudflare-workers-ai": provider}}))
    if stored is not None:
        (pi_env.agent_dir / "auth.json").write_text(json.dumps({"cloudflare-workers-ai": stored}))
    pi_env.env.update({"CLOUDFLARE_API_KEY": "from-env", "CLOUDFLARE_ACCOUNT_ID": "env-acc"})
    result = pi_env.run("-p", "--model", f"cloudflare-workers-ai/{MODEL}", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello from cloudflare\n"
    request = server.requests[-1]
    assert request.path == f"/client/v4/accounts/{account}/ai/v1/chat/completions"
    assert request.json["top_p"] == 0.5
    assert request.headers["authorization"] == f"Bearer {key}"
