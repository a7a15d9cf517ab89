"""The installed ``pi`` command with a TypeScript extension: found, run, and the process exits."""

from __future__ import annotations

from pathlib import Path

from _pi_env import PiEnv

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep, ToolCallStep

SHOUT = """
import { Type } from "typebox";
export default function (pi: any) {
  pi.registerFlag("loud", { type: "boolean", default: false });
  pi.registerTool({
    name: "shout", label: "Shout", description: "shouts",
    parameters: Type.Object({ text: Type.String() }),
    async execute(_id: string, params: { text: string }) {
      const text = pi.getFlag("loud") ? params.text.toUpperCase() : params.text;
      return { content: [{ type: "text", text }] };
    },
  });
}
"""


def test_print_mode_runs_a_project_typescript_extension(pi_env: PiEnv, node: str) -> None:
    extensions = pi_env.cwd / ".pi" / "extensions"
    extensions.mkdir(parents=True)
    (extensions / "shout.ts").write_text(SHOUT)
    pi_env.server.push(
        ScriptedResponse(steps=[ToolCallStep("shout", {"text": "hello"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    pi_env.env["PI_NODE"] = node
    result = pi_env.run("--approve", "--loud", "-p", "shout")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "done"
    tool_messages = [m for m in pi_env.server.requests[1].json["messages"] if m["role"] == "tool"]
    assert "HELLO" in str(tool_messages[0]["content"])


def test_without_node_one_line_names_the_skipped_extension(pi_env: PiEnv, tmp_path: Path) -> None:
    (pi_env.agent_dir / "extensions").mkdir()
    extension = pi_env.agent_dir / "extensions" / "shout.ts"
    extension.write_text(SHOUT)
    pi_env.server.push(ScriptedResponse(steps=[TextStep("fine")]))
    pi_env.env["PI_NODE"] = str(tmp_path / "missing-node")
    result = pi_env.run("-p", "hi")
    assert result.stdout.strip() == "fine", result.stderr
    lines = [line for line in result.stderr.splitlines() if "shout.ts" in line]
    assert len(lines) == 1 and "Node.js >= 22.6 is needed" in lines[0]
