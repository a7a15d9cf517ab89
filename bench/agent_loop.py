"""Agent-loop overhead with a zero-latency model.

One run of N turns; every turn the faux model asks for three no-op tools (executed in parallel),
then a final answer ends the run. Prints microseconds per turn and per tool call, for:

* ``full``: the whole run, context growing to 4N messages (includes the faux provider's own
  per-request work, which is proportional to the context size);
* ``windowed``: the same run with a ``transform_context`` that sends only the last 8 messages,
  which keeps the model side constant, so the figure is close to the harness's own cost;
* ``model only``: the faux provider streaming the same responses with no agent around it, once
  with the context growing as in the full run and once with a constant context; subtracting
  them from the figures above gives the harness's own overhead.

    .venv/bin/python bench/agent_loop.py [--turns 1000] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import time
from typing import Any

from pi_harness.agent import Agent, AgentOptions, AgentTool, AgentToolResult
from pi_harness.ai import SimpleStreamOptions, stream_simple
from pi_harness.ai.providers.faux import FauxProvider, FauxResponse, faux_response, faux_text, faux_tool_call

TOOLS_PER_TURN = 3
NOOP_RESULT: AgentToolResult = {"content": [{"type": "text", "text": "ok"}]}
SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}}


async def noop(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
    return NOOP_RESULT


def script(faux: FauxProvider, turns: int) -> None:
    """Callables build each response when it is requested (ids unique per turn)."""

    def tool_turn(turn: int) -> Any:
        def build(context: Any, options: Any) -> FauxResponse:
            calls = [faux_tool_call("noop", {"n": i}, f"t{turn}_{i}") for i in range(TOOLS_PER_TURN)]
            return faux_response(*calls, usage={"input": 10, "output": 10})

        return build

    faux.push(*(tool_turn(t) for t in range(turns)))
    faux.push(lambda context, options: faux_text("done", usage={"input": 10, "output": 10}))


async def run_agent(turns: int, *, windowed: bool) -> float:
    faux = FauxProvider()
    script(faux, turns)
    tool = AgentTool(name="noop", label="Noop", description="Does nothing.", parameters=SCHEMA, execute=noop)
    options = AgentOptions(initial_state={"model": faux.model, "tools": [tool]})
    if windowed:
        options.transform_context = lambda messages, signal: messages[-8:]
    agent = Agent(options)
    events = 0

    def count(event: Any) -> None:
        nonlocal events
        events += 1

    agent.subscribe(count)
    started = time.perf_counter()
    await agent.prompt("go")
    elapsed = time.perf_counter() - started
    faux.close()
    expected = 1 + turns * (1 + TOOLS_PER_TURN) + 1
    assert len(agent.state.messages) == expected, (len(agent.state.messages), agent.state.error)
    return elapsed


async def run_model_only(turns: int, *, growing: bool) -> float:
    """The faux provider alone; ``growing`` replays the context growth of the full run."""
    faux = FauxProvider()
    script(faux, turns)
    messages: list[Any] = [{"role": "user", "content": "go", "timestamp": 0}]
    context: Any = {"systemPrompt": "", "messages": messages}
    started = time.perf_counter()
    for _ in range(turns + 1):
        stream = stream_simple(faux.model, context, SimpleStreamOptions())
        async for _event in stream:
            pass
        message = await stream.result()
        if growing:
            messages.append(message)
            for block in message["content"]:
                if block["type"] == "toolCall":
                    messages.append(
                        {
                            "role": "toolResult",
                            "toolCallId": block["id"],
                            "toolName": "noop",
                            "content": NOOP_RESULT["content"],
                            "isError": False,
                            "timestamp": 0,
                        }
                    )
    elapsed = time.perf_counter() - started
    faux.close()
    return elapsed


def report(label: str, seconds: float, turns: int) -> None:
    per_turn = seconds / (turns + 1) * 1e6
    per_call = seconds / (turns * TOOLS_PER_TURN) * 1e6
    print(f"{label:<14} {seconds * 1000:9.1f} ms total  {per_turn:8.1f} us/turn  {per_call:8.1f} us/tool call")


async def main(turns: int) -> None:
    await run_agent(50, windowed=True)  # warm up imports and caches
    full = await run_agent(turns, windowed=False)
    windowed = await run_agent(turns, windowed=True)
    model_growing = await run_model_only(turns, growing=True)
    model_constant = await run_model_only(turns, growing=False)
    print(f"{turns} turns x {TOOLS_PER_TURN} parallel no-op tools, zero-latency faux model")
    report("full run", full, turns)
    report("  model only", model_growing, turns)
    report("  harness", max(full - model_growing, 0.0), turns)
    report("windowed run", windowed, turns)
    report("  model only", model_constant, turns)
    report("  harness", max(windowed - model_constant, 0.0), turns)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--profile", action="store_true", help="profile the windowed run instead")
    args = parser.parse_args()
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        asyncio.run(run_agent(args.turns, windowed=True))
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
    else:
        asyncio.run(main(args.turns))
