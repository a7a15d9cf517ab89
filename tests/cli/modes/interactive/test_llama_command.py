"""``/llama``: a llama.cpp router's models listed, loaded and unloaded from the interactive mode,
against the fake llama-server over real HTTP (``LLAMA_BASE_URL``)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from pi_harness.testing.fake_llm import FakeLLMServer, LlamaServer, RouterModel

from .harness import run_pi


@pytest.fixture
def no_autodiscovery(agent_dir: Path) -> None:
    # Only LLAMA_BASE_URL: whatever listens on the default ports of this machine stays out.
    settings_file = agent_dir / "settings.json"
    settings = json.loads(settings_file.read_text()) if settings_file.exists() else {}
    settings["localModels"] = {"autodiscover": False}
    settings_file.write_text(json.dumps(settings))


def router() -> LlamaServer:
    return LlamaServer(
        [RouterModel("alpha", "loaded", n_ctx=4096), RouterModel("beta", "unloaded", n_ctx=8192)],
        router=True,
        load_steps=2,
    )


async def test_llama_loads_a_model_next_to_the_loaded_one_and_model_offers_it(
    server: FakeLLMServer, project: Path, no_autodiscovery: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = router()
    with FakeLLMServer(llama=state) as llama:
        monkeypatch.setenv("LLAMA_BASE_URL", llama.url)
        async with run_pi() as pi:
            await pi.started()
            await pi.submit("/llama")
            await pi.wait_for(lambda: pi.screen_has("llama.cpp models"), "the model list")
            assert "alpha · loaded · 4k context" in pi.selected_row()
            assert pi.screen_has("beta")
            await pi.press("down", "enter")
            await pi.wait_for(lambda: pi.screen_has("1 model is loaded"), "the question about alpha")
            await pi.press("down", "enter")  # Keep loaded and load
            await pi.wait_for(lambda: pi.scrollback_has("Loaded beta"), "the load notice")
            assert state.actions == ["load beta"]
            runtime = pi.mode.session.model_runtime
            assert runtime.find("llama.cpp", "beta") is not None and runtime.find("llama.cpp", "alpha") is not None
            # the list again, with beta loaded now; unload alpha
            await pi.wait_for(lambda: pi.screen_has("beta · loaded"), "the refreshed list")
            await pi.press("enter")
            await pi.wait_for(lambda: pi.screen_has("Unload model?"), "the confirmation")
            await pi.press("enter")
            await pi.wait_for(lambda: pi.scrollback_has("Unloaded alpha"), "the unload notice")
            assert state.actions == ["load beta", "unload alpha"]
            assert runtime.find("llama.cpp", "alpha") is None
            await pi.press("escape")


async def test_llama_reports_a_failed_load_with_the_exit_code(
    server: FakeLLMServer, project: Path, no_autodiscovery: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = router()
    state.fail_loads = frozenset({"beta"})
    with FakeLLMServer(llama=state) as llama:
        monkeypatch.setenv("LLAMA_BASE_URL", llama.url)
        async with run_pi() as pi:
            await pi.started()
            await pi.submit("/llama")
            await pi.wait_for(lambda: pi.screen_has("llama.cpp models"), "the model list")
            await pi.press("down", "enter")
            await pi.wait_for(lambda: pi.screen_has("1 model is loaded"), "the question")
            await pi.press("enter")  # Unload all and load
            await pi.wait_for(lambda: pi.scrollback_has("Model exited with code 1"), "the failure")
            assert state.actions == ["unload alpha", "load beta"]
            await pi.press("escape")


async def test_llama_without_a_router(
    server: FakeLLMServer, project: Path, no_autodiscovery: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeLLMServer(llama=LlamaServer()) as single:
        monkeypatch.setenv("LLAMA_BASE_URL", single.url)
        async with run_pi() as pi:
            await pi.started()
            await pi.submit("/llama")
            await pi.wait_for(lambda: pi.scrollback_has("Server is not running in llama.cpp router mode"), "the error")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("LLAMA_BASE_URL", f"http://127.0.0.1:{port}")  # nobody listens there
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/llama")
        await pi.wait_for(lambda: pi.screen_has("llama.cpp unavailable"), "the connection question")
        assert pi.screen_has("Could not connect to the server.") and "Retry" in pi.selected_row()
        await pi.press("enter")  # Retry: still nobody
        await pi.wait_for(lambda: pi.screen_has("llama.cpp unavailable"), "the question again")
        await pi.press("down", "enter")  # Close
        await pi.wait_for(lambda: not pi.screen_has("llama.cpp unavailable"), "the dialog closed")


async def test_llama_is_offered_only_while_the_builtin_is_enabled(
    server: FakeLLMServer, project: Path, agent_dir: Path, no_autodiscovery: None
) -> None:
    async with run_pi() as pi:
        await pi.started()
        assert "llama" in [info.name for info in pi.mode.commands.command_infos()]
        pi.type("/lla")
        await pi.wait_for(lambda: "/llama" in pi.screen(), "the suggestion")
    settings_file = agent_dir / "settings.json"
    settings = json.loads(settings_file.read_text())
    settings_file.write_text(json.dumps({**settings, "extensions": ["-builtin:llama.cpp"]}))
    async with run_pi() as pi:
        await pi.started()
        assert "llama" not in [info.name for info in pi.mode.commands.command_infos()]
        assert pi.mode.commands.find("/llama") is None  # plain text then, as any unknown /word
        pi.type("/lla")
        await pi.wait_for(lambda: "/lla" in pi.screen(), "the typed text")
        assert "/llama" not in pi.screen() and "llama.cpp router" not in pi.screen()
