"""One scripted tool call through ``pi --mode rpc``: its result and the process's peak memory."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _pi_env import PiEnv
from _rpc_client import RpcClient

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep, ToolCallStep

StartRpc = Callable[..., RpcClient]


def peak_rss_kb(pid: int) -> int:
    """``VmHWM``: the most resident memory the process has had so far."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc status")


@dataclass
class ToolRun:
    result: dict[str, Any]  # the tool_execution_end result: content, details
    is_error: bool
    peak_growth_kb: int  # peak RSS during the call over the peak before it
    client: RpcClient

    @property
    def text(self) -> str:
        return "".join(block.get("text", "") for block in self.result["content"] if block["type"] == "text")


def run_tool(
    pi_env: PiEnv, start_rpc: StartRpc, name: str, arguments: dict[str, Any], *args: str, timeout: float = 60
) -> ToolRun:
    """Script one call of ``name`` and a closing text, run it in RPC mode, return what it gave."""
    pi_env.server.push(ScriptedResponse(steps=[ToolCallStep(name, arguments, id="call_1")]))
    pi_env.server.push(ScriptedResponse(steps=[TextStep("done")]))
    client = start_rpc(*args)
    assert client.request("get_state")["success"] is True
    before = peak_rss_kb(client.process.pid)
    start = client.mark()
    assert client.request("prompt", message="go")["success"] is True
    end = client.wait_event("tool_execution_end", start=start, timeout=timeout)
    client.wait_event("agent_settled", start=start, timeout=timeout)
    growth = peak_rss_kb(client.process.pid) - before
    return ToolRun(end["result"], bool(end["isError"]), growth, client)
