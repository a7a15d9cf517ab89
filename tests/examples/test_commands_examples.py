"""Commands and UI: commands, shutdown-command, send-user-message, input-transform,
input-transform-streaming, inline-bash, rpc-demo and notify, in real sessions against the fake
server (rpc-demo also through a runner, notify through the real ``pi`` command)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _examples_support import ExampleHost, UIClient, bound_runner, example_path, git, git_repo, sdk_session

from pi_harness.cli.modes.rpc.ui import RpcExtensionUI
from pi_harness.coding.extensions.events import EVENT_NAMES
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


def last_user_text(request: Any) -> str:
    users = [m for m in request.json["messages"] if m["role"] == "user"]
    content = users[-1]["content"]
    return content if isinstance(content, str) else "\n".join(part.get("text", "") for part in content)


def reply(server: FakeLLMServer, *texts: str) -> None:
    server.push(*[ScriptedResponse(steps=[TextStep(text)]) for text in texts])


# -- commands ----------------------------------------------------------------------------------


async def test_commands_lists_groups_and_shows_the_source(
    server: FakeLLMServer, tmp_path: Path, agent_dir: Path
) -> None:
    prompts = agent_dir / "prompts"
    prompts.mkdir()
    (prompts / "review.md").write_text("---\ndescription: Review the diff\n---\nReview it.\n")
    client = UIClient({"value": "/review - Review the diff"}, {"confirmed": True}, {"cancelled": True})
    result = await sdk_session(server, tmp_path, "commands", "pirate", client=client)
    session = result.session

    await session.prompt("/commands")
    picker = client.dialogs[0]
    assert picker["title"] == "Slash commands"
    assert picker["options"] == [
        "--- Extensions ---",
        "/commands - List the slash commands (/commands [extension|prompt|skill])",
        "/pirate - Toggle pirate mode: the assistant talks like a pirate",
        "--- Prompts ---",
        "/review - Review the diff",
    ]
    assert client.dialogs[1]["message"] == f"Show where it is defined?\n{prompts / 'review.md'}"
    assert client.notifications == [(str(prompts / "review.md"), "info")]

    await session.prompt("/commands prompt")
    assert client.dialogs[2]["options"] == ["--- Prompts ---", "/review - Review the diff"]
    await session.prompt("/commands skill")
    assert client.notifications[-1] == ("No skill commands", "info")
    await result.runtime.shutdown()


def test_commands_completes_the_source_argument() -> None:
    from _examples_support import load_example

    complete = load_example("commands").complete_source
    assert complete("") == [{"value": s, "label": s} for s in ("extension", "prompt", "skill")]
    assert complete("sk") == [{"value": "skill", "label": "skill"}]
    assert complete("x") is None


# -- shutdown-command --------------------------------------------------------------------------


async def test_quit_and_the_exit_tools_request_a_shutdown(server: FakeLLMServer, tmp_path: Path) -> None:
    result = await sdk_session(server, tmp_path, "shutdown_command", client=UIClient())
    session = result.session
    assert not session.shutdown_requested
    await session.prompt("/quit")
    assert session.shutdown_requested
    await result.runtime.shutdown()

    server.push(
        ScriptedResponse(steps=[ToolCallStep("deploy_and_exit", {"environment": "staging"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("Deployed, bye.")]),
    )
    result = await sdk_session(server, tmp_path, "shutdown_command")
    updates: list[str] = []
    result.session.subscribe(
        lambda event: (
            updates.append(event["partialResult"]["content"][0]["text"])
            if event["type"] == "tool_execution_update"
            else None
        )
    )
    await result.session.prompt("deploy")
    assert result.session.shutdown_requested
    assert updates == ["Deploying to staging...", "Deployed; exiting..."]
    tool_message = next(m for m in server.requests[1].json["messages"] if m["role"] == "tool")
    assert tool_message["content"] == "Deployed to staging. Exit requested."
    await result.runtime.shutdown()


# -- send-user-message -------------------------------------------------------------------------


async def test_send_user_message_commands_send_real_user_messages(server: FakeLLMServer, tmp_path: Path) -> None:
    reply(server, "four", "noted", "short")
    client = UIClient()
    result = await sdk_session(server, tmp_path, "send_user_message", client=client)
    session = result.session

    await session.prompt("/ask")
    assert client.notifications == [("Usage: /ask <message>", "warning")]
    for command in ("/ask What is 2+2?", "/followup and then?", "/askwith list the files"):
        await session.prompt(command)
        await session.wait_for_idle()  # the message starts a run; the command does not wait for it

    assert [last_user_text(request) for request in server.requests] == [
        "What is 2+2?",
        "and then?",
        "Request: list the files\nKeep the answer short.",
    ]
    users = [m for m in session.get_messages() if m["role"] == "user"]
    assert len(users) == 3  # real user messages, not custom messages
    await result.runtime.shutdown()


# -- input-transform ---------------------------------------------------------------------------


async def test_input_transform_rewrites_and_answers(server: FakeLLMServer, tmp_path: Path) -> None:
    reply(server, "Python is a language.", "plain")
    client = UIClient()
    result = await sdk_session(server, tmp_path, "input_transform", client=client)
    session = result.session

    await session.prompt("ping")
    await session.prompt("?quick")
    await session.prompt("TIME")
    assert server.requests == []  # answered without the model
    assert client.notifications[:2] == [("pong", "info"), ("Usage: ?quick <question>", "warning")]
    assert len(client.notifications) == 3 and client.notifications[2][0]  # the local time

    await session.prompt("?quick What is Python?")
    await session.prompt("pinging is fine")
    assert [last_user_text(request) for request in server.requests] == [
        "Answer in one or two sentences at most: What is Python?",
        "pinging is fine",
    ]
    await result.runtime.shutdown()


# -- input-transform-streaming ----------------------------------------------------------------


async def test_input_transform_streaming_appends_the_diffstat(server: FakeLLMServer, tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo", {"app.py": "print(1)\n"})
    (repo / "app.py").write_text("print(2)\n")
    reply(server, "ok", "ok")
    result = await sdk_session(server, repo, "input_transform_streaming")

    await result.session.prompt("review my changes")
    await result.session.prompt("review the plan")

    first, second = (last_user_text(request) for request in server.requests)
    assert first.startswith("review my changes\n\nUncommitted changes (git diff --stat):\n```\n")
    assert "app.py | 2 +-" in first and first.endswith("```")
    assert second == "review the plan"
    await result.runtime.shutdown()


# -- inline-bash -------------------------------------------------------------------------------


async def test_inline_bash_expands_commands_in_the_prompt(server: FakeLLMServer, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("x\n")
    reply(server, "ok", "ok")
    client = UIClient()
    result = await sdk_session(server, project, "inline_bash", client=client)

    await result.session.prompt("Files: !{ls} and !{echo hi; echo oops >&2; exit 3} end")
    await result.session.prompt("nothing to expand {here}")

    first, second = (last_user_text(request) for request in server.requests)
    assert first == "Files: notes.txt and hi end"
    assert second == "nothing to expand {here}"
    message, kind = client.notifications[0]
    assert message.startswith("Ran 2 inline command(s):\n!{ls} -> 'notes.txt'\n")
    assert "(exit code 3)" in message and kind == "info"
    await result.runtime.shutdown()


# -- rpc-demo ----------------------------------------------------------------------------------


async def test_rpc_demo_drives_every_ui_call(server: FakeLLMServer, tmp_path: Path) -> None:
    server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": "sudo rm -rf /tmp/x"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("I was stopped.")]),
    )
    client = UIClient({"value": "Block"}, {"value": "blue"}, {"value": "a\nb"}, {"cancelled": True})
    result = await sdk_session(server, tmp_path, "rpc_demo", client=client)
    session = result.session
    methods = [r["method"] for r in client.requests]
    assert methods[:3] == ["setTitle", "setWidget", "setStatus"]
    assert client.requests[0]["title"] == "pi RPC demo"
    assert client.status("rpc-demo") == "Turns: 0"

    await session.prompt("clean up")
    gate = client.dialogs[0]
    assert (gate["method"], gate["title"], gate["options"]) == (
        "select",
        "The model wants to run: sudo rm -rf /tmp/x",
        ["Allow", "Block"],
    )
    tool_message = next(m for m in server.requests[1].json["messages"] if m["role"] == "tool")
    assert tool_message["content"] == "Blocked by user"
    assert client.status("rpc-demo") == "Turn 2 done"

    await session.prompt("/rpc-input")
    await session.prompt("/rpc-editor")
    await session.prompt("/rpc-input")
    await session.prompt("/rpc-prefill")
    assert client.dialogs[2]["prefill"] == "first line\nsecond line\nthird line"
    assert [text for text, _ in client.notifications] == [
        "Blocked the command",
        "Received: blue",
        "Received 2 line(s)",
        "No value given",
        "Editor text set",
    ]
    assert client.requests[-2]["method"] == "set_editor_text"
    await result.runtime.shutdown()


async def test_rpc_demo_confirms_before_clearing(tmp_path: Path) -> None:
    client = UIClient({"confirmed": False}, {"confirmed": True})
    runner, _ = await bound_runner("rpc_demo", ExampleHost(tmp_path), client=client)
    assert await runner.emit_session_before("session_before_switch", {"reason": "new"}) == {"cancel": True}
    assert await runner.emit_session_before("session_before_switch", {"reason": "new"}) is None
    assert await runner.emit_session_before("session_before_switch", {"reason": "resume"}) is None
    assert client.dialogs[0]["title"] == "Start a new, empty session?" and len(client.dialogs) == 2
    runner_without_ui, _ = await bound_runner("rpc_demo", ExampleHost(tmp_path))
    verdict = await runner_without_ui.emit_tool_call(
        {"toolName": "bash", "toolCallId": "c", "input": {"command": "sudo reboot"}}
    )
    assert verdict == {"block": True, "reason": "Dangerous command blocked: no UI to ask"}


# -- notify ------------------------------------------------------------------------------------


@pytest.mark.skipif("agent_settled" not in EVENT_NAMES, reason="agent_settled is not an extension event yet")
def test_notify_writes_the_escape_sequence_when_pi_is_done(agent_dir: Path, tmp_path: Path) -> None:
    with FakeLLMServer() as fake:
        provider = {
            "baseUrl": fake.base_url("openai-completions"),
            "api": "openai-completions",
            "apiKey": "test-key",
            "models": [{"id": "fake-model"}],
        }
        (agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
        fake.push(ScriptedResponse(steps=[TextStep("Done.")]))
        env = {k: v for k, v in os.environ.items() if k not in ("WT_SESSION", "KITTY_WINDOW_ID")}
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pi_harness",
                "-e",
                str(example_path("notify")),
                "--model",
                "fake/fake-model",
                "-p",
                "hi",
            ],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env={**env, "PI_OFFLINE": "1"},
            timeout=60,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    # Print mode keeps stdout for the answer: what an extension writes there goes to stderr.
    assert done.stdout == "Done.\n"
    assert done.stderr.count("\x1b]777;notify;Pi;Waiting for your input\x07") == 1


# -- preset ------------------------------------------------------------------------------------

PRESETS = {
    "plan": {"tools": ["read", "grep", "nosuchtool"], "thinkingLevel": "high", "instructions": "Only write a plan."},
    "implement": {"tools": ["read", "bash", "edit", "write"], "instructions": "Make small changes."},
}


def request_tools(request: Any) -> list[str]:
    return [tool["function"]["name"] for tool in request.json.get("tools", [])]


async def test_preset_flag_command_and_picker(server: FakeLLMServer, tmp_path: Path, agent_dir: Path) -> None:
    (agent_dir / "presets.json").write_text(json.dumps(PRESETS))
    project = tmp_path / "project"
    (project / ".pi").mkdir(parents=True)
    override = {"implement": {**PRESETS["implement"], "instructions": "Project rules: small changes."}}
    (project / ".pi" / "presets.json").write_text(json.dumps(override))
    reply(server, "planned", "implemented", "plain")
    picks = UIClient({"value": "(none): clear the preset, restore the previous settings"})
    result = await sdk_session(server, project, "preset", client=picks, flags={"preset": "plan"})
    session = result.session
    assert picks.notifications[:2] == [
        ('Preset "plan": unknown tools: nosuchtool', "warning"),
        ('Preset "plan" is active', "info"),
    ]
    assert picks.status("preset") == "preset:plan"

    await session.prompt("think")
    await session.prompt("/preset implement")
    await session.prompt("build")
    await session.prompt("/preset")  # the picker: (none)
    await session.prompt("plain run")

    plan, implement, plain = server.requests
    assert request_tools(plan) == ["read", "grep"]
    assert "<preset>\nOnly write a plan.\n</preset>" in plan.json["messages"][0]["content"]
    assert request_tools(implement) == ["read", "bash", "edit", "write"]
    assert "Project rules: small changes." in implement.json["messages"][0]["content"]
    assert "<preset>" not in plain.json["messages"][0]["content"]
    assert request_tools(plain) == ["read", "bash", "edit", "write"]
    options = picks.dialogs[0]["options"]
    assert options[1].startswith("implement (active): tools:read,bash,edit,write | ")
    assert picks.status("preset") is None
    saved = [e["data"] for e in session.session_manager.get_entries() if e.get("customType") == "preset-state"]
    assert saved[0] == {"name": "plan"} and {"name": "implement"} in saved

    await session.prompt("/preset nope")
    assert picks.notifications[-1] == ('No preset "nope". Available: plan, implement', "error")
    await result.runtime.shutdown()


# -- tools -------------------------------------------------------------------------------------


async def test_tools_command_switches_and_the_choice_survives_a_resume(server: FakeLLMServer, tmp_path: Path) -> None:
    reply(server, "ok", "ok")
    client = UIClient({"value": "[x] bash"}, {"value": "[ ] grep"}, {"value": "Done"})
    result = await sdk_session(server, tmp_path, "tools", client=client)
    await result.session.prompt("/tools")
    await result.session.prompt("go")
    assert request_tools(server.requests[0]) == ["read", "edit", "write", "grep"]
    options = client.dialogs[0]["options"]
    assert options[:2] == ["[x] read", "[x] bash"] and "[ ] grep" in options and options[-1] == "Done"
    assert "[ ] bash" in client.dialogs[1]["options"]
    manager = result.session.session_manager
    await result.runtime.shutdown()

    resumed = await sdk_session(server, tmp_path, "tools", session_manager=manager)
    await resumed.session.prompt("again")
    assert request_tools(server.requests[1]) == ["read", "edit", "write", "grep"]
    await resumed.runtime.shutdown()


# -- handoff -----------------------------------------------------------------------------------


async def test_handoff_writes_a_prompt_and_opens_a_new_session_with_it(server: FakeLLMServer, tmp_path: Path) -> None:
    server.push(
        ScriptedResponse(steps=[TextStep("The users API now validates emails in api/users.py.")]),
        ScriptedResponse(steps=[TextStep("## Context\nEmail validation in api/users.py\n\n## Task\nDo teams")]),
    )
    client = UIClient({"value": "## Task\nAdd email validation to api/teams.py"})
    result = await sdk_session(server, tmp_path, "handoff", client=client)
    old_session = result.session
    await old_session.prompt("add email validation to the users API")

    await old_session.prompt("/handoff now do the same for teams")

    request = server.requests[1].json
    assert request["messages"][0]["role"] == "system"
    asked = last_user_text(server.requests[1])
    assert "email validation to the users API" in asked and "now do the same for teams" in asked
    assert client.dialogs[0]["method"] == "editor"
    assert client.dialogs[0]["prefill"].startswith("## Context\nEmail validation")
    new_session = result.runtime.session
    assert new_session is not old_session
    assert client.requests[-2]["method"] == "set_editor_text"
    assert client.requests[-2]["text"] == "## Task\nAdd email validation to api/teams.py"
    assert client.notifications[-1] == ("Handoff prompt ready: edit it or send it", "info")
    assert [m["role"] for m in new_session.get_messages()] == []
    await result.runtime.shutdown()


async def test_handoff_needs_a_goal_and_a_conversation(server: FakeLLMServer, tmp_path: Path) -> None:
    client = UIClient()
    result = await sdk_session(server, tmp_path, "handoff", client=client)
    await result.session.prompt("/handoff")
    await result.session.prompt("/handoff do more")
    assert client.notifications == [
        ("Usage: /handoff <goal of the new session>", "error"),
        ("Nothing to hand off yet", "error"),
    ]
    assert server.requests == []
    await result.runtime.shutdown()


# -- summarize ---------------------------------------------------------------------------------


async def test_summarize_asks_the_summary_model_and_shows_the_answer(server: FakeLLMServer, tmp_path: Path) -> None:
    from _examples_support import FAKE_API, load_example

    server.push(
        ScriptedResponse(steps=[ToolCallStep("ls", {"path": "."}, id="c1")]),
        ScriptedResponse(steps=[TextStep("There is nothing here yet.")]),
        ScriptedResponse(steps=[TextStep("## Goal\nLook at the project")]),
    )
    client = UIClient()
    factory = load_example("summarize").create_extension("fake/summarizer")
    result = await sdk_session(server, tmp_path, client=client, extension_factories=[factory])
    result.session.model_runtime.add_model(server.model(FAKE_API, model_id="summarizer"))
    await result.session.prompt("what is in this folder?")
    entries_before = len(result.session.session_manager.get_entries())

    await result.session.prompt("/summarize")

    summary_request = server.requests[2].json
    assert summary_request["model"] == "summarizer"
    asked = last_user_text(server.requests[2])
    assert "User: what is in this folder?" in asked
    assert 'Tool ls called with {"path": "."}' in asked
    assert "Assistant: There is nothing here yet." in asked
    assert client.notifications[-1] == ("Conversation summary\n\n## Goal\nLook at the project", "info")
    assert len(result.session.session_manager.get_entries()) == entries_before  # nothing added
    await result.runtime.shutdown()


async def test_summarize_reports_an_unknown_model(server: FakeLLMServer, tmp_path: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("hi")]))
    client = UIClient()
    result = await sdk_session(server, tmp_path, "summarize", client=client)
    await result.session.prompt("/summarize")
    assert client.notifications == [("There is no conversation to summarise", "warning")]
    await result.session.prompt("hello")
    await result.session.prompt("/summarize")
    assert client.notifications[-1][1] == "warning"
    assert len(server.requests) == 1
    await result.runtime.shutdown()


# -- github-issue-autocomplete -----------------------------------------------------------------

ISSUES = [
    {"number": 1234, "title": "Crash when the config is empty", "state": "OPEN"},
    {"number": 1250, "title": "Add a dark theme", "state": "OPEN"},
    {"number": 87, "title": "Docs: typo in README", "state": "OPEN"},
]


class PlainCompletions:
    """Stands in for the editor's own provider: answers everything with one item."""

    async def get_suggestions(self, lines: list[str], line: int, col: int, options: Any) -> Any:
        return {"items": [{"value": "base", "label": "base"}], "prefix": ""}

    def apply_completion(self, lines: list[str], line: int, col: int, item: Any, prefix: str) -> Any:
        return ("applied", item["value"], prefix)


@pytest.fixture
def fake_gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``gh`` on PATH printing the issues as ``gh issue list --json`` does, logging its arguments."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "gh.log"
    (tmp_path / "issues.json").write_text(json.dumps(ISSUES))
    script = bin_dir / "gh"
    script.write_text(f'#!/bin/sh\necho "$@" >> {log}\ncat {tmp_path / "issues.json"}\n')
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


class AutocompleteUI(RpcExtensionUI):
    """The RPC UI plus the ``add_autocomplete_provider`` the interactive editor offers (recorded)."""

    def __init__(self, send: Any) -> None:
        super().__init__(send)
        self.factories: list[Any] = []

    def add_autocomplete_provider(self, factory: Any) -> None:
        self.factories.append(factory)


async def test_issue_autocomplete_suggests_issues_after_a_hash(tmp_path: Path, fake_gh: Path) -> None:
    repo = git_repo(tmp_path / "repo")
    git(repo, "remote", "add", "origin", "git@github.com:acme/widgets.git")
    client = UIClient()
    client.ui = ui = AutocompleteUI(client._receive)
    runner, errors = await bound_runner("github_issue_autocomplete", ExampleHost(repo), client=client)
    await runner.emit("session_start", {"reason": "startup"})
    assert errors == [] and len(ui.factories) == 1
    provider = ui.factories[0](PlainCompletions())

    numbers = await provider.get_suggestions(["see #12"], 0, 7, {})
    assert [item["value"] for item in numbers["items"]] == ["#1234", "#1250"] and numbers["prefix"] == "#12"
    words = await provider.get_suggestions(["#theme"], 0, 6, {})
    assert words["items"] == [{"value": "#1250", "label": "#1250", "description": "[open] Add a dark theme"}]
    plain = await provider.get_suggestions(["word#12"], 0, 7, {})
    assert plain["items"][0]["value"] == "base"  # '#' inside a word is not an issue reference
    assert provider.apply_completion(["#12"], 0, 3, {"value": "#1234"}, "#12") == ("applied", "#1234", "#12")
    assert fake_gh.read_text().splitlines() == [
        "issue list --repo acme/widgets --state open --limit 100 --json number,title,state"
    ]  # fetched once for the whole session


async def test_issue_autocomplete_explains_why_there_are_no_issues(tmp_path: Path, fake_gh: Path) -> None:
    repo = git_repo(tmp_path / "repo")
    git(repo, "remote", "add", "origin", "git@gitlab.com:acme/widgets.git")
    client = UIClient()
    client.ui = ui = AutocompleteUI(client._receive)
    runner, _ = await bound_runner("github_issue_autocomplete", ExampleHost(repo), client=client)
    await runner.emit("session_start", {"reason": "startup"})
    assert ui.factories == []
    assert client.notifications == [("github-issue-autocomplete: no GitHub remote in this repository", "error")]
    assert not fake_gh.exists()


async def test_send_user_message_steers_and_queues_while_the_agent_works(server: FakeLLMServer, tmp_path: Path) -> None:
    import asyncio

    from pi_harness.coding.extensions import ExtensionAPI, ToolResult

    started, release = asyncio.Event(), asyncio.Event()

    def blocking_tool(pi: ExtensionAPI) -> None:
        @pi.tool(name="wait", label="Wait", description="Waits.", parameters={"type": "object", "properties": {}})
        async def wait(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> ToolResult:
            started.set()
            await release.wait()
            return ToolResult("waited")

    server.push(
        ScriptedResponse(steps=[ToolCallStep("wait", {}, id="c1")]),
        ScriptedResponse(steps=[TextStep("steered")]),
        ScriptedResponse(steps=[TextStep("followed up")]),
    )
    client = UIClient()
    result = await sdk_session(
        server, tmp_path, "send_user_message", client=client, extension_factories=[blocking_tool]
    )
    session = result.session
    run = asyncio.ensure_future(session.prompt("start"))
    await started.wait()  # the agent is inside the tool call now

    await session.prompt("/ask are you there?")
    await session.prompt("/steer focus on the tests")
    await session.prompt("/followup then update the docs")
    release.set()
    await run
    await session.wait_for_idle()

    assert client.notifications == [
        ("The agent is working: use /steer or /followup", "warning"),
        ("Queued as a follow-up", "info"),
    ]
    assert [last_user_text(request) for request in server.requests] == [
        "start",
        "focus on the tests",
        "then update the docs",
    ]
    await result.runtime.shutdown()


async def test_input_transform_streaming_leaves_steering_messages_alone(server: FakeLLMServer, tmp_path: Path) -> None:
    import asyncio

    from pi_harness.coding.extensions import ExtensionAPI, ToolResult

    repo = git_repo(tmp_path / "repo", {"app.py": "print(1)\n"})
    (repo / "app.py").write_text("print(2)\n")
    started, release = asyncio.Event(), asyncio.Event()

    def blocking_tool(pi: ExtensionAPI) -> None:
        @pi.tool(name="wait", label="Wait", description="Waits.", parameters={"type": "object", "properties": {}})
        async def wait(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> ToolResult:
            started.set()
            await release.wait()
            return ToolResult("waited")

    server.push(ScriptedResponse(steps=[ToolCallStep("wait", {}, id="c1")]), ScriptedResponse(steps=[TextStep("ok")]))
    result = await sdk_session(server, repo, "input_transform_streaming", extension_factories=[blocking_tool])
    run = asyncio.ensure_future(result.session.prompt("start"))
    await started.wait()
    await result.session.prompt("undo that change", streaming_behavior="steer")
    release.set()
    await run
    await result.session.wait_for_idle()
    assert last_user_text(server.requests[1]) == "undo that change"  # no diffstat appended
    await result.runtime.shutdown()


async def test_preset_shortcut_cycles_through_none_and_the_presets(
    server: FakeLLMServer, tmp_path: Path, agent_dir: Path
) -> None:
    (agent_dir / "presets.json").write_text(json.dumps(PRESETS))
    client = UIClient()
    result = await sdk_session(server, tmp_path, "preset", client=client)
    runner = result.session.extensions
    (shortcut, _path), *_ = [item for item in runner.shortcuts() if item[0].key == "ctrl+shift+u"]

    seen = []
    for _ in range(4):
        await shortcut.handler(runner.create_context())
        seen.append(client.status("preset"))
    assert seen == ["preset:implement", "preset:plan", None, "preset:implement"]  # sorted, then (none)
    assert result.session.get_active_tool_names() == ["read", "bash", "edit", "write"]
    await result.runtime.shutdown()


# -- notify (the parts that do not need the event) --------------------------------------------


def test_notify_picks_the_terminal_protocol(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from _examples_support import load_example

    notify = load_example("notify")
    for name in ("WT_SESSION", "KITTY_WINDOW_ID"):
        monkeypatch.delenv(name, raising=False)
    notify.send_notification("Pi", "Waiting for your input")
    assert capsys.readouterr().out == "\x1b]777;notify;Pi;Waiting for your input\x07"
    monkeypatch.setenv("KITTY_WINDOW_ID", "1")
    notify.send_notification("Pi", "ready")
    assert capsys.readouterr().out == "\x1b]99;i=1:d=0;Pi\x1b\\\x1b]99;i=1:p=body;ready\x1b\\"
    monkeypatch.setenv("WT_SESSION", "x")
    monkeypatch.setenv("PATH", "")  # no powershell.exe: the toast is skipped quietly
    notify.send_notification("Pi", "ready")
    assert capsys.readouterr().out == ""
    assert "CreateToastNotifier('Pi')" in notify.toast_script("Pi", "ready")
