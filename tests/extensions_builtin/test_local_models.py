"""builtin:llama.cpp: discovery of local OpenAI-compatible servers, registration, a real stream."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from pi_harness.ai import SimpleStreamOptions, stream_simple
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.extensions_builtin.local_models import (
    BUS_CHANNEL,
    DiscoveryCache,
    LocalModelsOptions,
    LocalServer,
    create_local_models_extension,
    discover,
    load_local_models_config,
    register_discovered,
    run_discovery,
)
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

NO_AUTODISCOVERY = {"autodiscover": False}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def runtime_applier(runtime: ModelRuntime) -> Any:
    def apply(action: tuple[str, str, Any, str]) -> None:
        kind, name, config, source = action
        if kind == "register":
            runtime.register_provider(name, config, source)
        else:
            runtime.unregister_provider(name)

    return apply


async def test_fake_server_is_registered_and_streams_a_real_answer(
    tmp_path: Path, harness: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply = ScriptedResponse(steps=[TextStep("Hello from the local model")])
    with FakeLLMServer([reply], models=["qwen-coder", "llama-3"]) as server:
        monkeypatch.setenv("PI_LOCAL_MODEL_URLS", f"box={server.url}")
        runtime = ModelRuntime()
        extension = create_local_models_extension(LocalModelsOptions(settings=NO_AUTODISCOVERY))
        h = await harness(extension, tmp_path, path="builtin:llama.cpp", apply_provider=runtime_applier(runtime))
        seen: list[Any] = []
        h.runner.bus.on(BUS_CHANNEL, seen.append)
        await h.start()

        model = runtime.find("box", "qwen-coder")
        assert model is not None
        assert model["api"] == "openai-completions"
        assert model["baseUrl"] == f"{server.url}/v1"
        assert model["contextWindow"] == 128_000
        assert model["compat"]["supportsDeveloperRole"] is False
        assert [m["id"] for m in runtime.get_available() if m["provider"] == "box"] == ["qwen-coder", "llama-3"]
        assert seen == [
            [
                {
                    "name": "box",
                    "baseUrl": f"{server.url}/v1",
                    "models": ["qwen-coder", "llama-3"],
                    "error": None,
                    "skipped": None,
                }
            ]
        ]

        context = {"systemPrompt": "Be brief.", "messages": [{"role": "user", "content": "hi", "timestamp": 0}]}
        key = runtime.get_api_key("box")
        assert key == "local"
        message = await stream_simple(model, context, SimpleStreamOptions(api_key=key)).result()  # type: ignore[arg-type]
        assert message["stopReason"] == "stop"
        assert message["content"][0]["text"] == "Hello from the local model"
        completion = next(r for r in server.requests if r.path.endswith("/chat/completions"))
        assert completion.headers["authorization"] == "Bearer local"
        assert completion.body["model"] == "qwen-coder"
        assert "max_tokens" in completion.body and "store" not in completion.body


async def test_unreachable_and_offline_servers_are_skipped(
    tmp_path: Path, harness: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    dead = free_port()
    monkeypatch.setenv("PI_LOCAL_MODEL_URLS", f"http://127.0.0.1:{dead},remote=http://192.0.2.10:8080/v1")
    monkeypatch.setenv("PI_OFFLINE", "1")
    runtime = ModelRuntime()
    extension = create_local_models_extension(LocalModelsOptions(settings=NO_AUTODISCOVERY))
    h = await harness(extension, tmp_path, apply_provider=runtime_applier(runtime))
    seen: list[Any] = []
    h.runner.bus.on(BUS_CHANNEL, seen.append)
    await h.start()
    assert f"local-{dead}" not in runtime.get_providers() and "remote" not in runtime.get_providers()
    summary = {entry["name"]: entry for entry in seen[0]}
    assert summary[f"local-{dead}"]["error"] == "not reachable (connection refused or no such host)"
    assert summary["remote"]["skipped"] == "offline (PI_OFFLINE) and not on this machine"
    assert h.errors == []


async def test_context_window_from_llama_cpp_props_and_ollama_show(metadata_server: Any) -> None:
    MetadataServer = metadata_server
    llama_routes = {
        ("GET", "/props"): {"default_generation_settings": {"n_ctx": 32768}, "modalities": {"vision": True}}
    }

    def show(body: Any) -> Any:
        if body["model"] == "qwen3:8b":
            return {"parameters": "temperature 0.7\nnum_ctx 8192", "capabilities": ["completion"]}
        return {"model_info": {"llama.context_length": 131072}, "capabilities": ["completion", "vision"]}

    ollama_routes = {("POST", "/api/show"): show}
    with (
        MetadataServer(["gguf-model"], llama_routes) as llama,
        MetadataServer(["qwen3:8b", "gemma3"], ollama_routes) as ollama,
    ):
        servers = [
            LocalServer("llama.cpp", f"{llama.url}/v1", "llama.cpp"),
            LocalServer("ollama", f"{ollama.url}/v1", "ollama"),
            LocalServer("pinned", f"{llama.url}/v1", "llama.cpp", context_window=4096, max_tokens=1024),
        ]
        # Ample: every server answers, so a loaded machine cannot turn this into a timing test.
        results = await discover(servers, timeout_s=30, offline=False)
    by_name = {r.server.name: r for r in results}
    gguf = by_name["llama.cpp"].models[0]
    assert (gguf["contextWindow"], gguf["maxTokens"], gguf["input"]) == (32768, 16384, ["text", "image"])
    qwen, gemma = by_name["ollama"].models
    assert (qwen["id"], qwen["contextWindow"], qwen["input"]) == ("qwen3:8b", 8192, ["text"])
    assert (gemma["contextWindow"], gemma["input"]) == (131072, ["text", "image"])
    pinned = by_name["pinned"].models[0]
    assert (pinned["contextWindow"], pinned["maxTokens"]) == (4096, 1024)


def test_configuration_sources_and_errors() -> None:
    settings = {
        "autodiscover": True,
        "timeoutMs": 500,
        "servers": [
            {"name": "llama.cpp", "baseUrl": "http://127.0.0.1:9090"},
            {"name": "studio", "baseUrl": "http://127.0.0.1:1234/v1"},
            {"name": "", "baseUrl": "http://x"},
            {"name": "bad", "baseUrl": "ftp://x"},
            {"name": "kind", "baseUrl": "http://127.0.0.1:1/v1", "kind": "tgi"},
        ],
    }
    config = load_local_models_config(settings, {"PI_LOCAL_MODEL_URLS": "http://127.0.0.1:8000, vl=http://h:5000/api"})
    names = {s.name: s for s in config.servers}
    # the configured llama.cpp replaces the default one; LM Studio's default URL is taken by "studio";
    # the env URL on vLLM's port replaces the vllm default
    assert sorted(names) == ["llama.cpp", "local-8000", "ollama", "studio", "vl"]
    assert names["llama.cpp"].base_url == "http://127.0.0.1:9090/v1"
    assert names["studio"].kind == "lmstudio" and names["local-8000"].kind == "vllm"
    assert names["vl"].base_url == "http://h:5000/api" and names["vl"].kind == "generic"
    assert config.timeout_s == 0.5
    assert config.errors == [
        'localModels.servers[2]: "name" must be a non-empty string',
        "localModels.servers[3]: not an http(s) URL: 'ftp://x'",
        'localModels.servers[4]: "kind" must be one of llama.cpp, ollama, lmstudio, vllm, generic',
    ]
    defaults = load_local_models_config(None, {})
    assert [(s.name, s.base_url) for s in defaults.servers] == [
        ("llama.cpp", "http://127.0.0.1:8080/v1"),
        ("ollama", "http://127.0.0.1:11434/v1"),
        ("lmstudio", "http://127.0.0.1:1234/v1"),
        ("vllm", "http://127.0.0.1:8000/v1"),
    ]


async def test_settings_are_read_from_the_global_settings_file(tmp_path: Path, agent_dir: Path, harness: Any) -> None:
    with FakeLLMServer(models=["m"]) as server:
        (agent_dir / "settings.json").write_text(
            json.dumps({"localModels": {"autodiscover": False, "servers": [{"name": "mine", "baseUrl": server.url}]}})
        )
        runtime = ModelRuntime()
        actions: list[Any] = []
        apply = runtime_applier(runtime)

        def record(action: Any) -> None:
            actions.append(action[:2])
            apply(action)

        h = await harness(create_local_models_extension(), tmp_path, apply_provider=record)
        await h.start()
        await h.start()  # a second session_start does not register twice
        assert runtime.find("mine", "m") is not None
        assert actions == [("register", "mine")]


async def test_a_server_without_models_is_not_registered(tmp_path: Path, metadata_server: Any) -> None:
    with metadata_server([], {}) as empty:
        [result] = await discover([LocalServer("empty", f"{empty.url}/v1")], timeout_s=2, offline=False)
    assert result.error == "the server lists no models" and not result.reachable


async def test_slow_metadata_keeps_the_models_with_defaults(metadata_server: Any) -> None:
    def slow_props(_body: Any) -> Any:
        time.sleep(0.5)
        return {"default_generation_settings": {"n_ctx": 4096}}

    with metadata_server(["m"], {("GET", "/props"): slow_props}) as server:
        [result] = await discover([LocalServer("slow", f"{server.url}/v1", "llama.cpp")], timeout_s=0.2, offline=False)
    assert result.reachable
    assert [(m["id"], m["contextWindow"]) for m in result.models] == [("m", 128_000)]


def test_llama_base_url_is_the_llama_cpp_server() -> None:
    environ = {"LLAMA_BASE_URL": "http://127.0.0.1:9090/", "LLAMA_API_KEY": "secret"}
    settings = {"servers": [{"name": "llama.cpp", "baseUrl": "http://127.0.0.1:7070"}]}
    config = load_local_models_config(settings, environ)
    names = {s.name: s for s in config.servers}
    # the environment replaces both the default :8080 server and a settings entry of that name
    assert [s.name for s in config.servers] == ["llama.cpp", "ollama", "lmstudio", "vllm"]
    assert (names["llama.cpp"].base_url, names["llama.cpp"].api_key) == ("http://127.0.0.1:9090/v1", "secret")
    assert names["llama.cpp"].kind == "llama.cpp" and config.errors == []
    # a server root and its /v1 form mean the same; autodiscovery off still honours it
    only = load_local_models_config({"autodiscover": False}, {"LLAMA_BASE_URL": "http://box:8080/v1"})
    assert [(s.name, s.base_url, s.api_key) for s in only.servers] == [("llama.cpp", "http://box:8080/v1", "local")]
    # without LLAMA_BASE_URL the key belongs to the default llama.cpp server only
    keyed = {s.name: s.api_key for s in load_local_models_config(None, {"LLAMA_API_KEY": "k"}).servers}
    assert keyed == {"llama.cpp": "k", "ollama": "local", "lmstudio": "local", "vllm": "local"}
    bad = load_local_models_config({"autodiscover": False}, {"LLAMA_BASE_URL": "ftp://x"})
    assert bad.servers == [] and bad.errors == ["LLAMA_BASE_URL: not an http(s) URL: 'ftp://x'"]


async def test_a_llama_cpp_router_offers_only_models_that_answer(metadata_server: Any) -> None:
    listing = {
        "data": [
            {"id": "loaded", "status": {"value": "loaded"}},
            {"id": "asleep", "status": {"value": "sleeping"}},
            {"id": "on-disk", "status": {"value": "unloaded"}, "source": "preset"},
            {"id": "file-only", "status": {"value": "unloaded"}, "source": "models_dir"},
            {"id": "broken", "status": {"value": "unloaded", "failed": True}, "source": "preset"},
            {"id": "busy", "status": {"value": "loading"}},
        ]
    }
    routes: dict[tuple[str, str], Any] = {("GET", "/v1/models"): listing, ("GET", "/props"): {"role": "router"}}
    autoload_routes = {**routes, ("GET", "/props"): {"role": "router", "models_autoload": True}}
    idle_routes = {("GET", "/v1/models"): {"data": [{"id": "on-disk", "status": {"value": "unloaded"}}]}}
    with (
        metadata_server([], routes) as manual,
        metadata_server([], autoload_routes) as autoload,
        metadata_server([], idle_routes) as idle,
    ):
        results = await discover(
            [
                LocalServer("manual", f"{manual.url}/v1", "llama.cpp"),
                LocalServer("autoload", f"{autoload.url}/v1", "llama.cpp"),
                LocalServer("idle", f"{idle.url}/v1", "llama.cpp"),
            ],
            timeout_s=2,
            offline=False,
        )
    by_name = {r.server.name: r for r in results}
    assert [m["id"] for m in by_name["manual"].models] == ["loaded", "asleep"]
    # a router that loads on demand also offers its presets, unless loading one failed
    assert [m["id"] for m in by_name["autoload"].models] == ["loaded", "asleep", "on-disk"]
    assert by_name["idle"].error == "the server has no model loaded" and not by_name["idle"].reachable


async def test_session_start_reuses_the_hosts_discovery_and_reload_probes_again(tmp_path: Path, harness: Any) -> None:
    with FakeLLMServer(models=["m"]) as server, FakeLLMServer(models=["n"]) as other:
        settings = {"autodiscover": False, "servers": [{"name": "box", "baseUrl": server.url}]}
        config = load_local_models_config(settings, {})
        startup = await run_discovery(config)
        assert server.probes == ["GET /v1/models", "GET /props"]
        runtime = ModelRuntime()
        assert register_discovered(runtime, startup) == []
        assert runtime.find("box", "m") is not None  # known before any session exists

        cache = DiscoveryCache(startup)
        live = {"servers": [{"name": "other", "baseUrl": other.url}], "autodiscover": False}
        extension = create_local_models_extension(LocalModelsOptions(settings=live, cache=cache))
        for _session in range(2):  # /new, /resume: a new runner, the same cache
            h = await harness(extension, tmp_path, apply_provider=runtime_applier(runtime))
            seen: list[Any] = []
            h.runner.bus.on(BUS_CHANNEL, seen.append)
            await h.start()
            assert [entry["name"] for entry in seen[0]] == ["box"]
        assert server.probes == ["GET /v1/models", "GET /props"] and other.probes == []

        h = await harness(extension, tmp_path, apply_provider=runtime_applier(runtime))
        await h.runner.emit("session_start", {"reason": "reload"})
        assert other.probes == ["GET /v1/models", "GET /props"]
        assert cache.latest is not None and [r.server.name for r in cache.latest.reachable] == ["other"]
        # the server that is no longer configured loses its provider
        assert runtime.find("other", "n") is not None and "box" not in runtime.get_providers()


async def test_without_a_host_discovery_the_first_session_probes_for_all(tmp_path: Path, harness: Any) -> None:
    with FakeLLMServer(models=["m"]) as server:
        settings = {"autodiscover": False, "servers": [{"name": "box", "baseUrl": server.url}]}
        extension = create_local_models_extension(LocalModelsOptions(settings=settings))
        for _session in range(3):
            runtime = ModelRuntime()
            h = await harness(extension, tmp_path, apply_provider=runtime_applier(runtime))
            await h.start()
            assert runtime.find("box", "m") is not None
        assert server.probes.count("GET /v1/models") == 1
