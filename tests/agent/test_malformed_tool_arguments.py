"""A tool call whose final arguments are not a JSON object never runs, over real HTTP.

Repairing a cut-off argument text is for showing it while it streams; running the repaired
guess could do something the model never asked for (here: delete a directory).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _agent_helpers import Recorder

from pi_harness.agent import Agent, AgentOptions
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.coding.tools import create_bash_tool
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

CUT_OFF = '{"command": "rm -rf keep; echo x'


@pytest.mark.parametrize("api", ["openai-completions", "anthropic-messages"])
async def test_cut_off_arguments_are_refused_with_the_raw_text(api: str, tmp_path: Path) -> None:
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "file").write_text("precious")
    script = [
        ScriptedResponse(steps=[ToolCallStep("bash", {}, id="call_1", chunks=4, raw_arguments=CUT_OFF)]),
        ScriptedResponse(steps=[TextStep("ok")]),
    ]
    with FakeLLMServer(script) as server:
        state: dict[str, Any] = {"model": server.model(api), "tools": [create_bash_tool(str(tmp_path))]}
        agent = Agent(AgentOptions(initial_state=state, stream_options=SimpleStreamOptions(api_key="k")))  # type: ignore[arg-type]
        rec = Recorder(agent)
        await agent.prompt("clean up")
    assert (keep / "file").read_text() == "precious"
    end = rec.of("tool_execution_end")[0]
    assert end["isError"] is True and "durationMs" not in end
    text = end["result"]["content"][0]["text"]
    assert text.startswith('Invalid arguments for tool "bash": ')
    assert text.endswith(f"\n\nReceived arguments:\n{CUT_OFF}")
    call = rec.of("message_end")[1]["message"]["content"][0]
    assert call["arguments"] == {} and call["argumentsError"].endswith(CUT_OFF)
