"""While the agent works: Enter steers, Alt+Enter queues a follow-up, Escape aborts and gives the
queued messages back to the editor, Alt+Up pulls them back without aborting."""

from __future__ import annotations

from pathlib import Path

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

from .harness import run_pi

# The tool call waits for a file the test creates, so the steering is queued while it runs.
WAIT_FOR_GO = "while [ ! -f go ]; do sleep 0.02; done; echo tool finished"


def _user_texts(body: dict[str, object]) -> list[str]:
    texts = []
    for message in body.get("messages") or []:  # type: ignore[union-attr]
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            texts.append(content if isinstance(content, str) else " ".join(str(p.get("text")) for p in content))
    return texts


async def test_enter_while_a_tool_runs_steers_the_next_request(server: FakeLLMServer, project: Path) -> None:
    server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": WAIT_FOR_GO})]),
        ScriptedResponse(steps=[TextStep("Switching to yarn.")]),
    )
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("Install the dependencies")
        await pi.wait_for(lambda: "$ while" in pi.screen(), "the running tool call")
        await pi.submit("use yarn")
        await pi.wait_for(lambda: "Steering: use yarn" in pi.screen(), "the queued steering message")
        assert pi.mode.session.get_steering_messages() == ["use yarn"]
        (project / "go").write_text("")
        await pi.wait_for(lambda: "Switching to yarn." in pi.scrollback(), "the answer to the steering")
        await pi.idle()
        assert "Steering:" not in pi.screen()
    assert len(server.requests) == 2
    assert _user_texts(server.requests[1].json)[-1] == "use yarn"
    assert server.requests[1].json["messages"][-2]["role"] == "tool"  # after the tool result, not instead of it


async def test_escape_aborts_and_returns_queued_messages_to_the_editor(server: FakeLLMServer, project: Path) -> None:
    words = " ".join(f"word{n}" for n in range(60))
    server.push(ScriptedResponse(steps=[TextStep(words, chunks=60)], chunk_delay_ms=50))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("Write a long text")
        await pi.wait_for(lambda: "word3" in pi.screen(), "the answer streaming")
        pi.type("and then summarise it")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "and then summarise it", "the follow-up typed")
        await pi.press("alt+enter")
        await pi.wait_for(lambda: "Follow-up: and then summarise it" in pi.screen(), "the queued follow-up")
        await pi.press("escape")
        await pi.idle()
        assert pi.mode.shell.editor.text == "and then summarise it"
        assert pi.mode.session.get_follow_up_messages() == []
        last = pi.mode.session.get_messages()[-1]
        assert last["role"] == "assistant" and last.get("stopReason") == "aborted"
        await pi.wait_for(lambda: "aborted" in pi.scrollback().lower(), "the abort notice in the scrollback")
        assert "word59" not in pi.scrollback()
    assert len(server.requests) == 1


async def test_alt_up_pulls_queued_messages_back_without_stopping(server: FakeLLMServer, project: Path) -> None:
    server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": WAIT_FOR_GO})]),
        ScriptedResponse(steps=[TextStep("Done.")]),
    )
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("Build it")
        await pi.wait_for(lambda: "$ while" in pi.screen(), "the running tool call")
        await pi.submit("actually, use make")
        await pi.wait_for(lambda: "Steering: actually, use make" in pi.screen(), "the queued steering")
        await pi.press("alt+up")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "actually, use make", "the message back in the editor")
        assert pi.mode.session.pending_message_count == 0
        (project / "go").write_text("")
        await pi.wait_for(lambda: "Done." in pi.scrollback(), "the end of the run")
    assert "actually, use make" not in _user_texts(server.requests[1].json)
