"""The next run's first request, rehearsed at the end of ``pi --session FILE -p PROMPT``
(``cli/early_request/rehearsal.py``), over real ``pi`` processes and the loopback fake LLM server.

The next run of the same command continues the session this run left, so its first request is
this run's history and exchange plus the new prompt: the session builds it once it has answered,
the transport hands its bytes over without sending them, and the next run sends it ahead. What
the server answers is still always the session's own request.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from _early_world import World, echo, last_user_text, make_world

from pi_harness import early_exchange
from pi_harness.ai import http_transport, light_http
from pi_harness.cli.early_request.rehearsal import MAX_MISSES
from pi_harness.testing.fake_llm import FakeLLMServer, RecordedRequest, ScriptedResponse, TextStep, ToolCallStep


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with FakeLLMServer(default=echo) as server:
        yield make_world(tmp_path / "w", server)


def _session_prompts(session: Path) -> list[str]:
    prompts: list[str] = []
    for line in session.read_text().splitlines():
        entry = json.loads(line)
        message = entry.get("message") or {}
        if entry.get("type") == "message" and message.get("role") == "user":
            content = message["content"]
            prompts.append(content if isinstance(content, str) else "".join(p.get("text", "") for p in content))
    return prompts


def _roles(request: RecordedRequest) -> list[str]:
    messages = request.json["messages"]
    assert isinstance(messages, list)
    return [str(message["role"]) for message in messages]


def _continue(world: World, session: Path, prompt: str, **env: str) -> RecordedRequest:
    """One ``pi --session FILE -p prompt`` run: its one request (nothing else reached the server)."""
    world.server.clear()
    result = world.pi("--session", str(session), "-p", prompt, **env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"answer to {prompt}"
    [request] = world.server.requests
    return request


def test_each_run_sends_the_request_the_previous_run_rehearsed(world: World) -> None:
    session = world.project.parent / "chat.jsonl"
    _continue(world, session, "first")
    assert world.record()["adopted"] == 0

    for number, prompt in enumerate(["second", "third"], start=1):
        request = _continue(world, session, prompt)
        assert last_user_text(request) == prompt
        assert world.record()["adopted"] == number  # the request sent ahead was the session's own
    # The history went along each time: three prompts, two answers before the last prompt.
    assert _roles(request) == ["system", "user", "assistant", "user", "assistant", "user"]
    assert _session_prompts(session) == ["first", "second", "third"]


def test_the_adopted_request_is_the_bytes_the_session_sends_without_it(world: World, tmp_path: Path) -> None:
    session = world.project.parent / "chat.jsonl"
    _continue(world, session, "first")
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(session.read_bytes())
    ahead = _continue(world, session, "same words")
    assert world.record()["adopted"] == 1
    plain = _continue(world, copy, "same words", PI_EARLY_REQUEST="0")
    assert ahead.raw_body.replace(str(session).encode(), b"") == plain.raw_body.replace(str(copy).encode(), b"")


def test_a_history_with_tool_calls_is_rehearsed_too(world: World) -> None:
    (world.project / "notes.txt").write_text("a note\n")
    session = world.project.parent / "chat.jsonl"
    world.server.push(ScriptedResponse(steps=[ToolCallStep("read", {"path": "notes.txt"}, id="call_1")]))
    world.server.push(ScriptedResponse(steps=[TextStep("answer to read it")]))
    result = world.pi("--session", str(session), "-p", "read it")
    assert result.returncode == 0, result.stderr

    request = _continue(world, session, "and then")
    assert _roles(request) == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert world.record()["adopted"] == 1


def test_a_session_changed_between_runs_is_not_answered_by_the_rehearsed_request(world: World) -> None:
    session = world.project.parent / "chat.jsonl"
    _continue(world, session, "first")
    _continue(world, session, "elsewhere", PI_EARLY_REQUEST="0")  # the session moved on meanwhile

    request = _continue(world, session, "third")
    assert _roles(request) == ["system", "user", "assistant", "user", "assistant", "user"]
    assert world.record()["adopted"] == 0  # recorded anew, from what this run found


def test_after_repeated_mismatches_nothing_more_is_rehearsed(world: World) -> None:
    session = world.project.parent / "chat.jsonl"
    _continue(world, session, "first")
    for attempt in range(1, MAX_MISSES + 1):
        record = world.record()
        body = record["body"]
        assert isinstance(body, list) and "expert" in body[0]
        world.write_record({**record, "body": [body[0].replace("expert", "TAMPERED"), body[1]]})
        world.server.clear()
        result = world.pi("--session", str(session), "-p", f"attempt {attempt}")
        assert result.stdout.strip() == f"answer to attempt {attempt}"  # never the tampered request's
        assert len([r for r in world.server.requests if b"TAMPERED" not in r.raw_body]) == 1
        assert world.record()["misses"] == attempt
    assert world.record()["disabled"] is True

    request = _continue(world, session, "from now on")  # nothing sent ahead any more
    assert b"TAMPERED" not in request.raw_body
    assert world.record()["disabled"] is True


def test_a_transport_that_cannot_show_its_bytes_sends_nothing_while_rehearsing() -> None:
    url = "http://user@127.0.0.1:9/v1"  # user info: the request would go through httpx2
    assert not light_http.usable_for(url)
    seen: list[bytes] = []
    early_exchange.rehearse(lambda key, data: seen.append(data))
    try:
        with pytest.raises(light_http.ConnectError, match="cannot show its bytes"):
            asyncio.run(http_transport.send_post(url, {}, b"{}", read_timeout_s=1))
    finally:
        early_exchange.discard()
    assert seen == [] and not early_exchange.rehearsing()


def test_json_mode_rehearses_as_print_mode_does(world: World) -> None:
    session = world.project.parent / "chat.jsonl"
    for number, prompt in enumerate(["first", "second", "third"]):
        world.server.clear()
        result = world.pi("--session", str(session), "--mode", "json", prompt)
        assert result.returncode == 0, result.stderr
        assert f"answer to {prompt}" in result.stdout
        assert [last_user_text(r) for r in world.server.requests] == [prompt]
        assert world.record()["adopted"] == number
