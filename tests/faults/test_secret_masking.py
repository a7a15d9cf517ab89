"""Credentials a tool prints never reach the model, the session file, events or exports (real
``pi`` against the fake LLM server; ``security.maskSecrets``, on by default)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from _faults import check_session
from _pi_env import PiEnv
from _rpc_client import RpcClient

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep, ToolCallStep

StartRpc = Callable[..., RpcClient]

OPENAI_KEY = "sk-e2e-openai-0123456789abcdef"
MODELS_KEY = "models-json-key-0123456789"
AUTH_KEY = "auth-json-key-9876543210"
SHORT = "abc1234"  # under 8 characters: never masked
SECRETS = (OPENAI_KEY, MODELS_KEY, AUTH_KEY)
MARKS = ("[redacted:OPENAI_API_KEY]", "[redacted:fake]", "[redacted:anthropic]")
# Prints the three secrets without naming any of them in the command the model sends.
LEAK = (
    'echo "openai=$OPENAI_API_KEY short=$PIH_SHORT_TOKEN"; '
    'cat "$PI_CODING_AGENT_DIR/models.json" "$PI_CODING_AGENT_DIR/auth.json"'
)


def with_secrets(pi_env: PiEnv, settings: dict[str, object] | None = None) -> None:
    """The fake provider keyed by ``MODELS_KEY``, an auth.json key and two environment variables."""
    pi_env.configure(settings=settings)
    models_file = pi_env.agent_dir / "models.json"
    models = json.loads(models_file.read_text())
    models["providers"]["fake"]["apiKey"] = MODELS_KEY
    models_file.write_text(json.dumps(models))
    (pi_env.agent_dir / "auth.json").write_text(json.dumps({"anthropic": {"type": "api_key", "key": AUTH_KEY}}))
    pi_env.env["OPENAI_API_KEY"] = OPENAI_KEY
    pi_env.env["PIH_SHORT_TOKEN"] = SHORT


def script_leak(pi_env: PiEnv) -> None:
    pi_env.server.push(ScriptedResponse(steps=[ToolCallStep("bash", {"command": LEAK}, id="call_1")]))
    pi_env.server.push(ScriptedResponse(steps=[TextStep("I saw the files.")]))


def assert_masked(text: str, where: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret} in {where}"
    for mark in MARKS:
        assert mark in text, f"{mark} missing from {where}"


def test_printed_credentials_are_masked_everywhere(pi_env: PiEnv, tmp_path: Path) -> None:
    with_secrets(pi_env)
    script_leak(pi_env)
    result = pi_env.run("--mode", "json", "show me the config")
    assert result.returncode == 0, result.stderr

    assert_masked(result.stdout, "json events")
    assert f"short={SHORT}" in result.stdout
    second = json.dumps(pi_env.server.requests[1].json)
    assert_masked(second, "the model's next request")
    [session] = pi_env.sessions()
    check_session(session)
    assert_masked(session.read_text(), "the session file")

    out = tmp_path / "page.html"
    exported = pi_env.run("--export", str(session), str(out))
    assert exported.returncode == 0, exported.stderr
    assert_masked(out.read_text(), "the HTML export")


def test_masking_off_passes_values_and_export_masks_old_entries(pi_env: PiEnv, tmp_path: Path) -> None:
    # Written without masking (as by an older pi-harness, or Pi): the values are in the file, in
    # the tool result and in user and assistant text.
    with_secrets(pi_env, settings={"security": {"maskSecrets": False}})
    script_leak(pi_env)
    result = pi_env.run("--mode", "json", f"my key is {AUTH_KEY}")
    assert result.returncode == 0, result.stderr
    assert OPENAI_KEY in result.stdout and MODELS_KEY in result.stdout
    assert OPENAI_KEY in json.dumps(pi_env.server.requests[1].json)
    [session] = pi_env.sessions()
    assert all(secret in session.read_text() for secret in SECRETS)

    off_page = tmp_path / "off.html"
    assert pi_env.run("--export", str(session), str(off_page)).returncode == 0
    assert OPENAI_KEY in off_page.read_text()

    with_secrets(pi_env)  # masking back on (the default)
    on_page = tmp_path / "on.html"
    assert pi_env.run("--export", str(session), str(on_page)).returncode == 0
    page = on_page.read_text()
    assert_masked(page, "the export of an unmasked session")
    assert "my key is [redacted:anthropic]" in page


def test_rpc_bash_and_export_html_mask_credentials(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    with_secrets(pi_env)
    client = start_rpc()
    start = client.mark()
    response = client.request("bash", command='echo "$OPENAI_API_KEY"; cat "$PI_CODING_AGENT_DIR/auth.json"')
    assert response["success"] is True, response
    output = response["data"]["output"]
    assert OPENAI_KEY not in output and AUTH_KEY not in output
    assert "[redacted:OPENAI_API_KEY]" in output and "[redacted:anthropic]" in output
    streamed = json.dumps(client.events(start))
    assert OPENAI_KEY not in streamed and AUTH_KEY not in streamed

    script_leak(pi_env)
    client.prompt_and_settle("show me the config")
    exported = client.request("export_html", outputPath="rpc.html")
    assert exported["success"] is True, exported
    assert_masked(Path(exported["data"]["path"]).read_text(), "the RPC export")
    assert_masked(json.dumps(client.events(start)), "RPC events")
    client.close_stdin()
    assert client.wait_exit() == 0
