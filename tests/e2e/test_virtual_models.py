"""Virtual models end to end: a Python extension registers ``router/auto``; the installed ``pi``
routes each request to a physical model of the fake server and records what Pi 1.4 records.

The expected entries come from the real Pi 1.4.0 run with the same models.json and the same
router written in TypeScript (tests/fixtures/virtual_models/, ``router.ts``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _pi_env import PiEnv

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep, ToolCallStep

GOLDEN = json.loads((Path(__file__).parents[1] / "fixtures" / "virtual_models" / "pi14_route.json").read_text())

ROUTER = """
def extension(pi):
    def route(request, ctx):
        model_id = "big" if request["thinkingLevel"] == "high" else "small"
        state = request.get("state") or {}
        return {
            "model": ctx.model_registry.find("fake", model_id),
            "thinkingLevel": "medium",
            "state": {"n": state.get("n", 0) + 1, "reason": request["reason"]},
        }

    pi.register_virtual_model({
        "provider": "router", "id": "auto", "name": "Auto",
        "thinkingLevels": ["low", "high"], "contextWindow": 5000, "route": route,
    })
"""


def _setup(pi_env: PiEnv, settings: dict[str, Any] | None = None) -> None:
    pi_env.configure(
        extra=[
            {"id": "small", "name": "Small", "contextWindow": 1000, "maxTokens": 100, "reasoning": True},
            {"id": "big", "name": "Big", "contextWindow": 200000, "maxTokens": 8000, "reasoning": True},
        ],
        settings=settings,
    )
    (pi_env.cwd / "router.py").write_text(ROUTER)


def _facts(session: Path) -> list[dict[str, Any]]:
    """The entries as the golden keeps them (system messages and ids left out)."""
    facts: list[dict[str, Any]] = []
    for line in session.read_text().splitlines():
        entry = json.loads(line)
        kind = entry["type"]
        if kind == "message":
            message = entry["message"]
            if message["role"] == "system":
                continue
            fact = {"type": kind, "role": message["role"]}
            if message["role"] == "assistant":
                fact.update({k: message.get(k) for k in ("api", "provider", "model", "thinkingLevel", "stopReason")})
            facts.append(fact)
        elif kind == "model_change":
            facts.append({"type": kind, "provider": entry["provider"], "modelId": entry["modelId"]})
        elif kind == "thinking_level_change":
            facts.append({"type": kind, "thinkingLevel": entry["thinkingLevel"]})
        elif kind == "custom":
            facts.append({"type": kind, "customType": entry["customType"], "data": entry["data"]})
        elif kind == "compaction":
            facts.append({"type": kind})
    return facts


def test_request_goes_to_the_routed_model_and_the_session_records_it_as_pi_does(pi_env: PiEnv) -> None:
    _setup(pi_env)
    pi_env.server.push(ScriptedResponse(steps=[TextStep("small says hi")], usage={"input": 10, "output": 3}))
    result = pi_env.run("-e", "./router.py", "--model", "router/auto:low", "-p", "hello")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "small says hi"
    assert [r.json.get("model") for r in pi_env.server.requests] == ["small"]
    (session,) = pi_env.sessions()
    assert _facts(session) == GOLDEN["entries"]
    (state,) = [json.loads(line) for line in session.read_text().splitlines() if '"custom"' in line]
    assert list(state) == GOLDEN["custom_entry_keys"]


def test_a_tool_follow_up_is_routed_as_a_continuation_with_the_stored_state(pi_env: PiEnv) -> None:
    _setup(pi_env)
    pi_env.server.push(
        ScriptedResponse(
            steps=[ToolCallStep("bash", {"command": "echo hi"}, id="call_1")], usage={"input": 10, "output": 3}
        ),
        ScriptedResponse(steps=[TextStep("done")], usage={"input": 20, "output": 3}),
    )
    result = pi_env.run("-e", "./router.py", "--model", "router/auto:high", "-p", "run it")
    assert result.returncode == 0, result.stderr
    assert [r.json.get("model") for r in pi_env.server.requests] == ["big", "big"]
    (session,) = pi_env.sessions()
    # Pi's tool turn carries the tool result between the two responses.
    assert _facts(session) == GOLDEN["tool_turn"]["entries"]


def test_list_models_shows_the_virtual_model_as_pi_lists_it(pi_env: PiEnv) -> None:
    _setup(pi_env)
    result = pi_env.run("-e", "./router.py", "--list-models")
    assert result.returncode == 0, result.stderr
    # Cells, not padding: our models.json also lists ``fake-model``, which widens a column.
    rows = [line.split() for line in result.stdout.splitlines()]
    assert [row for row in rows if row[0] in ("provider", "router")] == [
        GOLDEN["list_models"][0].split(),
        GOLDEN["list_models"][-1].split(),
    ]


def _two_turns(pi_env: PiEnv, second_level: str, *responses: ScriptedResponse) -> list[dict[str, Any]]:
    """A first prompt answered by ``big`` with 950 input tokens, then a second prompt in the same
    session at ``second_level``; the facts of the session."""
    _setup(pi_env, settings={"compaction": {"reserveTokens": 100, "keepRecentTokens": 1}})
    pi_env.server.push(ScriptedResponse(steps=[TextStep("first")], usage={"input": 950, "output": 3}), *responses)
    first = pi_env.run("-e", "./router.py", "--model", "router/auto:high", "-p", "one")
    assert first.returncode == 0, first.stderr
    second = pi_env.run("-e", "./router.py", "-c", "--model", f"router/auto:{second_level}", "-p", "two")
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == "second"
    (session,) = pi_env.sessions()
    return _facts(session)


def test_compaction_is_judged_by_the_routed_models_window(pi_env: PiEnv) -> None:
    # 950 tokens fit big (200000) and the virtual model's declared 5000, but not small (1000,
    # threshold 900): the request routed to small compacts first, and the summary goes to small.
    facts = _two_turns(
        pi_env,
        "low",
        ScriptedResponse(steps=[TextStep("## Goal\nsummary")], usage={"input": 50, "output": 5}),
        ScriptedResponse(steps=[TextStep("second")], usage={"input": 60, "output": 3}),
    )
    assert [r.json.get("model") for r in pi_env.server.requests] == ["big", "small", "small"]
    assert {"type": "compaction"} in facts


def test_a_large_routed_window_does_not_compact(pi_env: PiEnv) -> None:
    facts = _two_turns(pi_env, "high", ScriptedResponse(steps=[TextStep("second")], usage={"input": 960, "output": 3}))
    assert [r.json.get("model") for r in pi_env.server.requests] == ["big", "big"]
    assert {"type": "compaction"} not in facts


def test_a_router_naming_an_unknown_model_ends_the_request_with_an_error(pi_env: PiEnv) -> None:
    _setup(pi_env)
    (pi_env.cwd / "bad.py").write_text(
        "def extension(pi):\n"
        "    pi.register_virtual_model({'provider': 'router', 'id': 'auto',\n"
        "        'route': lambda request, ctx: {'model': {'provider': 'fake', 'id': 'nope'}, 'thinkingLevel': 'off'}})\n"
    )
    result = pi_env.run("-e", "./bad.py", "--model", "router/auto", "-p", "hello")
    assert result.returncode == 1
    assert "Virtual model router/auto routed to fake/nope, which is not a physical model." in result.stderr
    assert pi_env.server.requests == []


def test_resuming_restores_the_virtual_selection_or_the_model_that_answered_last(pi_env: PiEnv) -> None:
    _setup(pi_env)
    pi_env.server.push(*(ScriptedResponse(steps=[TextStep(t)], usage={"input": 10, "output": 3}) for t in "abc"))
    assert pi_env.run("-e", "./router.py", "--model", "router/auto:low", "-p", "one").returncode == 0
    # Still registered: the selection holds across the physical responses and is routed again.
    resumed = pi_env.run("-e", "./router.py", "-c", "-p", "two")
    assert resumed.returncode == 0, resumed.stderr
    (session,) = pi_env.sessions()
    states = [f["data"]["state"] for f in _facts(session) if f["type"] == "custom"]
    assert states == [{"n": 1, "reason": "user"}, {"n": 2, "reason": "user"}]
    # Without the extension the session goes on with the model that answered last.
    plain = pi_env.run("-c", "-p", "three")
    assert plain.returncode == 0, plain.stderr
    assert [r.json.get("model") for r in pi_env.server.requests] == ["small", "small", "small"]
    assert len([f for f in _facts(session) if f["type"] == "custom"]) == 2


def test_json_mode_announces_the_state_entry_before_the_routed_response(pi_env: PiEnv) -> None:
    # Pi 1.4 prints the same sequence: user message_end, entry_appended (router state), then the
    # routed model's message_start.
    _setup(pi_env)
    pi_env.server.push(ScriptedResponse(steps=[TextStep("hi")]))
    result = pi_env.run("-e", "./router.py", "--model", "router/auto:low", "--mode", "json", "hello")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    labels = [
        f"{e['type']}:{e['message']['role']}" if "message" in e and e["type"].startswith("message_") else e["type"]
        for e in events
        if e["type"] not in ("message_update", "session")
    ]
    start = labels.index("message_end:user")
    assert labels[start : start + 3] == ["message_end:user", "entry_appended", "message_start:assistant"]
    appended = next(e for e in events if e["type"] == "entry_appended")["entry"]
    assert list(appended) == GOLDEN["custom_entry_keys"] and appended["data"]["state"] == {"n": 1, "reason": "user"}
