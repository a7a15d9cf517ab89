"""Pi's example extensions (Pi 1.4.0's ``examples/extensions``), run unchanged by the Node bridge.

Each example in ``WORKING`` is loaded alone into a session on the fake server, registers what
it registers in Pi (tools and commands, checked by name), and goes through a prompt turn with
no load failure and nothing on the error channel; the tools it registers are declared to the
model. ``test_examples_behaviour.py`` checks what several of them do. The examples that need
what the bridge does not offer are listed, with the reason, in docs/extensions-node.md.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from _agent_session_helpers import make_session

from pi_harness.coding.extensions.runner import ExtensionRunner
from pi_harness.coding.extensions.types import ExtensionErrorRecord
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

# (example, tools it registers, commands it registers)
WORKING: list[tuple[str, list[str], list[str]]] = [
    ("auto-commit-on-exit.ts", [], []),
    ("bash-spawn-hook.ts", ["bash"], []),
    ("bookmark.ts", [], ["bookmark", "unbookmark"]),
    ("built-in-tool-renderer.ts", ["read", "bash", "edit", "write"], []),
    ("claude-rules.ts", [], []),
    ("commands.ts", [], ["commands"]),
    ("confirm-destructive.ts", [], []),
    ("custom-compaction.ts", [], []),
    ("debug-provider.ts", [], ["debug-provider"]),
    ("dirty-repo-guard.ts", [], []),
    ("dynamic-resources", [], []),
    ("dynamic-tools.ts", [], ["add-echo-tool"]),
    ("entry-renderer.ts", [], ["status-card"]),
    ("event-bus.ts", [], ["emit"]),
    ("git-merge-and-resolve.ts", [], []),
    ("github-issue-autocomplete.ts", [], []),
    ("hello.ts", ["hello"], []),
    ("inline-bash.ts", [], []),
    ("input-transform-streaming.ts", [], []),
    ("input-transform.ts", [], []),
    ("jev-router.ts", [], []),
    ("message-renderer.ts", [], ["status"]),
    ("minimal-mode.ts", ["read", "bash", "write", "edit", "find", "grep", "ls"], []),
    ("model-status.ts", [], []),
    ("permission-gate.ts", [], []),
    ("pirate.ts", [], ["pirate"]),
    ("plan-mode", [], ["plan", "todos"]),
    ("preset.ts", [], ["preset"]),
    ("project-trust.ts", [], []),
    ("protected-paths.ts", [], []),
    ("qna.ts", [], ["qna"]),
    ("provider-payload.ts", [], []),
    ("question.ts", ["question"], []),
    ("questionnaire.ts", ["questionnaire"], []),
    ("reload-runtime.ts", ["reload_runtime"], ["reload-runtime"]),
    ("rpc-demo.ts", [], ["rpc-input", "rpc-editor", "rpc-prefill"]),
    ("sandbox", ["bash"], ["sandbox"]),
    ("send-user-message.ts", [], ["ask", "steer", "followup", "askwith"]),
    ("session-name.ts", [], ["session-name"]),
    ("shutdown-command.ts", ["finish_and_exit", "deploy_and_exit"], ["quit"]),
    ("ssh.ts", ["read", "write", "edit", "bash"], []),
    ("status-line.ts", [], []),
    ("structured-output.ts", ["structured_output"], []),
    ("subagent", ["subagent"], []),
    ("system-prompt-header.ts", [], []),
    ("timed-confirm.ts", [], ["timed", "timed-select", "timed-signal"]),
    ("todo.ts", ["todo"], ["todos"]),
    ("tool-override.ts", ["read"], ["read-log"]),
    ("trigger-compact.ts", [], ["trigger-compact"]),
    ("truncated-tool.ts", ["rg"], []),
    ("widget-placement.ts", [], []),
    ("with-deps", ["parse_duration"], []),
    ("working-message-test.ts", [], []),
]


# Several examples share one session (and so one sidecar) to keep the test time down; each
# example's registrations and errors are still checked on their own.
BATCH = 9
BATCHES = [WORKING[i : i + BATCH] for i in range(0, len(WORKING), BATCH)]


@pytest.mark.parametrize("batch", BATCHES, ids=["+".join(row[0] for row in batch) for batch in BATCHES])
async def test_examples_load_and_run_a_turn(
    batch: list[tuple[str, list[str], list[str]]], examples: Path, server: FakeLLMServer, project: Path
) -> None:
    (project / ".pi").mkdir()  # provider-payload.ts logs into <cwd>/.pi
    errors: list[ExtensionErrorRecord] = []
    paths = [str(examples / name) for name, _tools, _commands in batch]
    result = await make_session(server, project, extension_paths=paths)
    session = result.session
    runner = session.extensions
    runner.on_error(errors.append)
    assert runner.load_failures == []
    by_path = {e.path: e for e in runner.extensions}
    for (name, tools, commands), path in zip(batch, paths, strict=True):
        extension = by_path[path]
        assert ([t.name for t in extension.tools], [c.name for c in extension.commands]) == (tools, commands), name
    server.push(ScriptedResponse(steps=[TextStep("ok")]))
    await asyncio.wait_for(session.prompt("hello"), 30)
    assert session.get_messages()[-1]["content"] == [{"type": "text", "text": "ok"}]
    declared = {t["function"]["name"] for t in server.requests[-1].json.get("tools", [])}
    own_tools = {tool for _name, tools, _commands in batch for tool in tools}
    assert own_tools <= declared | {"find", "grep", "ls"}  # minimal-mode re-registers inactive built-ins
    await result.runtime.shutdown()
    assert [(e.extension_path, e.event, e.error) for e in errors] == []


async def test_all_79_examples_load(examples: Path) -> None:
    """Every example of Pi 1.4.0 loads (with the npm dependencies of gondolin and sandbox
    installed next to them), all into one runner. No session is started: gondolin would try
    to download its VM image at ``session_start``."""
    entries = sorted(str(p) for p in examples.iterdir() if p.name != "README.md")
    assert len(entries) == 79
    runner = ExtensionRunner()
    assert await runner.load_paths(entries) == []
    assert sorted(e.path for e in runner.extensions) == entries
    assert sum(len(e.tools) + len(e.commands) + len(e.handlers) for e in runner.extensions) >= 179
