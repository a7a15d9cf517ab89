"""The Node bridge's own rules, with small extensions written for the test: failure semantics,
the typebox stand-in, abort signals across the channel, restarts, and running without Node."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from _agent_session_helpers import make_session

from pi_harness.ai.abort import AbortController
from pi_harness.coding.extensions.node_bridge import discovery
from pi_harness.coding.extensions.node_bridge.protocol import SIDECAR_DIED
from pi_harness.coding.extensions.types import ExtensionErrorRecord
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

FAILING = """
import { Type } from "typebox";
export default function (pi) {
  pi.registerTool({
    name: "boom", label: "Boom", description: "always fails",
    parameters: Type.Object({ why: Type.String(), loud: Type.Optional(Type.Boolean()) }),
    async execute(_id, params) { throw new Error(`boom: ${params.why}`); },
  });
  pi.registerTool({
    name: "die", label: "Die", description: "ends the sidecar",
    parameters: Type.Object({}),
    async execute() { process.exit(3); },
  });
  pi.registerTool({
    name: "ok", label: "Ok", description: "works",
    parameters: Type.Object({}),
    async execute(_id, _p, _s, _u, ctx) { return { content: [{ type: "text", text: `ok in ${ctx.cwd}` }] }; },
  });
  pi.on("tool_call", (event) => {
    if (event.toolName === "bash") throw new Error("gate crashed");
  });
  pi.on("turn_start", () => { throw new Error("turn handler crashed"); });
}
"""

WAITING = """
export default function (pi) {
  pi.registerTool({
    name: "wait", label: "Wait", description: "waits for its abort signal",
    parameters: { type: "object", properties: {} },
    execute(_id, _params, signal) {
      return new Promise((resolve) => {
        signal.addEventListener("abort", () => {
          resolve({ content: [{ type: "text", text: "saw abort" }], isError: true });
        });
      });
    },
  });
}
"""


def _results(session: Any) -> dict[str, dict[str, Any]]:
    return {m["toolCallId"]: m for m in session.get_messages() if m["role"] == "toolResult"}


async def test_errors_follow_the_python_extension_rules(node: str, server: FakeLLMServer, project: Path) -> None:
    extension = project / "failing.ts"
    extension.write_text(FAILING)
    errors: list[ExtensionErrorRecord] = []
    server.push(
        ScriptedResponse(
            steps=[
                ToolCallStep("boom", {"why": "because"}, id="c1"),
                ToolCallStep("bash", {"command": "echo hi"}, id="c2"),
            ]
        ),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    result = await make_session(server, project, extension_paths=[str(extension)])
    result.session.extensions.on_error(errors.append)
    await result.session.prompt("go")
    results = _results(result.session)
    # A tool that throws gives an isError result with its message.
    assert results["c1"]["isError"] is True and "boom: because" in results["c1"]["content"][0]["text"]
    # A tool_call handler that throws blocks the call (fail closed).
    assert results["c2"]["isError"] is True
    # Other handlers' errors go to the error channel and the run goes on.
    assert {(e.event, e.error) for e in errors} >= {("turn_start", "turn handler crashed")}
    assert result.session.get_messages()[-1]["content"] == [{"type": "text", "text": "done"}]
    # The typebox stand-in (no typebox next to this file) gives JSON Schema, optional marked.
    tools = {t["function"]["name"]: t["function"] for t in server.requests[0].json["tools"]}
    assert tools["boom"]["parameters"]["required"] == ["why"]
    assert tools["boom"]["parameters"]["properties"]["loud"] == {"type": "boolean"}
    await result.runtime.shutdown()


async def test_a_dead_sidecar_fails_its_tool_and_restarts(node: str, server: FakeLLMServer, project: Path) -> None:
    extension = project / "failing.mjs"
    extension.write_text(FAILING.replace(": Type.Optional(Type.Boolean())", ": Type.Boolean()"))
    server.push(
        ScriptedResponse(steps=[ToolCallStep("die", {}, id="c1")]),
        ScriptedResponse(steps=[ToolCallStep("ok", {}, id="c2")]),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    result = await make_session(server, project, extension_paths=[str(extension)])
    await result.session.prompt("go")
    results = _results(result.session)
    assert results["c1"]["isError"] is True and results["c1"]["content"][0]["text"] == SIDECAR_DIED
    # The next call started a new sidecar, which loaded the extension again.
    assert results["c2"]["content"] == [{"type": "text", "text": f"ok in {project}"}]
    assert [t.name for e in result.session.extensions.extensions for t in e.tools] == ["boom", "die", "ok"]
    await result.runtime.shutdown()


async def test_abort_reaches_the_tool_in_node(node: str, server: FakeLLMServer, project: Path) -> None:
    extension = project / "waiting.js"
    extension.write_text(WAITING)
    result = await make_session(server, project, extension_paths=[str(extension)])
    tool = next(t for e in result.session.extensions.extensions for t in e.tools if t.name == "wait")
    controller = AbortController()
    running = asyncio.ensure_future(tool.execute("c1", {}, controller.signal, None, None))
    await asyncio.sleep(0)
    assert not running.done()
    controller.abort()
    answer = await asyncio.wait_for(running, 20)
    assert answer == {"content": [{"type": "text", "text": "saw abort"}], "isError": True}
    await result.runtime.shutdown()


async def test_without_node_the_extension_is_skipped_with_one_line(
    server: FakeLLMServer, project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    extension = project / "skipped.ts"
    extension.write_text(WAITING)
    monkeypatch.setenv(discovery.NODE_ENV, str(project / "no-such-node"))
    result = await make_session(server, project, extension_paths=[str(extension)])
    assert result.session.extensions.load_failures == []
    assert [t.name for e in result.session.extensions.extensions for t in e.tools] == []
    lines = [line for line in capsys.readouterr().err.splitlines() if str(extension) in line]
    assert len(lines) == 1
    assert lines[0].startswith(f"Warning: {extension}: TypeScript/JavaScript extension skipped: Node.js >= 22.6")
    await result.runtime.shutdown()


DIALOGS = """
export default function (pi) {
  pi.registerFlag("shout", { type: "boolean", default: false, description: "louder" });
  pi.registerCommand("ask", {
    description: "asks the user",
    handler: async (args, ctx) => {
      const shown = await ctx.ui.custom(() => ({ render: () => ["a game"] }));
      const color = await ctx.ui.select("Color?", ["red", "blue"]);
      const sure = await ctx.ui.confirm("Sure?", `picked ${color}`);
      const name = await ctx.ui.input("Name?", "placeholder");
      const entries = ctx.sessionManager.getEntries().length;
      const branch = ctx.sessionManager.getBranch().map((e) => e.type);
      pi.appendEntry("asked", { shown: shown ?? "nothing", color, sure, name, args, shout: pi.getFlag("shout"), entries, branch });
      pi.setActiveTools(["read"]);
      ctx.ui.notify(`${name} likes ${color}`, "info");
      ctx.ui.setStatus("ask", `hasUI=${ctx.hasUI}`);
    },
  });
}
"""


class AnsweringUI:
    """A user interface that answers every dialog and records what it was told."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.told: list[tuple[str, str | None]] = []

    async def select(self, title: str, options: list[str], **_options: object) -> str | None:
        self.asked.append(f"select {title} {options}")
        return options[-1]

    async def confirm(self, title: str, message: str = "", **_options: object) -> bool:
        self.asked.append(f"confirm {title} {message}")
        return True

    async def input(self, title: str, placeholder: str | None = None, **_options: object) -> str | None:
        self.asked.append(f"input {title} {placeholder}")
        return "Ada"

    def notify(self, message: str, type: str = "info") -> None:
        self.told.append((message, type))

    def set_status(self, key: str, text: str | None) -> None:
        self.told.append((key, text))

    def get_editor_text(self) -> str:
        return ""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


async def test_dialogs_state_and_actions_cross_the_channel(node: str, server: FakeLLMServer, project: Path) -> None:
    extension = project / "dialogs.ts"
    extension.write_text(DIALOGS)
    server.push(ScriptedResponse(steps=[TextStep("hi")]))
    result = await make_session(server, project, extension_paths=[str(extension)], extension_flags={"shout": True})
    session = result.session
    ui = AnsweringUI()
    await session.bind_extensions(ui=ui, has_ui=True, mode="interactive")  # type: ignore[arg-type]  # duck-typed UI
    errors: list[ExtensionErrorRecord] = []
    session.extensions.on_error(errors.append)
    await session.prompt("first")
    await session.prompt("/ask now")
    assert errors == []
    assert ui.asked == ["select Color? ['red', 'blue']", "confirm Sure? picked blue", "input Name? placeholder"]
    # A pi-tui component cannot be shown: custom() gives undefined, with a one-time warning.
    assert ui.told[0][1] == "warning" and ui.told[0][0].startswith("ctx.ui.custom (a pi-tui component) is not bridged")
    assert ui.told[1:] == [("Ada likes blue", "info"), ("ask", "hasUI=true")]
    custom = [e for e in session.session_manager.get_entries() if e["type"] == "custom"]
    assert len(custom) == 1 and custom[0]["customType"] == "asked"
    data = custom[0]["data"]
    assert {k: data[k] for k in ("shown", "color", "sure", "name", "args", "shout")} == {
        "shown": "nothing",
        "color": "blue",
        "sure": True,
        "name": "Ada",
        "args": "now",
        "shout": True,
    }
    assert data["branch"][-2:] == ["message", "message"] and data["entries"] >= 2
    assert session.get_active_tool_names() == ["read"]
    await result.runtime.shutdown()


SIGNALLED = """
export default function (pi) {
  pi.registerCommand("wait", {
    handler: async (_args, ctx) => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 20);
      const answer = await ctx.ui.confirm("Still there?", "", { signal: controller.signal });
      pi.appendEntry("answer", { answer, aborted: controller.signal.aborted });
    },
  });
}
"""


class WaitingUI(AnsweringUI):
    """A user who never answers: the dialog ends only when it is cancelled."""

    def __init__(self) -> None:
        super().__init__()
        self.cancelled = False

    async def confirm(self, title: str, message: str = "", **_options: object) -> bool:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return True


async def test_a_dialog_signal_in_node_cancels_the_dialog(node: str, server: FakeLLMServer, project: Path) -> None:
    extension = project / "signalled.js"
    extension.write_text(SIGNALLED)
    result = await make_session(server, project, extension_paths=[str(extension)])
    session = result.session
    ui = WaitingUI()
    await session.bind_extensions(ui=ui, has_ui=True, mode="interactive")  # type: ignore[arg-type]  # duck-typed UI
    await asyncio.wait_for(session.prompt("/wait"), 30)
    custom = [e for e in session.session_manager.get_entries() if e["type"] == "custom"]
    assert custom[0]["data"] == {"answer": False, "aborted": True}
    assert ui.cancelled
    await result.runtime.shutdown()
