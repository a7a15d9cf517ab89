"""Automatic compaction at the check points and its extension events (compaction.md 3, 7, 10)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _agent_session_helpers import Recorder, Router, make_session, request_texts

from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.testing.fake_llm import FakeLLMServer, HTTPErrorSpec, ScriptedResponse, TextStep, ToolCallStep

SMALL = {"contextWindow": 2000}
SETTINGS = {"compaction": {"reserveTokens": 500, "keepRecentTokens": 1}}


def events_of(log: list[tuple[str, Any]], name: str) -> list[Any]:
    return [payload for kind, payload in log if kind == name]


def watcher(log: list[tuple[str, Any]]) -> Any:
    def extension(pi: ExtensionAPI) -> None:
        for name in ("session_before_compact", "session_compact", "session_compact_failed"):

            def handler(event: Any, ctx: Any, name: str = name) -> None:
                log.append((name, event.to_dict()))

            pi.on(name, handler)

    return extension


async def test_threshold_compaction_after_a_run(server: FakeLLMServer, project: Path) -> None:
    log: list[tuple[str, Any]] = []
    server.default = Router(
        [
            ScriptedResponse(steps=[TextStep("warming up")], usage={"input": 100, "output": 10}),
            ScriptedResponse(steps=[TextStep("big answer")], usage={"input": 1600, "output": 10}),
            ScriptedResponse(steps=[TextStep("after")]),
        ],
        summary=ScriptedResponse(steps=[TextStep("## Goal\nthreshold summary")]),
    )
    result = await make_session(
        server,
        project,
        model=server.model("openai-completions", **SMALL),
        settings=SETTINGS,
        extension_factories=[watcher(log)],
    )
    session = result.session
    recorder = Recorder(session)
    await session.prompt("one")
    assert recorder.of("compaction_start") == []
    await session.prompt("two")

    assert recorder.trace()[-4:] == [
        "agent_end",
        "compaction_start:threshold",
        "compaction_end:threshold",
        "agent_settled",
    ]
    end = recorder.of("compaction_end")[0]
    assert end["willRetry"] is False and end["result"]["summary"].startswith("## Goal\nthreshold summary")
    before = events_of(log, "session_before_compact")[0]
    assert before["reason"] == "threshold" and before["willRetry"] is False and before["branchEntries"]
    assert events_of(log, "session_compact")[0]["fromExtension"] is False
    assert [m["role"] for m in session.get_messages()[:2]] == ["system", "compactionSummary"]
    await session.prompt("three")
    last = request_texts(server.requests[-1])
    assert last[1].startswith("user:The conversation before this point was condensed") and last[-1] == "user:three"
    await result.runtime.shutdown()


async def test_failed_auto_compaction_is_reported(server: FakeLLMServer, project: Path) -> None:
    log: list[tuple[str, Any]] = []
    server.default = Router(
        [
            ScriptedResponse(steps=[TextStep("a")], usage={"input": 100, "output": 10}),
            ScriptedResponse(steps=[TextStep("b")], usage={"input": 1600, "output": 10}),
        ],
        summary=ScriptedResponse(http_error=HTTPErrorSpec(400, "bad summary request")),
    )
    result = await make_session(
        server,
        project,
        model=server.model("openai-completions", **SMALL),
        settings=SETTINGS,
        extension_factories=[watcher(log)],
    )
    recorder = Recorder(result.session)
    await result.session.prompt("one")
    await result.session.prompt("two")
    end = recorder.of("compaction_end")[0]
    assert "result" not in end and end["errorMessage"].startswith("Auto-compaction failed: ")
    # (A split turn asks for two summaries at once; either failure may be the one reported.)
    assert (
        end["errorMessage"]
        .lower()
        .endswith(
            'summarization failed: 400: {"message":"bad summary request",'
            '"type":"invalid_request_error","param":null,"code":null}'
        )
    )
    failed = events_of(log, "session_compact_failed")[0]
    assert failed["reason"] == "threshold" and failed["errorMessage"] == end["errorMessage"]
    assert recorder.of("agent_settled") == [{"type": "agent_settled", "aborted": False}] * 2
    await result.runtime.shutdown()


async def test_extension_can_cancel_or_supply_the_compaction(server: FakeLLMServer, project: Path) -> None:
    def custom(pi: ExtensionAPI) -> None:
        @pi.on("session_before_compact")
        def before(event: Any, ctx: Any) -> Any:
            preparation = event.preparation
            return {
                "compaction": {
                    "summary": "Summary written by the extension",
                    "firstKeptEntryId": preparation.first_kept_entry_id,
                    "tokensBefore": preparation.tokens_before,
                }
            }

    server.push(
        ScriptedResponse(steps=[TextStep("a")], usage={"input": 100, "output": 10}),
        ScriptedResponse(steps=[TextStep("b")], usage={"input": 1600, "output": 10}),
    )
    result = await make_session(
        server,
        project,
        model=server.model("openai-completions", **SMALL),
        settings=SETTINGS,
        extension_factories=[custom],
    )
    await result.session.prompt("one")
    await result.session.prompt("two")
    assert len(server.requests) == 2  # no summary request
    compaction = next(e for e in result.session.session_manager.get_entries() if e["type"] == "compaction")
    assert compaction["summary"] == "Summary written by the extension" and compaction["fromHook"] is True
    await result.runtime.shutdown()


async def test_mid_run_compaction_before_the_next_turn(server: FakeLLMServer, project: Path) -> None:
    server.default = Router(
        [
            ScriptedResponse(steps=[TextStep("first " * 20)], usage={"input": 100, "output": 10}),
            ScriptedResponse(
                steps=[ToolCallStep("bash", {"command": "echo big"}, id="c1")], usage={"input": 1600, "output": 10}
            ),
            ScriptedResponse(steps=[TextStep("finished")], usage={"input": 300, "output": 10}),
        ],
        summary=ScriptedResponse(steps=[TextStep("## Goal\nmid-run summary")]),
    )
    # Keep only the running turn's tail: the cut lands on the tool-calling assistant message.
    settings = {"compaction": {"reserveTokens": 500, "keepRecentTokens": 5}}
    result = await make_session(server, project, model=server.model("openai-completions", **SMALL), settings=settings)
    session = result.session
    recorder = Recorder(session)
    await session.prompt("one")
    recorder.clear()
    await session.prompt("two")

    trace = recorder.trace()
    assert trace.count("agent_start") == 1  # compacted inside the run
    start = trace.index("compaction_start:threshold")
    # Check point 2 runs before the next turn starts.
    assert trace[start - 1 : start + 4] == [
        "turn_end",
        "compaction_start:threshold",
        "compaction_end:threshold",
        "turn_start",
        "message_start:assistant",
    ]
    resumed = request_texts(server.requests[-1])
    assert resumed[1].startswith("user:The conversation before this point was condensed")
    assert resumed[-1] == "tool:big\n"
    assert session.get_last_assistant_text() == "finished"
    await result.runtime.shutdown()


async def test_a_length_stop_on_a_first_prompt_only_hides_the_attempt(server: FakeLLMServer, project: Path) -> None:
    # As in Pi 1.4.0: the truncated response is hidden (a context_edit, announced), and since
    # nothing is left to summarise no compaction starts and nothing is retried.
    log: list[tuple[str, Any]] = []
    server.push(ScriptedResponse(steps=[TextStep("This essay begins and then")], stop_reason="length"))
    result = await make_session(server, project, extension_factories=[watcher(log)])
    session = result.session
    recorder = Recorder(session)
    await session.prompt("Write a long essay")

    assert recorder.of("compaction_start") == [] and recorder.of("compaction_end") == []
    assert log == []
    appended = [e["entry"] for e in recorder.of("entry_appended")]
    assert [e["type"] for e in appended] == ["context_edit"]
    assert appended[0]["replacement"] is None
    assert recorder.trace()[-2:] == ["agent_end", "agent_settled"]
    assert len(server.requests) == 1
    await result.runtime.shutdown()
