from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from pi_harness.coding.extensions.api import NOT_INITIALIZED, ExtensionAPI
from pi_harness.coding.extensions.context import STALE_MESSAGE, StaleContextError
from pi_harness.coding.extensions.runner import ExtensionRunner
from pi_harness.coding.extensions.types import ExtensionErrorRecord


class MiniHost:
    """The smallest ExtensionHost: enough state for ctx in runner tests."""

    def __init__(self, cwd: str = "/tmp") -> None:
        self.cwd = cwd
        self.mode = "print"
        self.session_manager = None
        self.model_runtime = None
        self.model = None
        self.entries: list[tuple[str, Any]] = []

    def is_idle(self) -> bool:
        return True

    def append_custom_entry(self, custom_type: str, data: Any) -> str:
        self.entries.append((custom_type, data))
        return f"e{len(self.entries)}"

    def __getattr__(self, name: str) -> Any:  # everything else is unused by these tests
        raise AttributeError(name)


async def runner_with(
    *factories: Any, timeout_ms: int | None = None
) -> tuple[ExtensionRunner, list[ExtensionErrorRecord]]:
    runner = ExtensionRunner(handler_timeout_ms=timeout_ms)
    for index, factory in enumerate(factories):
        await runner.load_factory(factory, f"<inline:{index}>")
    errors: list[ExtensionErrorRecord] = []
    runner.on_error(errors.append)
    runner.bind(MiniHost())  # type: ignore[arg-type]
    return runner, errors


async def test_notify_runs_every_handler_in_load_order_and_reports_errors() -> None:
    seen: list[str] = []

    def first(pi: ExtensionAPI) -> None:
        @pi.on("turn_start")
        def a(event: Any, ctx: Any) -> None:
            seen.append(f"a{event.turn_index}")
            raise RuntimeError("boom")

    def second(pi: ExtensionAPI) -> None:
        @pi.on("turn_start")
        async def b(event: Any, ctx: Any) -> None:
            seen.append(f"b{event['turnIndex']}:{ctx.cwd}")

    runner, errors = await runner_with(first, second)
    await runner.emit("turn_start", {"turnIndex": 3})
    assert seen == ["a3", "b3:/tmp"]
    assert [(e.extension_path, e.event, e.error) for e in errors] == [("<inline:0>", "turn_start", "boom")]
    assert errors[0].to_dict()["extensionPath"] == "<inline:0>"


async def test_unknown_event_name_is_rejected() -> None:
    def bad(pi: ExtensionAPI) -> None:
        pi.on("tool_calls", lambda e, c: None)

    runner = ExtensionRunner()
    with pytest.raises(Exception, match="Unknown extension event: tool_calls"):
        await runner.load_factory(bad, "x")


async def test_tool_call_first_block_short_circuits_and_raise_propagates() -> None:
    calls: list[str] = []

    def blocker(pi: ExtensionAPI) -> None:
        @pi.on("tool_call")
        def gate(event: Any, ctx: Any) -> Any:
            calls.append("blocker")
            if event.input.get("command") == "rm -rf /":
                return {"block": True, "reason": "no way"}
            if event.input.get("command") == "explode":
                raise ValueError("gate failed")
            return None

    def later(pi: ExtensionAPI) -> None:
        @pi.on("tool_call")
        def gate(event: Any, ctx: Any) -> Any:
            calls.append("later")
            return None

    runner, errors = await runner_with(blocker, later)
    assert await runner.emit_tool_call({"toolName": "bash", "toolCallId": "1", "input": {"command": "ls"}}) is None
    assert calls == ["blocker", "later"]
    calls.clear()
    result = await runner.emit_tool_call({"toolName": "bash", "toolCallId": "2", "input": {"command": "rm -rf /"}})
    assert result == {"block": True, "reason": "no way"} and calls == ["blocker"]
    with pytest.raises(ValueError, match="gate failed"):
        await runner.emit_tool_call({"toolName": "bash", "toolCallId": "3", "input": {"command": "explode"}})
    assert errors == []


async def test_tool_result_patches_chain_and_redact_structured_content() -> None:
    def redact(pi: ExtensionAPI) -> None:
        @pi.on("tool_result")
        def r(event: Any, ctx: Any) -> Any:
            text = event.content[0]["text"].replace("SECRET", "***")
            return {"content": [{"type": "text", "text": text}], "structuredContent": {"token": "***"}}

    def broken(pi: ExtensionAPI) -> None:
        @pi.on("tool_result")
        def r(event: Any, ctx: Any) -> Any:
            raise RuntimeError("bad handler")

    def annotate(pi: ExtensionAPI) -> None:
        @pi.on("tool_result")
        def r(event: Any, ctx: Any) -> Any:
            assert "***" in event.content[0]["text"]  # sees the previous patch
            return {"details": {"checked": True}}

    runner, errors = await runner_with(redact, broken, annotate)
    patch = await runner.emit_tool_result(
        {
            "toolName": "bash",
            "toolCallId": "1",
            "input": {},
            "content": [{"type": "text", "text": "SECRET=1"}],
            "details": {},
            "isError": False,
            "structuredContent": {"token": "SECRET"},
        }
    )
    assert patch == {
        "content": [{"type": "text", "text": "***=1"}],
        "structuredContent": {"token": "***"},
        "details": {"checked": True},
    }
    assert [e.error for e in errors] == ["bad handler"]


async def test_input_transforms_chain_and_handled_stops() -> None:
    def upper(pi: ExtensionAPI) -> None:
        pi.on("input", lambda e, c: {"action": "transform", "text": e.text.upper()})

    def handle(pi: ExtensionAPI) -> None:
        pi.on("input", lambda e, c: {"action": "handled"} if e.text == "STOP" else {"action": "continue"})

    runner, _ = await runner_with(upper, handle)
    assert (await runner.emit_input("hi", None, "rpc"))["text"] == "HI"
    assert (await runner.emit_input("stop", None, "rpc"))["action"] == "handled"


async def test_context_transform_keeps_previous_on_error() -> None:
    def drop_first(pi: ExtensionAPI) -> None:
        pi.on("context", lambda e, c: {"messages": e.messages[1:]})

    def broken(pi: ExtensionAPI) -> None:
        def h(e: Any, c: Any) -> Any:
            raise RuntimeError("x")

        pi.on("context", h)

    runner, errors = await runner_with(drop_first, broken)
    out = await runner.emit_transform("context", {"messages": [1, 2, 3]}, ("messages",))
    assert out["messages"] == [2, 3] and len(errors) == 1
    body = await runner.emit_transform(
        "before_provider_request", {"payload": {"a": 1}}, ("payload",), bare_result_key="payload"
    )
    assert body["payload"] == {"a": 1}


async def test_before_provider_request_bare_result_replaces_payload() -> None:
    def replace(pi: ExtensionAPI) -> None:
        pi.on("before_provider_request", lambda e, c: {**e.payload, "temperature": 0})

    runner, _ = await runner_with(replace)
    out = await runner.emit_transform(
        "before_provider_request", {"payload": {"model": "m"}}, ("payload",), bare_result_key="payload"
    )
    assert out["payload"] == {"model": "m", "temperature": 0}


async def test_session_before_first_cancel_wins_else_last_result() -> None:
    def a(pi: ExtensionAPI) -> None:
        pi.on("session_before_fork", lambda e, c: {"skipConversationRestore": True})

    def b(pi: ExtensionAPI) -> None:
        pi.on("session_before_fork", lambda e, c: {"cancel": e.entry_id == "x"} if e.entry_id == "x" else None)

    runner, _ = await runner_with(a, b)
    assert await runner.emit_session_before("session_before_fork", {"entryId": "y"}) == {
        "skipConversationRestore": True
    }
    assert await runner.emit_session_before("session_before_fork", {"entryId": "x"}) == {"cancel": True}


async def test_project_trust_first_answer_and_actionable_continue() -> None:
    def abstain(pi: ExtensionAPI) -> None:
        pi.on("project_trust", lambda e: None)

    def says_yes(pi: ExtensionAPI) -> None:
        pi.on("project_trust", lambda e: "yes")
        pi.on("turn_end", lambda e, c: {"continue": True})

    runner, _ = await runner_with(abstain, says_yes)
    assert await runner.emit_project_trust("/p", ["/p/.pi/skills"]) is True
    assert await runner.emit_actionable("turn_end", {"turnIndex": 0}) is True


async def test_handler_timeout_reports_and_gates_fail_closed() -> None:
    def slow(pi: ExtensionAPI) -> None:
        async def h(e: Any, c: Any) -> None:
            await asyncio.sleep(5)

        pi.on("turn_start", h)
        pi.on("tool_call", h)

    runner, errors = await runner_with(slow, timeout_ms=30)
    await runner.emit("turn_start", {})
    assert errors and "timed out after 30 ms" in errors[0].error
    with pytest.raises(Exception, match="timed out"):
        await runner.emit_tool_call({"toolName": "bash", "toolCallId": "1", "input": {}})


async def test_actions_during_loading_raise_and_stale_contexts() -> None:
    captured: dict[str, Any] = {}

    def eager(pi: ExtensionAPI) -> None:
        try:
            pi.append_entry("x", {})
        except RuntimeError as exc:
            captured["error"] = str(exc)

        @pi.on("session_start")
        def keep(e: Any, ctx: Any) -> None:
            captured["ctx"] = ctx
            captured["entry"] = pi.append_entry("state", {"n": 1})

    runner, _ = await runner_with(eager)
    assert captured["error"] == NOT_INITIALIZED
    await runner.emit("session_start", {})
    assert captured["entry"] == "e1"
    runner.invalidate()
    with pytest.raises(StaleContextError, match=re.escape(STALE_MESSAGE)):
        _ = captured["ctx"].cwd


async def test_conflicts_and_flags(tmp_path: Path) -> None:
    def one(pi: ExtensionAPI) -> None:
        pi.register_command("deploy", lambda a, c: None)
        pi.register_command("model", lambda a, c: None)
        pi.register_flag("plan", type="boolean", default=False)

        @pi.tool(name="hello", description="d", parameters={"type": "object"})
        async def hello(*args: Any) -> Any:
            return None

    def two(pi: ExtensionAPI) -> None:
        pi.register_command("deploy", lambda a, c: None)
        pi.register_flag("plan")

        @pi.tool(name="hello", description="other", parameters={"type": "object"})
        async def hello(*args: Any) -> Any:
            return None

    runner, _ = await runner_with(one, two)
    commands, diagnostics = runner.commands(builtin_names=["model"])
    assert [c.name for c, _ in commands] == ["deploy"]
    assert diagnostics == [
        "Extension command 'model' from <inline:0> conflicts with built-in commands. Skipping.",
        "Extension command 'deploy' from <inline:1> conflicts with <inline:0>. Skipping.",
    ]
    assert runner.flags()[1] == ['Flag "--plan" conflicts with <inline:1>']
    assert [t.description for t, _ in runner.tool_definitions()] == ["d"]
    assert runner.tool_conflicts() == ['Tool "hello" conflicts with <inline:0>']


async def test_loading_files_and_failures(tmp_path: Path) -> None:
    good = tmp_path / "good.py"
    good.write_text("def extension(pi):\n    pi.register_flag('x')\n")
    nofactory = tmp_path / "nofactory.py"
    nofactory.write_text("x = 1\n")
    broken = tmp_path / "broken.py"
    broken.write_text("raise ImportError('missing dependency')\n")
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .impl import extension\n")
    (pkg / "impl.py").write_text("def extension(pi):\n    pi.register_flag('y')\n")
    runner = ExtensionRunner()
    failures = await runner.load_paths([str(good), str(nofactory), str(broken), str(pkg), "builtin:nope"])
    assert [e.path for e in runner.extensions] == [str(good), str(pkg)]
    assert [f.error for f in failures] == [
        f"Extension does not export a valid factory function: {nofactory}",
        "Failed to load extension: missing dependency",
        "Failed to load extension: unknown built-in extension builtin:nope",
    ]
