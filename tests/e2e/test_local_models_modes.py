"""Local model servers in every mode: the installed ``pi`` against a fake llama.cpp server.

The fake LLM server answers ``GET /v1/models`` and ``GET /props`` like llama-server; it is named
by ``LLAMA_BASE_URL``, so no test depends on what listens on port 8080. "Fresh" means an agent
dir without models.json, settings.json or API keys: the local server is the only model source.
"""

from __future__ import annotations

import json
import shlex
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from _pi_env import PiEnv, pi_executable
from _rpc_client import RpcClient

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

LOCAL_ID = "gguf-local"
LOCAL_ANSWER = "Hello from llama.cpp"
HOSTED_ANSWER = "Hello from the hosted model"
PROPS = {"default_generation_settings": {"n_ctx": 32768}, "modalities": {"vision": False}}
MODEL_PROBE = "GET /v1/models"


@pytest.fixture
def local() -> Iterator[FakeLLMServer]:
    reply = ScriptedResponse(steps=[TextStep(LOCAL_ANSWER)])
    with FakeLLMServer(default=reply, models=[LOCAL_ID], props=PROPS) as server:
        yield server


@pytest.fixture
def fresh(pi_env: PiEnv, local: FakeLLMServer) -> PiEnv:
    (pi_env.agent_dir / "models.json").unlink()
    (pi_env.agent_dir / "settings.json").unlink()
    pi_env.env["LLAMA_BASE_URL"] = local.url
    pi_env.env.pop("LLAMA_API_KEY", None)
    return pi_env


@pytest.fixture
def hosted(pi_env: PiEnv, local: FakeLLMServer) -> PiEnv:
    """The usual e2e setup (a hosted ``fake`` provider as the default model) plus the local server."""
    pi_env.server.default = ScriptedResponse(steps=[TextStep(HOSTED_ANSWER)])
    pi_env.env["LLAMA_BASE_URL"] = local.url
    pi_env.env.pop("LLAMA_API_KEY", None)
    return pi_env


@contextmanager
def refused_url() -> Iterator[str]:
    """A loopback URL that refuses connections: the port is bound (so nobody else takes it) but
    nothing listens on it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


def completions(server: FakeLLMServer) -> list[str]:
    return [r.body["model"] for r in server.requests if r.path.endswith("/chat/completions")]


def table_rows(stdout: str) -> list[list[str]]:
    return [line.split() for line in stdout.splitlines()[1:]]


def test_print_mode_on_a_fresh_agent_dir_answers_from_the_local_server(fresh: PiEnv, local: FakeLLMServer) -> None:
    result = fresh.run("-p", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{LOCAL_ANSWER}\n"
    assert completions(local) == [LOCAL_ID]
    assert next(r for r in local.requests).headers["authorization"] == "Bearer local"
    # probed once at startup; the extension's session_start reused that result
    assert local.probes.count(MODEL_PROBE) == 1


def test_list_models_lists_the_local_server(fresh: PiEnv) -> None:
    result = fresh.run("--list-models")
    assert result.returncode == 0, result.stderr
    # the context window comes from the server's /props
    assert ["llama.cpp", LOCAL_ID, "32.8K", "16.4K", "no", "no"] in table_rows(result.stdout)


def test_model_flag_selects_a_local_model_next_to_a_hosted_default(hosted: PiEnv, local: FakeLLMServer) -> None:
    result = hosted.run("--model", f"llama.cpp/{LOCAL_ID}", "-p", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{LOCAL_ANSWER}\n"
    assert completions(local) == [LOCAL_ID] and hosted.server.requests == []


def test_json_mode_uses_the_local_model(fresh: PiEnv) -> None:
    result = fresh.run("--mode", "json", "hi")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    [answer] = [r["message"] for r in records if r["type"] == "message_end" and r["message"]["role"] == "assistant"]
    assert (answer["provider"], answer["model"]) == ("llama.cpp", LOCAL_ID)
    assert answer["content"][0]["text"] == LOCAL_ANSWER


def test_rpc_mode_sees_and_uses_the_local_model(fresh: PiEnv, start_rpc: Callable[..., RpcClient]) -> None:
    client = start_rpc()
    state = client.request("get_state")["data"]
    assert (state["model"]["provider"], state["model"]["id"]) == ("llama.cpp", LOCAL_ID)
    models = client.request("get_available_models")["data"]["models"]
    # (other local servers on their default ports would be listed too: look at llama.cpp only)
    assert [m["id"] for m in models if m["provider"] == "llama.cpp"] == [LOCAL_ID]
    client.prompt_and_settle("hi")
    assert client.request("get_last_assistant_text")["data"]["text"] == LOCAL_ANSWER


def test_an_unknown_local_model_names_the_server_that_did_not_answer(fresh: PiEnv) -> None:
    with refused_url() as dead:
        fresh.env["LLAMA_BASE_URL"] = dead
        result = fresh.run("--model", f"llama.cpp/{LOCAL_ID}", "-p", "hi")
    assert result.returncode == 1
    assert f'Model "llama.cpp/{LOCAL_ID}" not found' in result.stderr
    assert f"Local model server llama.cpp ({dead}/v1): not reachable" in result.stderr


@pytest.mark.parametrize("entry", ["-builtin:llama.cpp", "!builtin:llama.cpp"])
def test_disabling_the_builtin_disables_the_discovery(hosted: PiEnv, local: FakeLLMServer, entry: str) -> None:
    hosted.configure(settings={"extensions": [entry]})
    hosted.env["PI_LOCAL_MODEL_URLS"] = f"box={local.url}"
    result = hosted.run("-p", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{HOSTED_ANSWER}\n"
    listing = hosted.run("--list-models")
    assert listing.returncode == 0, listing.stderr
    assert {row[0] for row in table_rows(listing.stdout)} == {"fake"}
    missing = hosted.run("--model", f"llama.cpp/{LOCAL_ID}", "-p", "hi")
    assert missing.returncode == 1 and "not found" in missing.stderr
    assert local.probes == [] and local.requests == []


def test_a_hosted_default_stays_and_a_dead_local_server_is_harmless(hosted: PiEnv, local: FakeLLMServer) -> None:
    listing = hosted.run("--list-models")
    assert {"fake", "llama.cpp"} <= {row[0] for row in table_rows(listing.stdout)}
    result = hosted.run("-p", "hi")
    assert result.stdout == f"{HOSTED_ANSWER}\n"  # a local model never displaces a configured one
    assert completions(local) == []

    with refused_url() as dead:
        hosted.env["LLAMA_BASE_URL"] = dead
        result = hosted.run("-p", "hi")
        listing = hosted.run("--list-models")
    assert (result.returncode, result.stdout, result.stderr) == (0, f"{HOSTED_ANSWER}\n", "")
    assert listing.returncode == 0 and "llama.cpp" not in {row[0] for row in table_rows(listing.stdout)}


def test_interactive_mode_starts_with_the_local_model(fresh: PiEnv, local: FakeLLMServer) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    env = {**fresh.env, "TERM": "xterm-256color"}
    # A socket path must fit in sun_path (108 bytes): a short private directory of its own.
    socket_dir = Path(tempfile.mkdtemp(prefix="pi-tmux-", dir="/tmp"))
    tmux = ["tmux", "-S", str(socket_dir / "s")]

    def run(*args: str) -> str:
        return subprocess.run([*tmux, *args], capture_output=True, text=True, env=env, timeout=10, check=True).stdout

    def wait_for(text: str) -> None:
        deadline = time.monotonic() + 30
        while text not in (screen := run("capture-pane", "-p", "-t", "pi")):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {text!r}; the screen shows:\n{screen}")
            time.sleep(0.05)

    run("new-session", "-d", "-s", "pi", "-x", "120", "-y", "40", "-c", str(fresh.cwd), shlex.quote(pi_executable()))
    try:
        wait_for(LOCAL_ID)  # the footer names the model chosen at startup
        run("send-keys", "-t", "pi", "-l", "hi")
        run("send-keys", "-t", "pi", "Enter")
        wait_for(LOCAL_ANSWER)
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, env=env, check=False)
        shutil.rmtree(socket_dir, ignore_errors=True)
    assert completions(local) == [LOCAL_ID]
    assert local.probes.count(MODEL_PROBE) == 1
