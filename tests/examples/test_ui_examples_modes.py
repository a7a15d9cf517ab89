"""The UI examples outside the terminal: all of them load together in print mode and leave the
answer alone; over RPC their status and widgets travel as requests and terminal-only calls send
nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from _examples_support import UIClient, example_path, sdk_session
from _ui_support import write_fake_provider

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

UI_EXAMPLES = (
    "border_status_editor", "built_in_tool_renderer", "custom_footer", "custom_header", "doom_overlay",
    "entry_renderer", "hidden_thinking_label", "interactive_shell", "mac_system_theme", "message_renderer",
    "minimal_mode", "modal_editor", "model_status", "overlay_qa_tests", "overlay_test", "qna", "question",
    "questionnaire", "rainbow_editor", "snake", "space_invaders", "status_line", "tic_tac_toe",
    "titlebar_spinner", "widget_placement", "working_indicator", "working_message_test",
)  # fmt: skip


def test_every_ui_example_has_an_index_entry() -> None:
    index = (example_path("snake").parent / "README.md").read_text()
    for name in UI_EXAMPLES:
        assert f"pi -e examples/extensions/{name}.py" in index, name
        assert example_path(name).read_text().startswith('"""'), name  # the docstring comes first


def test_all_ui_examples_load_together_in_print_mode(tmp_path: Path, agent_dir: Path) -> None:
    with FakeLLMServer() as server:
        write_fake_provider(agent_dir, server)
        server.push(ScriptedResponse([TextStep("Plain answer.")]))
        cwd = tmp_path / "project"
        cwd.mkdir()
        args = [arg for name in UI_EXAMPLES for arg in ("-e", str(example_path(name)))]
        pi = str(Path(sys.executable).with_name("pi"))
        env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent_dir), "PI_OFFLINE": "1"}
        done = subprocess.run([pi, *args, "-p", "hello"], cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=120, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stdout == "Plain answer.\n"
        tools = [t["function"]["name"] for t in server.requests[0].json["tools"]]
        assert {"question", "questionnaire", "tic_tac_toe"} <= set(tools) and tools.count("bash") == 1


async def test_rpc_gets_status_and_widgets_but_no_terminal_features(tmp_path: Path) -> None:
    client = UIClient()
    with FakeLLMServer() as server:
        server.push(ScriptedResponse([TextStep("ok")]))
        result = await sdk_session(server, tmp_path, "status_line", "widget_placement", "working_message_test",
                                   "custom_footer", "modal_editor", client=client)  # fmt: skip
        await result.session.prompt("go")
    assert client.status("turns") is not None and "turn 1 done" in client.status("turns")  # type: ignore[operator]
    assert client.widget("placement-below") == ["Widget below the editor"]
    methods = {record["method"] for record in client.requests}
    assert methods <= {"setStatus", "setWidget", "notify"}, json.dumps(client.requests)
