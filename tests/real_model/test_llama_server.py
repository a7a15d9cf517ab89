"""pi-harness against a real llama-server with a real small model (Qwen2.5-Coder-1.5B).

Opt-in (``scripts/test-real-model``); every request is kept short (a few output tokens) because
the model runs on shared CPU cores. What a model says varies, so the assertions are about what the
harness does with it: events, usage, stop reasons, error classification, session files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import httpx2
import pytest

from pi_harness.ai import SimpleStreamOptions, stream_simple
from pi_harness.ai.abort import AbortController
from pi_harness.ai.overflow import is_context_overflow
from pi_harness.ai.types import Context, Model

from .conftest import MODEL_ID, model_for

# The model runs on shared CPU cores: a single request may take minutes on a busy machine.
pytestmark = pytest.mark.timeout(1800)

PI = str(Path(sys.executable).parent / "pi")
TIMEOUT_S = 900  # per CLI run: the model is slow on a loaded machine


def ask(text: str, **extra: Any) -> Context:
    context: dict[str, Any] = {"messages": [{"role": "user", "content": text, "timestamp": 1}], **extra}
    return cast(Context, context)


async def run(model: Model, context: Context, **options: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    options.setdefault("temperature", 0.0)
    stream = stream_simple(model, context, SimpleStreamOptions(api_key="local", **options))
    events: list[dict[str, Any]] = []
    async for event in stream:
        events.append(dict(event))
    return events, dict(await stream.result())


async def test_streaming_text_with_usage(model: Model) -> None:
    events, message = await run(model, ask("Reply with the single word: pong"), max_tokens=8)
    kinds = [event["type"] for event in events]
    assert kinds[0] == "start" and kinds[-1] == "done" and "text_delta" in kinds
    assert message["stopReason"] in ("stop", "length"), message.get("errorMessage")
    text = "".join(block["text"] for block in message["content"] if block["type"] == "text")
    assert text.strip()
    usage = message["usage"]
    assert usage["input"] + usage["cacheRead"] > 5 and 0 < usage["output"] <= 8
    assert usage["totalTokens"] == usage["input"] + usage["output"] + usage["cacheRead"] + usage["cacheWrite"]


async def test_llama_cpp_sends_its_own_timings_with_the_usage(server_url: str) -> None:
    body = {
        "model": MODEL_ID,
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 4,
        "temperature": 0,
        "messages": [{"role": "user", "content": "Say hi"}],
    }
    chunks: list[dict[str, Any]] = []
    async with (
        httpx2.AsyncClient(timeout=600, trust_env=False) as client,
        client.stream("POST", f"{server_url}/v1/chat/completions", json=body) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        async for line in response.aiter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                chunks.append(json.loads(line[len("data: ") :]))
    assert all(chunk["id"].startswith("chatcmpl-") and chunk["object"] == "chat.completion.chunk" for chunk in chunks)
    last = chunks[-1]
    assert last["choices"] == []
    timings, usage = last["timings"], last["usage"]
    assert {"prompt_n", "prompt_ms", "predicted_n", "predicted_ms", "predicted_per_second", "cache_n"} <= set(timings)
    assert usage["completion_tokens"] == timings["predicted_n"]
    assert usage["prompt_tokens"] == timings["prompt_n"] + timings["cache_n"]
    assert usage["prompt_tokens_details"]["cached_tokens"] == timings["cache_n"]


READ_FILE = {
    "name": "read_file",
    "description": "Read a text file and return its content.",
    "parameters": {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "File path"}},
        "required": ["path"],
    },
}


async def test_a_tool_call_round_trip(model: Model) -> None:
    context = ask("Use the read_file tool to read notes.txt.", tools=[READ_FILE])
    _, message = await run(model, context, max_tokens=60)
    assert message["stopReason"] == "toolUse", message["content"]
    [call] = [block for block in message["content"] if block["type"] == "toolCall"]
    assert call["name"] == "read_file" and "notes.txt" in str(call["arguments"].get("path"))
    context["messages"].append(message)  # type: ignore[arg-type]
    context["messages"].append(
        {
            "role": "toolResult",
            "toolCallId": call["id"],
            "toolName": "read_file",
            "content": [{"type": "text", "text": "The secret number is 4817."}],
            "isError": False,
            "timestamp": 2,
        }
    )
    context["messages"].append({"role": "user", "content": "What is the secret number?", "timestamp": 3})
    _, answer = await run(model, context, max_tokens=24)
    assert answer["stopReason"] in ("stop", "length"), answer.get("errorMessage")
    assert "4817" in "".join(block.get("text", "") for block in answer["content"])


async def test_abort_mid_stream(model: Model) -> None:
    controller = AbortController()
    stream = stream_simple(
        model,
        ask("Count from 1 to 300, one number per line."),
        SimpleStreamOptions(api_key="local", max_tokens=300, temperature=0.0, signal=controller.signal),
    )
    deltas = 0
    events: list[str] = []
    async for event in stream:
        events.append(event["type"])
        if event["type"] == "text_delta":
            deltas += 1
            if deltas == 3:
                controller.abort()
    message = await stream.result()
    assert events[-1] == "error" and message["stopReason"] == "aborted"
    assert message["usage"]["output"] < 300


async def test_an_oversized_request_is_a_context_overflow(tiny_url: str) -> None:
    model = model_for(tiny_url, contextWindow=32768)
    _, message = await run(model, ask("word " * 3000), max_tokens=4)
    assert message["stopReason"] == "error"
    assert "exceeds the available context size" in message["errorMessage"]
    assert is_context_overflow(message, 32768)  # type: ignore[arg-type]


def pi(agent: Path, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent), "HOME": str(agent.parent), "PI_OFFLINE": "1"}
    env.pop("LLAMA_BASE_URL", None)
    return subprocess.run(
        [PI, "--model", f"llama-real/{MODEL_ID}", "--no-tools", "--system-prompt", "You are terse.", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def agent_dir(
    tmp_path: Path, url: str, context_window: int, settings: dict[str, Any] | None = None, max_tokens: int = 48
) -> Path:
    agent = tmp_path / "home" / "agent"
    agent.mkdir(parents=True)
    entry = dict(model_for(url, contextWindow=context_window, maxTokens=max_tokens))
    for key in ("provider", "baseUrl", "api"):
        entry.pop(key)
    provider = {"baseUrl": f"{url}/v1", "api": "openai-completions", "apiKey": "local", "models": [entry]}
    (agent / "models.json").write_text(json.dumps({"providers": {"llama-real": provider}}))
    all_settings = {"localModels": {"autodiscover": False}, **(settings or {})}
    (agent / "settings.json").write_text(json.dumps(all_settings))
    (tmp_path / "project").mkdir()
    return agent


def entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_multi_turn_session_file(tmp_path: Path, server_url: str) -> None:
    agent = agent_dir(tmp_path, server_url, 8192)
    project = tmp_path / "project"
    session = tmp_path / "chat.jsonl"
    first = pi(agent, project, "--session", str(session), "-p", "My name is Zorbak. Reply only: OK")
    assert first.returncode == 0, first.stderr
    second = pi(agent, project, "--session", str(session), "-p", "What is my name? Answer with the name only.")
    assert second.returncode == 0, second.stderr
    assert "Zorbak" in second.stdout
    # (the transcript also records the system prompt, as a ``system`` message)
    messages = [e["message"] for e in entries(session) if e["type"] == "message" and e["message"]["role"] != "system"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    for reply in messages[1::2]:
        assert reply["provider"] == "llama-real" and reply["model"] == MODEL_ID
        assert reply["stopReason"] in ("stop", "length") and reply["usage"]["output"] > 0
    assert entries(session)[0]["type"] == "session"


def test_overflow_on_a_tiny_context_compacts_and_answers(tmp_path: Path, tiny_url: str) -> None:
    # The model entry claims a large window, so only the server's own refusal reveals the limit.
    settings = {"compaction": {"reserveTokens": 200, "keepRecentTokens": 100}}
    # The summary is capped by the model's maxTokens (as in Pi) and one cut off there fails the
    # compaction: leave it room. The summary prompt (~1060 tokens) plus 400 still fit in 1536.
    agent = agent_dir(tmp_path, tiny_url, 32768, settings, max_tokens=400)
    project = tmp_path / "project"
    session = tmp_path / "long.jsonl"
    filler = " ".join(f"item{i}" for i in range(220))  # about 790 tokens: two do not fit in 1536
    first = pi(agent, project, "--session", str(session), "-p", f"Here is a list: {filler}. Reply only: OK")
    assert first.returncode == 0, first.stderr
    second = pi(agent, project, "--session", str(session), "-p", f"Another list: {filler}. Reply only: DONE")
    kinds = [e["type"] for e in entries(session)]
    assert "compaction" in kinds, (kinds, second.stderr)
    errors = [
        e["message"].get("errorMessage", "")
        for e in entries(session)
        if e["type"] == "message" and e["message"]["role"] == "assistant"
    ]
    assert any("exceeds the available context size" in error for error in errors) or "compaction" in kinds
    last = [e["message"] for e in entries(session) if e["type"] == "message"][-1]
    assert last["role"] == "assistant" and last["stopReason"] in ("stop", "length"), (last, second.stderr)
