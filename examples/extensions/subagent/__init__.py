"""subagent: delegate tasks to specialised agents running in separate pi processes.

The ``subagent`` tool starts ``pi --mode json -p --no-session`` children, each with a fresh
context, the agent's model, tools and system prompt (``agents.py``), and returns their final
answers. Three modes, exactly one per call:

* single - ``{"agent": "scout", "task": "..."}``;
* parallel - ``{"tasks": [{"agent", "task", "cwd"?}, ...]}``: at most 8 tasks, 4 at a time;
* chain - ``{"chain": [{"agent", "task", "cwd"?}, ...]}``: one after another, ``{previous}`` in
  a task is replaced by the previous step's answer; the chain stops at the first failure.

Agents come from ``<agentDir>/agents/*.md``. Project agents (``.pi/agents/*.md``) are code from
the repository: they are used only with ``agentScope: "project"`` or ``"both"``, and the user is
asked before they run (``confirmProjectAgents``, default true). Without a UI nobody can be asked,
so project agents are then refused unless ``confirmProjectAgents`` is false.

Progress streams through ``on_update``; ``details`` keep every child's messages, usage (summed in
``details.usage``), model and stop reason. Aborting the tool call kills the children.

What it shows: a tool with a JSON Schema, partial results, an abort signal, ``ctx.ui.confirm``
for a trust decision, and child processes managed from an extension.

The child command is this installation's ``python -m pi_harness``; set ``PI_SUBAGENT_COMMAND``
(for example ``pi``) to use another one.

Load it with ``pi -e examples/extensions/subagent`` or copy the directory into
``~/.pi/agent/extensions/``.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionContext
from pi_harness.coding.extensions.types import ToolResult

from .agents import AgentConfig, AgentDiscovery, AgentScope, describe_agents, discover_agents
from .child import ChildResult, Usage, run_child

MAX_PARALLEL_TASKS = 8
MAX_CONCURRENCY = 4
PREVIOUS = "{previous}"

TASK_ITEM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "agent": {"type": "string", "description": "Name of the agent to run."},
        "task": {"type": "string", "description": "What the agent should do."},
        "cwd": {"type": "string", "description": "Working directory for this agent (default: the current one)."},
    },
    "required": ["agent", "task"],
}

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "agent": {"type": "string", "description": "Single mode: the agent to run."},
        "task": {"type": "string", "description": "Single mode: the task for that agent."},
        "tasks": {
            "type": "array",
            "items": TASK_ITEM,
            "description": f"Parallel mode: up to {MAX_PARALLEL_TASKS} independent tasks run at the same time.",
        },
        "chain": {
            "type": "array",
            "items": TASK_ITEM,
            "description": f"Chain mode: steps run in order; {PREVIOUS} in a task is replaced by the previous answer.",
        },
        "agentScope": {
            "type": "string",
            "enum": ["user", "project", "both"],
            "description": 'Where agents come from: "user" (default), "project" (.pi/agents) or "both".',
        },
        "confirmProjectAgents": {
            "type": "boolean",
            "description": "Ask the user before running project agents (default true).",
        },
        "cwd": {"type": "string", "description": "Single mode: working directory for the agent."},
    },
}

DESCRIPTION = (
    "Hand a task to a specialised agent that works in its own, separate context and returns only its final "
    "answer. Use it to keep long explorations out of your own context or to run independent work in "
    "parallel. Exactly one mode per call: single (agent + task), parallel (tasks: a list of {agent, task}), or "
    f"chain (chain: a list of steps run in order, where {PREVIOUS} stands for the previous step's answer). "
    'Agents are defined by the user; project agents from .pi/agents need agentScope "both" or "project".'
)


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


class Invocation:
    """One call of the tool: its agents, progress and the details it reports."""

    def __init__(
        self,
        mode: str,
        scope: AgentScope,
        discovery: AgentDiscovery,
        cwd: str,
        signal: AbortSignal | None,
        on_update: Callable[[Any], None] | None,
    ) -> None:
        self.mode = mode
        self.scope = scope
        self.discovery = discovery
        self.cwd = cwd
        self.signal = signal
        self.on_update = on_update
        self.results: list[ChildResult] = []

    def details(self) -> dict[str, Any]:
        total = Usage()
        for result in self.results:
            total.add(result.usage)
        return {
            "mode": self.mode,
            "agentScope": self.scope,
            "projectAgentsDir": self.discovery.project_agents_dir,
            "results": [result.to_dict() for result in self.results],
            "usage": total.to_dict(),
        }

    def update(self, text: str) -> None:
        if self.on_update is not None:
            self.on_update({"content": _text(text), "details": self.details()})

    def directory(self, cwd: Any) -> str:
        """A task's working directory: relative to the session's, which is also the default."""
        return os.path.join(self.cwd, cwd) if isinstance(cwd, str) and cwd else self.cwd

    def find(self, name: str) -> AgentConfig | None:
        return next((agent for agent in self.discovery.agents if agent.name == name), None)

    def result(self, text: str, *, is_error: bool = False) -> ToolResult:
        return ToolResult(content=text, details=self.details(), is_error=is_error)


def _failure(result: ChildResult) -> str:
    return f"Agent {result.stop_reason or 'failed'}: {result.error_text}"


async def run_single(call: Invocation, agent: str, task: str, cwd: str | None) -> ToolResult:
    call.results = [ChildResult(agent, "unknown", task)]

    def changed(live: ChildResult) -> None:
        call.results[0] = live
        call.update(live.final_output or "(running...)")

    outcome = await run_child(
        call.find(agent),
        agent,
        task,
        call.directory(cwd),
        known_agents=describe_agents(call.discovery.agents),
        signal=call.signal,
        on_change=changed,
    )
    call.results = [outcome]
    if outcome.failed:
        return call.result(_failure(outcome), is_error=True)
    return call.result(outcome.final_output or "(no output)")


async def run_parallel(call: Invocation, tasks: list[dict[str, Any]]) -> ToolResult:
    if len(tasks) > MAX_PARALLEL_TASKS:
        return call.result(f"Too many parallel tasks ({len(tasks)}). Max is {MAX_PARALLEL_TASKS}.", is_error=True)
    call.results = [ChildResult(str(t["agent"]), "unknown", str(t["task"])) for t in tasks]
    limit = asyncio.Semaphore(MAX_CONCURRENCY)

    def progress() -> None:
        done = sum(r.exit_code != -1 for r in call.results)
        call.update(f"Parallel: {done}/{len(call.results)} done...")

    async def one(index: int, spec: dict[str, Any]) -> None:
        async with limit:
            if call.signal is not None and call.signal.aborted:
                call.results[index].exit_code, call.results[index].stop_reason = 1, "aborted"
                return

            def changed(live: ChildResult) -> None:
                call.results[index] = live
                progress()

            call.results[index] = await run_child(
                call.find(str(spec["agent"])),
                str(spec["agent"]),
                str(spec["task"]),
                call.directory(spec.get("cwd")),
                known_agents=describe_agents(call.discovery.agents),
                signal=call.signal,
                on_change=changed,
            )
            progress()

    await asyncio.gather(*(one(i, spec) for i, spec in enumerate(tasks)))
    succeeded = sum(not r.failed for r in call.results)
    sections = [
        f"[{r.agent}] failed:\n{r.error_text}"
        if r.failed
        else f"[{r.agent}] completed:\n{r.final_output or '(no output)'}"
        for r in call.results
    ]
    text = f"Parallel: {succeeded}/{len(call.results)} succeeded\n\n" + "\n\n".join(sections)
    return call.result(text, is_error=succeeded == 0)


async def run_chain(call: Invocation, steps: list[dict[str, Any]]) -> ToolResult:
    previous = ""
    for number, spec in enumerate(steps, start=1):
        task = str(spec["task"]).replace(PREVIOUS, previous)
        call.results.append(ChildResult(str(spec["agent"]), "unknown", task, step=number))

        def changed(live: ChildResult) -> None:
            call.results[-1] = live
            call.update(live.final_output or f"Chain step {live.step}: running...")

        outcome = await run_child(
            call.find(str(spec["agent"])),
            str(spec["agent"]),
            task,
            call.directory(spec.get("cwd")),
            known_agents=describe_agents(call.discovery.agents),
            signal=call.signal,
            on_change=changed,
            step=number,
        )
        call.results[-1] = outcome
        if outcome.failed:
            return call.result(f"Chain stopped at step {number} ({outcome.agent}): {outcome.error_text}", is_error=True)
        previous = outcome.final_output
    return call.result(previous or "(no output)")


def requested_agents(params: dict[str, Any]) -> list[str]:
    names = [str(params["agent"])] if params.get("agent") else []
    for key in ("tasks", "chain"):
        names += [str(item.get("agent")) for item in params.get(key) or [] if isinstance(item, dict)]
    return names


async def approve_project_agents(call: Invocation, params: dict[str, Any], ctx: ExtensionContext) -> ToolResult | None:
    """``None`` when the call may go ahead; otherwise the refusal to return."""
    if call.scope == "user" or params.get("confirmProjectAgents") is False:
        return None
    wanted = set(requested_agents(params))
    project = sorted({a.name for a in call.discovery.agents if a.source == "project" and a.name in wanted})
    if not project:
        return None
    if not ctx.has_ui:
        return call.result(
            f"Project agents need the user's confirmation and there is no UI to ask: {', '.join(project)} not run.",
            is_error=True,
        )
    question = (
        f"Agents: {', '.join(project)}\nSource: {call.discovery.project_agents_dir}\n\n"
        "Project agents are repo-controlled. Only continue for trusted repositories."
    )
    if await ctx.ui.confirm("Run project-local agents?", question):
        return None
    return call.result("Canceled: project-local agents not approved.")


def extension(pi: ExtensionAPI) -> None:
    @pi.tool(name="subagent", label="Subagent", description=DESCRIPTION, parameters=PARAMETERS)
    async def subagent(
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: Callable[[Any], None] | None,
        ctx: ExtensionContext,
    ) -> ToolResult:
        scope: AgentScope = params.get("agentScope") or "user"
        discovery = await asyncio.to_thread(discover_agents, ctx.cwd, scope)
        tasks, chain = params.get("tasks") or [], params.get("chain") or []
        single = bool(params.get("agent") and params.get("task"))
        modes = [name for name, used in (("single", single), ("parallel", bool(tasks)), ("chain", bool(chain))) if used]
        call = Invocation(modes[0] if len(modes) == 1 else "single", scope, discovery, ctx.cwd, signal, on_update)
        if len(modes) != 1:
            return call.result(
                f"Invalid parameters. Provide exactly one mode.\nAvailable agents: {describe_agents(discovery.agents)}",
                is_error=True,
            )
        refusal = await approve_project_agents(call, params, ctx)
        if refusal is not None:
            return refusal
        if chain:
            return await run_chain(call, chain)
        if tasks:
            return await run_parallel(call, tasks)
        return await run_single(call, str(params["agent"]), str(params["task"]), params.get("cwd"))
