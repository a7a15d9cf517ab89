"""subagent: agent files, child arguments, JSON parsing, real child processes and a real session.

Most child-process tests use a small stand-in for ``pi --mode json -p`` (``FAKE_PI`` below) that
prints what pi's JSON mode prints, so they exercise the real process handling (arguments,
streaming, concurrency, abort) without a model. The last test runs the real ``pi`` against the
fake LLM server when this build has a session runner.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _examples_support import ExampleHost, UIClient, bound_runner, load_example, sdk_session, tool_results

from pi_harness.ai.abort import AbortController
from pi_harness.coding.extensions.runner import ExtensionRunner
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

subagent = load_example("subagent")
agents_module, child_module = subagent.agents, subagent.child

USAGE = {
    "input": 100,
    "output": 20,
    "cacheRead": 5,
    "cacheWrite": 0,
    "totalTokens": 125,
    "cost": {"input": 0.001, "output": 0.002, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.003},
}

# What ``pi --mode json -p --no-session "Task: list files"`` prints for a one-tool run (abridged
# to the fields the parent reads, in pi's record order).
RECORDED_CHILD_OUTPUT = [
    {"type": "session", "version": 3, "id": "s1", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/p"},
    {"type": "agent_start"},
    {"type": "turn_start"},
    {"type": "message_start", "message": {"role": "user", "content": [{"type": "text", "text": "Task: list files"}]}},
    {"type": "message_end", "message": {"role": "user", "content": [{"type": "text", "text": "Task: list files"}]}},
    {"type": "message_update", "usage": USAGE, "assistantMessageEvent": {"type": "text_delta", "delta": "Let"}},
    {
        "type": "message_end",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "toolCall", "id": "c1", "name": "ls", "arguments": {}},
            ],
            "model": "fake-model",
            "usage": USAGE,
            "stopReason": "toolUse",
        },
    },
    {"type": "tool_execution_start", "toolCallId": "c1", "toolName": "ls", "args": {}},
    {
        "type": "message_end",
        "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "ls", "content": [], "isError": False},
    },
    {
        "type": "message_end",
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": "There are two files:\na.txt and b.txt"}],
            "model": "fake-model",
            "usage": USAGE,
            "stopReason": "stop",
        },
    },
    {"type": "agent_end", "messages": [], "willRetry": False},
    {"type": "agent_settled", "aborted": False},
]

# A stand-in for ``pi --mode json -p``: answers "done: <task>", logs its arguments and lifetime.
FAKE_PI = r"""
import json, os, sys, time
args = sys.argv[1:]
task = args[-1]
log = os.environ["FAKE_PI_LOG"]
prompt_file = args[args.index("--append-system-prompt") + 1] if "--append-system-prompt" in args else None
prompt = open(prompt_file).read() if prompt_file else None
def note(record):
    with open(log, "a") as handle:
        handle.write(json.dumps(record) + "\n")
note({"event": "start", "pid": os.getpid(), "args": args, "cwd": os.getcwd(), "prompt": prompt})
def emit(record):
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()
emit({"type": "session", "version": 3, "id": "x", "timestamp": "t", "cwd": os.getcwd()})
usage = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15, "cost": {"total": 0.01}}
def answer(text, stop="stop", error=None):
    message = {"role": "assistant", "content": [{"type": "text", "text": text}], "model": "m", "usage": usage,
               "stopReason": stop}
    if error:
        message["errorMessage"] = error
    emit({"type": "message_end", "message": message})
if "hang" in task:
    emit({"type": "message_end", "message": {"role": "toolResult", "toolCallId": "c", "toolName": "ls", "content": []}})
    time.sleep(30)
if "crash" in task:
    sys.stderr.write("child exploded\n")
    note({"event": "end", "pid": os.getpid()})
    sys.exit(3)
if "provider-error" in task:
    answer("", "error", "429 rate limited")
    sys.exit(0)
time.sleep(0.05)
answer("done: " + task[len("Task: "):])
note({"event": "end", "pid": os.getpid()})
"""


@pytest.fixture
def fake_pi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Children are the stand-in; returns the log of their starts and ends."""
    script = tmp_path / "fake_pi.py"
    script.write_text(FAKE_PI)
    log = tmp_path / "children.log"
    monkeypatch.setenv("PI_SUBAGENT_COMMAND", f"{sys.executable} -S {script}")
    monkeypatch.setenv("FAKE_PI_LOG", str(log))
    return log


def child_log(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def write_agent(directory: Path, name: str, body: str = "", **fields: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    front = {"name": name, "description": f"The {name} agent", **fields}
    lines = ["---", *(f"{k}: {v}" for k, v in front.items()), "---", body]
    path = directory / f"{name}.md"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def project(tmp_path: Path, agent_dir: Path) -> Path:
    """A project with a user agent ``scout`` and a project agent ``builder``."""
    write_agent(agent_dir / "agents", "scout", "You only look, never touch.", tools="read, grep, ls", model="fake/m1")
    write_agent(agent_dir / "agents", "writer", "You write.")
    directory = tmp_path / "project"
    write_agent(directory / ".pi" / "agents", "builder", "You build things.", model="fake/m2")
    return directory


async def runner_for(project: Path, client: UIClient | None = None) -> ExtensionRunner:
    runner, errors = await bound_runner("subagent", ExampleHost(project), client=client)
    assert errors == []
    return runner


async def call_tool(
    runner: ExtensionRunner, params: dict[str, Any], signal: Any = None, updates: list[Any] | None = None
) -> dict[str, Any]:
    definition = next(t for t, _ in runner.tool_definitions() if t.name == "subagent")
    on_update = updates.append if updates is not None else None
    result = await definition.execute("call-1", params, signal, on_update, runner.create_context())
    data: dict[str, Any] = result.to_dict()
    return data


def text_of(result: dict[str, Any]) -> str:
    return "".join(block["text"] for block in result["content"])


# -- agents --------------------------------------------------------------------------------------


def test_agent_files_and_scopes(project: Path) -> None:
    (project / ".pi" / "agents" / "broken.md").write_text("---\nname: [unclosed\n---\nbody\n")
    (project / ".pi" / "agents" / "nameless.md").write_text("---\ndescription: no name\n---\nbody\n")
    write_agent(project / ".pi" / "agents", "scout", "Project scout.")
    nested = project / "src" / "deep"
    nested.mkdir(parents=True)

    user = agents_module.discover_agents(str(nested), "user")
    assert [(a.name, a.source) for a in user.agents] == [("scout", "user"), ("writer", "user")]
    scout = user.agents[0]
    assert scout.tools == ("read", "grep", "ls") and scout.model == "fake/m1"
    assert scout.system_prompt == "You only look, never touch."

    both = agents_module.discover_agents(str(nested), "both")
    assert both.project_agents_dir == str((project / ".pi" / "agents").resolve())
    assert sorted((a.name, a.source) for a in both.agents) == [
        ("builder", "project"),
        ("scout", "project"),  # the project's definition replaces the user's
        ("writer", "user"),
    ]
    project_only = agents_module.discover_agents(str(project), "project")
    assert sorted(a.name for a in project_only.agents) == ["builder", "scout"]


def test_front_matter_with_a_tool_list() -> None:
    metadata, body = agents_module.split_front_matter("---\nname: a\ntools: [read, ls]\n---\nHello\n")
    assert metadata == {"name": "a", "tools": ["read", "ls"]} and body == "Hello\n"
    assert agents_module.split_front_matter("no front matter") == ({}, "no front matter")


# -- child arguments and output ------------------------------------------------------------------


def test_child_arguments() -> None:
    agent = agents_module.AgentConfig("scout", "d", "prompt", "user", "/a.md", ("read", "ls"), "fake/m1")
    assert child_module.child_arguments(agent, "find it", "/tmp/p.md") == [
        "--mode",
        "json",
        "-p",
        "--no-session",
        "--model",
        "fake/m1",
        "--tools",
        "read,ls",
        "--append-system-prompt",
        "/tmp/p.md",
        "Task: find it",
    ]
    bare = agents_module.AgentConfig("plain", "d", "", "user", "/b.md")
    assert child_module.child_arguments(bare, "x", None) == ["--mode", "json", "-p", "--no-session", "Task: x"]
    assert child_module.pi_command() == [sys.executable, "-m", "pi_harness"]


def test_recorded_json_output_is_folded_into_a_result() -> None:
    result = child_module.ChildResult("scout", "user", "list files")
    changes = [child_module.apply_event(result, json.dumps(record)) for record in RECORDED_CHILD_OUTPUT]
    assert child_module.apply_event(result, "not json at all") is False
    assert changes.count(True) == 3  # two assistant messages and one tool result
    assert result.final_output == "There are two files:\na.txt and b.txt"
    assert result.usage.to_dict() == {
        "input": 200,
        "output": 40,
        "cacheRead": 10,
        "cacheWrite": 0,
        "cost": 0.006,
        "contextTokens": 125,
        "turns": 2,
    }
    assert result.model == "fake-model" and result.stop_reason == "stop"
    assert [m["role"] for m in result.messages] == ["assistant", "toolResult", "assistant"]


# -- real child processes (the stand-in) ---------------------------------------------------------


async def test_single_mode_runs_the_agent(project: Path, fake_pi: Path) -> None:
    runner = await runner_for(project)
    updates: list[Any] = []
    result = await call_tool(runner, {"agent": "scout", "task": "map the code"}, updates=updates)

    assert text_of(result) == "done: map the code"
    assert "isError" not in result
    start = child_log(fake_pi)[0]
    assert start["args"][:8] == [
        "--mode",
        "json",
        "-p",
        "--no-session",
        "--model",
        "fake/m1",
        "--tools",
        "read,grep,ls",
    ]
    assert start["args"][-1] == "Task: map the code"
    assert start["prompt"] == "You only look, never touch."
    assert not Path(start["args"][-2]).exists()  # the prompt file is gone afterwards
    assert start["cwd"] == str(project)
    details = result["details"]
    assert details["mode"] == "single" and details["agentScope"] == "user"
    assert details["results"][0]["exitCode"] == 0 and details["results"][0]["agentSource"] == "user"
    assert details["usage"]["turns"] == 1 and details["usage"]["cost"] == 0.01
    assert updates and updates[-1]["details"]["results"][0]["agent"] == "scout"


async def test_single_mode_failures(project: Path, fake_pi: Path) -> None:
    runner = await runner_for(project)
    crashed = await call_tool(runner, {"agent": "scout", "task": "crash now"})
    assert crashed["isError"] is True and text_of(crashed) == "Agent failed: child exploded"
    assert crashed["details"]["results"][0]["exitCode"] == 3

    provider = await call_tool(runner, {"agent": "scout", "task": "provider-error please"})
    assert provider["isError"] is True and text_of(provider) == "Agent error: 429 rate limited"

    nowhere = await call_tool(runner, {"agent": "scout", "task": "x", "cwd": "missing"})
    assert text_of(nowhere) == f"Agent failed: Working directory does not exist: {project / 'missing'}"

    unknown = await call_tool(runner, {"agent": "ghost", "task": "x"})
    assert text_of(unknown) == 'Agent failed: Unknown agent: "ghost". Available agents: scout (user), writer (user).'

    invalid = await call_tool(runner, {"agent": "scout", "task": "x", "tasks": [{"agent": "scout", "task": "y"}]})
    assert invalid["isError"] is True
    assert text_of(invalid) == (
        "Invalid parameters. Provide exactly one mode.\nAvailable agents: scout (user), writer (user)"
    )


async def test_parallel_mode_limits_tasks_and_concurrency(project: Path, fake_pi: Path) -> None:
    runner = await runner_for(project)
    too_many = await call_tool(runner, {"tasks": [{"agent": "scout", "task": f"t{i}"} for i in range(9)]})
    assert text_of(too_many) == "Too many parallel tasks (9). Max is 8."
    assert child_log(fake_pi) == []

    tasks = [{"agent": "scout" if i % 2 else "writer", "task": f"task {i}"} for i in range(8)]
    tasks[3]["task"] = "crash 3"
    (project / "sub").mkdir()
    tasks[5]["cwd"] = "sub"  # relative to the session's directory
    result = await call_tool(runner, {"tasks": tasks})

    text = text_of(result)
    assert text.startswith("Parallel: 7/8 succeeded\n\n[writer] completed:\ndone: task 0\n\n[scout] completed:\n")
    assert "[scout] failed:\nchild exploded" in text
    assert [r["task"] for r in result["details"]["results"]] == [t["task"] for t in tasks]  # input order
    assert result["details"]["usage"]["turns"] == 7
    running, peak = 0, 0
    for record in child_log(fake_pi):
        running += 1 if record["event"] == "start" else -1 if record["event"] == "end" else 0
        peak = max(peak, running)
    assert 2 <= peak <= 4  # they overlapped, four at most
    directories = {r["args"][-1]: r["cwd"] for r in child_log(fake_pi) if r["event"] == "start"}
    assert directories["Task: task 5"] == str(project / "sub") and directories["Task: task 4"] == str(project)


async def test_chain_mode_passes_previous_answers_and_stops_on_failure(project: Path, fake_pi: Path) -> None:
    runner = await runner_for(project)
    result = await call_tool(
        runner,
        {
            "chain": [
                {"agent": "scout", "task": "find the bug"},
                {"agent": "writer", "task": "fix what was found: {previous}"},
            ]
        },
    )
    assert text_of(result) == "done: fix what was found: done: find the bug"
    assert [r["step"] for r in result["details"]["results"]] == [1, 2]

    stopped = await call_tool(
        runner,
        {"chain": [{"agent": "scout", "task": "crash"}, {"agent": "writer", "task": "never {previous}"}]},
    )
    assert stopped["isError"] is True
    assert text_of(stopped) == "Chain stopped at step 1 (scout): child exploded"
    assert not any("never" in str(r.get("args")) for r in child_log(fake_pi))


async def test_abort_kills_the_children(project: Path, fake_pi: Path) -> None:
    runner = await runner_for(project)
    controller = AbortController()
    updates: list[Any] = []
    call = asyncio.ensure_future(
        call_tool(
            runner,
            {"tasks": [{"agent": "scout", "task": "hang 1"}, {"agent": "writer", "task": "hang 2"}]},
            signal=controller.signal,
            updates=updates,
        )
    )
    while len([r for r in child_log(fake_pi) if r["event"] == "start"]) < 2 or not updates:
        await asyncio.sleep(0.01)
    controller.abort()
    result = await asyncio.wait_for(call, 10)

    assert result["isError"] is True
    assert [r["stopReason"] for r in result["details"]["results"]] == ["aborted", "aborted"]
    for record in child_log(fake_pi):
        with pytest.raises(ProcessLookupError):
            os.kill(record["pid"], 0)


async def test_project_agents_need_approval(project: Path, fake_pi: Path) -> None:
    client = UIClient({"confirmed": False}, {"confirmed": True})
    runner = await runner_for(project, client)
    params = {"agent": "builder", "task": "build", "agentScope": "both"}

    refused = await call_tool(runner, params)
    assert text_of(refused) == "Canceled: project-local agents not approved."
    dialog = client.dialogs[0]
    assert dialog["title"] == "Run project-local agents?"
    assert dialog["message"].startswith("Agents: builder\nSource: ")
    assert child_log(fake_pi) == []

    approved = await call_tool(runner, params)
    assert text_of(approved) == "done: build"
    assert approved["details"]["results"][0]["agentSource"] == "project"

    user_only = await call_tool(runner, {"agent": "builder", "task": "build"})  # default scope: user
    assert text_of(user_only).startswith('Agent failed: Unknown agent: "builder".')


async def test_project_agents_without_ui_fail_closed(project: Path, fake_pi: Path) -> None:
    runner = await runner_for(project)
    refused = await call_tool(runner, {"agent": "builder", "task": "build", "agentScope": "project"})
    assert refused["isError"] is True and "no UI to ask" in text_of(refused)
    allowed = await call_tool(
        runner, {"agent": "builder", "task": "build", "agentScope": "project", "confirmProjectAgents": False}
    )
    assert text_of(allowed) == "done: build"


# -- a real session ------------------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


async def test_a_session_delegates_to_a_child(server: FakeLLMServer, project: Path, fake_pi: Path) -> None:
    server.push(
        ScriptedResponse(steps=[ToolCallStep("subagent", {"agent": "scout", "task": "survey"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("The scout is back.")]),
    )
    result = await sdk_session(server, project, "subagent")
    await result.session.prompt("send the scout")

    assert tool_results(result.session) == [("subagent", False, "done: survey")]
    assert "subagent" in [t["function"]["name"] for t in server.requests[0].json["tools"]]
    assert result.session.get_last_assistant_text() == "The scout is back."
    await result.runtime.shutdown()


HAS_SESSION_RUNNER = importlib.util.find_spec("pi_harness.cli.run") is not None


@pytest.mark.skipif(not HAS_SESSION_RUNNER, reason="`pi --mode json -p` is not available in this build yet")
async def test_a_real_pi_child_against_the_fake_server(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    (agent_dir / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "fake": {
                        "baseUrl": server.base_url("openai-completions"),
                        "api": "openai-completions",
                        "apiKey": "test-key",
                        "models": [{"id": "m1"}],
                    }
                }
            }
        )
    )
    server.push(ScriptedResponse(steps=[TextStep("The child looked around.")]))
    runner = await runner_for(project)

    result = await call_tool(runner, {"agent": "scout", "task": "look around"})

    assert text_of(result) == "The child looked around.", result["details"]["results"][0]["stderr"]
    request = server.requests[0].json
    assert request["model"] == "m1"
    assert "You only look, never touch." in json.dumps(request["messages"][0])
    assert request["messages"][-1]["content"] in ("Task: look around", [{"type": "text", "text": "Task: look around"}])
    assert result["details"]["results"][0]["usage"]["turns"] == 1
