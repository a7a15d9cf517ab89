"""Tool selection flags and ``-e`` extensions (tools, flags) as the model and the user see them."""

from __future__ import annotations

import json

import pytest
from _pi_env import PiEnv

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep, ToolCallStep

DEFAULT_TOOLS = {"read", "bash", "edit", "write"}

EXTENSION = """
def extension(pi):
    pi.register_flag("plan", type="boolean", default=False, description="Start in plan mode")
    pi.register_flag("label", type="string", default="none", description="A label")

    @pi.tool(
        name="shout",
        description="Repeat a text in capitals",
        parameters={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    )
    async def shout(tool_call_id, params, signal, on_update, ctx):
        text = params["text"].upper()
        suffix = f" plan={pi.get_flag('plan')} label={pi.get_flag('label')}"
        return {"content": [{"type": "text", "text": text + "!" + suffix}]}
"""


def tool_names(pi_env: PiEnv, index: int = 0) -> set[str]:
    body = pi_env.server.requests[index].json
    return {tool["function"]["name"] for tool in body.get("tools") or []}


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ([], DEFAULT_TOOLS),
        (["--tools", "read,ls"], {"read", "ls"}),
        (["--tools", "grep,find"], {"grep", "find"}),
        (["--exclude-tools", "bash,write"], {"read", "edit"}),
        (["--no-tools"], set()),
        (["--no-tools", "--tools", "read"], {"read"}),
    ],
)
def test_tool_flags_reach_the_request(pi_env: PiEnv, flags: list[str], expected: set[str]) -> None:
    pi_env.server.push(ScriptedResponse(steps=[TextStep("ok")]))
    result = pi_env.run(*flags, "-p", "hi")
    assert result.returncode == 0, result.stderr
    assert tool_names(pi_env) == expected


def test_an_unknown_tool_name_warns(pi_env: PiEnv) -> None:
    pi_env.server.push(ScriptedResponse(steps=[TextStep("ok")]))
    result = pi_env.run("--tools", "read,nosuchtool", "-p", "hi")
    assert result.returncode == 0, result.stderr
    assert 'Unknown tool "nosuchtool"' in result.stderr
    assert tool_names(pi_env) == {"read"}


def test_an_extension_tool_and_flags_in_print_mode(pi_env: PiEnv) -> None:
    extension = pi_env.cwd / "shout.py"
    extension.write_text(EXTENSION)
    pi_env.server.push(
        ScriptedResponse(steps=[ToolCallStep("shout", {"text": "hello"}, id="call_shout")]),
        ScriptedResponse(steps=[TextStep("It shouted.")]),
    )
    result = pi_env.run("-e", str(extension), "--plan", "--label", "blue", "-p", "use the tool")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "It shouted.\n"
    assert "shout" in tool_names(pi_env) and tool_names(pi_env) >= DEFAULT_TOOLS
    second = pi_env.server.requests[1].json["messages"]
    tool_message = next(m for m in second if m["role"] == "tool")
    assert "HELLO! plan=True label=blue" in json.dumps(tool_message)
    # "blue" was the flag's value, not a message
    user = [m for m in second if m["role"] == "user"]
    assert len(user) == 1 and "blue" not in json.dumps(user)


def test_extension_flag_defaults(pi_env: PiEnv) -> None:
    extension = pi_env.cwd / "shout.py"
    extension.write_text(EXTENSION)
    pi_env.server.push(
        ScriptedResponse(steps=[ToolCallStep("shout", {"text": "hey"}, id="call_shout")]),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    result = pi_env.run("-e", str(extension), "-p", "use the tool")
    assert result.returncode == 0, result.stderr
    assert "HEY! plan=False label=none" in json.dumps(pi_env.server.requests[1].json["messages"])


def test_extension_tools_follow_the_tool_flags(pi_env: PiEnv) -> None:
    extension = pi_env.cwd / "shout.py"
    extension.write_text(EXTENSION)
    pi_env.server.push(ScriptedResponse(steps=[TextStep("ok")]), ScriptedResponse(steps=[TextStep("ok")]))
    assert pi_env.run("-e", str(extension), "--tools", "shout", "-p", "hi").returncode == 0
    assert tool_names(pi_env, 0) == {"shout"}
    assert pi_env.run("-e", str(extension), "--no-builtin-tools", "-p", "hi").returncode == 0
    assert tool_names(pi_env, 1) == {"shout"}


def test_an_unknown_flag_is_rejected_even_with_extensions(pi_env: PiEnv) -> None:
    extension = pi_env.cwd / "shout.py"
    extension.write_text(EXTENSION)
    result = pi_env.run("-e", str(extension), "--plan", "--nonsense", "-p", "hi")
    assert result.returncode == 1
    assert "Unknown option: --nonsense" in result.stderr
    assert pi_env.server.requests == []


def test_an_extension_that_fails_to_load_stops_startup(pi_env: PiEnv) -> None:
    broken = pi_env.cwd / "broken.py"
    broken.write_text("raise RuntimeError('boom at import')\n")
    result = pi_env.run("-e", str(broken), "-p", "hi")
    assert result.returncode == 1
    assert "boom at import" in result.stderr
    assert 'Start without extensions using "pi -ne".' in result.stderr
    assert pi_env.server.requests == []
