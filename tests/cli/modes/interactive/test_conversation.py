"""A conversation on the interactive screen: prompt, streamed answer, tool calls, the footer."""

from __future__ import annotations

from pathlib import Path

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

from .harness import run_pi


async def test_a_prompt_streams_the_answer_and_the_tool_output_into_the_scrollback(
    server: FakeLLMServer, project: Path
) -> None:
    server.push(
        ScriptedResponse(steps=[TextStep("Let me check."), ToolCallStep("bash", {"command": "echo tool-output-123"})]),
        ScriptedResponse(steps=[TextStep("The answer is **42**.")]),
    )
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("What is the answer?")
        await pi.wait_for(lambda: "The answer is 42." in pi.scrollback(), "the answer in the scrollback")
        text = pi.scrollback()
        assert (
            text.index("What is the answer?") < text.index("$ echo tool-output-123") < text.index("The answer is 42.")
        )
        assert "tool-output-123" in text.split("$ echo tool-output-123", 1)[1]
        await pi.idle()
        assert "↑20 ↓10" in pi.screen()  # two responses of 10 input and 5 output tokens each
        assert await pi.quit() == 0
    assert len(server.requests) == 2
    tool_result = server.requests[1].json["messages"][-1]
    assert tool_result["role"] == "tool" and "tool-output-123" in str(tool_result["content"])


async def test_a_prompt_that_cannot_be_sent_stays_in_the_editor(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    (agent_dir / "models.json").write_text('{"providers": {}}')  # no model has credentials
    (agent_dir / "settings.json").write_text("{}")
    async with run_pi() as pi:
        await pi.started()
        assert "No model is available" in pi.scrollback()
        await pi.submit("Hello?")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "Hello?", "the prompt back in the editor")
        await pi.wait_for(lambda: "No model selected" in pi.scrollback(), "the reason")
    assert server.requests == []
