"""The installed ``pi`` with ``builtin:codemode``: scripts in the real QuickJS sandbox calling real
tools (bash, an MCP server spawned for real), against the fake LLM server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from _pi_env import PiEnv

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep, ToolCallStep

pytest.importorskip("quickjs")

FIXTURE_SERVER = Path(__file__).resolve().parents[1] / "extensions_builtin" / "fixtures" / "mcp_stdio_server.py"


def script_turns(pi_env: PiEnv, *codes: str) -> None:
    """One prompt per script: the model runs it, then answers ``done``."""
    for index, code in enumerate(codes):
        pi_env.server.push(
            ScriptedResponse(steps=[ToolCallStep("codemode", {"code": code}, id=f"call_{index}")]),
            ScriptedResponse(steps=[TextStep("done")]),
        )


def tool_results(pi_env: PiEnv) -> list[str]:
    """The text of each codemode result, from the request that followed it."""
    out = []
    for request in pi_env.server.requests:
        messages = request.json.get("messages", [])
        tail = [m for m in messages[-2:] if m["role"] == "tool"]  # images may follow as a user message
        if tail and messages[-1]["role"] in ("tool", "user") and (messages[-1]["role"] == "tool" or len(tail) == 1):
            content = tail[-1]["content"]
            out.append(content if isinstance(content, str) else json.dumps(content))
    return out


def declared(pi_env: PiEnv, index: int = 0) -> list[str]:
    return [tool["function"]["name"] for tool in pi_env.server.requests[index].json.get("tools", [])]


def run_scripts(pi_env: PiEnv, *codes: str, args: tuple[str, ...] = ("--tools", "+codemode")) -> list[str]:
    script_turns(pi_env, *codes)
    results = []
    for _ in codes:
        result = pi_env.run(*args, "-c", "-p", "go") if results else pi_env.run(*args, "-p", "go")
        assert result.returncode == 0, result.stderr
        results.append(result)
    return tool_results(pi_env)


def test_codemode_is_off_by_default_and_on_with_plus(pi_env: PiEnv) -> None:
    pi_env.server.push(ScriptedResponse(steps=[TextStep("ok")]), ScriptedResponse(steps=[TextStep("ok")]))
    assert pi_env.run("-p", "hi").returncode == 0
    assert "codemode" not in declared(pi_env, 0)
    assert pi_env.run("--tools", "+codemode", "-p", "hi").returncode == 0
    names = declared(pi_env, 1)
    assert "codemode" in names and "read" in names and "bash" in names


def test_parallel_tool_calls_and_filtering(pi_env: PiEnv) -> None:
    code = (
        "const [a, b] = await Promise.all([tools.bash({command: 'seq 1 500'}), tools.bash({command: 'echo second'})]);\n"
        "const lines = a.output.split('\\n').filter((l) => l.endsWith('00'));\n"
        "console.log('kept', lines.length);\n"
        "text(lines.join(','));\n"
        "return b.output.trim();"
    )
    [result] = run_scripts(pi_env, code)
    assert "Script completed" in result and "Wall time" in result
    assert "==> text 1/2 <==" in result and "100,200,300,400,500" in result
    assert "==> text 2/2 <==" in result and "second" in result
    assert "<console_output>" in result and "kept 5" in result
    assert "499" not in result  # filtered out before the model saw it


def test_store_persists_only_when_the_script_succeeds(pi_env: PiEnv) -> None:
    results = run_scripts(
        pi_env,
        "store('cursor', 41); return 'stored';",
        "store('cursor', 99); throw new Error('fails after storing');",
        "return `cursor=${load('cursor')}`;",
    )
    assert "Script completed" in results[0]
    assert "Script failed" in results[1] and "fails after storing" in results[1]
    assert "cursor=41" in results[2]
    [session] = list(pi_env.agent_dir.rglob("*.jsonl"))
    entries = [json.loads(line) for line in session.read_text().splitlines()]
    stores = [e for e in entries if e.get("type") == "custom" and e.get("customType") == "codemode-store"]
    assert [e["data"] for e in stores] == [{"set": {"cursor": 41}, "delete": []}]


ADVERSARIAL = {
    "loop": ('// @options: {"timeout_ms": 1500}\nwhile (true) {}', "Script timed out"),
    "memory": ("const a = []; while (true) a.push('x'.repeat(4096) + a.length);", "out of memory"),
    "recursion": ("function f(n) { return f(n + 1) + 1; } return f(0);", "stack overflow"),
    "require": ("return require('fs');", "ReferenceError"),
    "process": ("return process.env;", "ReferenceError"),
    "fetch": ("return await fetch('http://127.0.0.1:1/');", "ReferenceError"),
    "import": ("return await import('os');", "could not load module"),
    "timer": ("setTimeout(() => {}, 10);", "ReferenceError"),
    "never": ("await new Promise(() => {});", "can never settle"),
    "calls": ("for (let i = 0; i < 100001; i++) console.log(i);", "Output limit"),
    "chars": ("const s = 'y'.repeat(1 << 20); for (let i = 0; i < 17; i++) text(s);", "Output limit"),
}


@pytest.mark.parametrize("case", sorted(ADVERSARIAL))
def test_adversarial_scripts_fail_cleanly(pi_env: PiEnv, case: str) -> None:
    code, expected = ADVERSARIAL[case]
    # After the hostile script, a normal one in the same session still works.
    results = run_scripts(pi_env, code, "return 'still fine';")
    assert "Script failed" in results[0] and expected in results[0], results[0][:2000]
    assert "Script completed" in results[1] and "still fine" in results[1]


def test_output_is_cut_to_max_output_tokens(pi_env: PiEnv) -> None:
    code = '// @options: {"max_output_tokens": 100}\nreturn "a".repeat(300) + "MIDDLE" + "b".repeat(300);'
    [result] = run_scripts(pi_env, code)
    assert "Script completed" in result and "MIDDLE" not in result
    assert "characters omitted" in result and "aaaa" in result and "bbbb" in result


def test_scripts_call_mcp_tools_with_codemode_exposure(pi_env: PiEnv) -> None:
    servers = {"fx": {"command": sys.executable, "args": [str(FIXTURE_SERVER)]}}
    (pi_env.agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    code = (
        "const found = await searchTools('echo');\n"
        "const r = await tools.mcp__fx__echo({text: 'hello'});\n"
        "const big = await tools.mcp__fx__echo({text: 'z'.repeat(30000)});\n"
        "return {found: found.map((t) => t.name), text: r.content[0].text, isError: r.isError,"
        " bigLength: big.content[0].text.length};"
    )
    [result] = run_scripts(pi_env, code)
    assert "Script completed" in result, result
    assert "echo: hello" in result and "mcp__fx__echo" in result
    assert '\\"bigLength\\":30006' in result or '"bigLength":30006' in result  # uncut, unlike the model's view
    assert not any(n.startswith("mcp__") for n in declared(pi_env))  # reached only through codemode


def test_default_tools_plus_entry_keeps_the_defaults(pi_env: PiEnv) -> None:
    pi_env.configure(settings={"defaultTools": ["+codemode", "-write"]})
    pi_env.server.push(ScriptedResponse(steps=[TextStep("ok")]))
    result = pi_env.run("-p", "hi")
    assert result.returncode == 0, result.stderr
    assert declared(pi_env) == ["read", "bash", "edit", "codemode"]


def test_read_of_an_image_resolves_to_a_block_image_shows(pi_env: PiEnv) -> None:
    import base64

    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
    (pi_env.cwd / "dot.png").write_bytes(base64.b64decode(png))
    [result] = run_scripts(pi_env, "const b = await tools.read({path: 'dot.png'}); image(b); return b.mimeType;")
    assert "Script completed" in result and "image/png" in result and "Image saved to" in result


def test_only_mode_declares_just_codemode_and_scripts_still_call_the_tools(pi_env: PiEnv) -> None:
    pi_env.configure(settings={"codemode": {"mode": "only"}})
    servers = {"fx": {"command": sys.executable, "args": [str(FIXTURE_SERVER)], "exposure": "direct"}}
    (pi_env.agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    (pi_env.cwd / "note.txt").write_text("from the file\n")
    code = (
        "const [file, echo] = await Promise.all([tools.read({path: 'note.txt'}),"
        " tools.mcp__fx__echo({text: 'hi'})]);\n"
        "return file.trim() + ' / ' + echo.content[0].text;"
    )
    [result] = run_scripts(pi_env, code)
    assert "Script completed" in result and "from the file / echo: hi" in result, result
    for request in pi_env.server.requests:
        tools = request.json.get("tools", [])
        assert [t["function"]["name"] for t in tools] == ["codemode"]  # as the reference Pi declares
        description = tools[0]["function"]["description"]
        assert "tools: { read(" in description and "mcp__fx__echo(" in description  # listed instead
        assert "- read:" not in request.json["messages"][0]["content"]  # nor in the prompt's tool list


def test_on_mode_tells_declared_tools_how_scripts_call_them(pi_env: PiEnv) -> None:
    servers = {"fx": {"command": sys.executable, "args": [str(FIXTURE_SERVER)], "exposure": "direct"}}
    (pi_env.agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    pi_env.server.push(ScriptedResponse(steps=[TextStep("ok")]))
    result = pi_env.run("--tools", "+codemode", "-p", "hi")
    assert result.returncode == 0, result.stderr
    tools = {t["function"]["name"]: t["function"]["description"] for t in pi_env.server.requests[0].json["tools"]}
    assert list(tools)[:5] == ["read", "bash", "edit", "write", "codemode"]
    assert tools["read"].endswith("\n\nIn codemode scripts, `await tools.read(args)` gives a string.")
    assert tools["mcp__fx__echo"].endswith(
        "`await tools.mcp__fx__echo(args)` gives `{ content, structuredContent?, isError? }`."
    )
    assert "In codemode scripts" not in tools["codemode"]


@pytest.mark.parametrize("exposure", ["codemode", "direct"])
def test_allowlist_without_mcp_entries_keeps_mcp_tools_for_scripts(pi_env: PiEnv, exposure: str) -> None:
    """As the reference Pi: ``codemode`` tools stay callable; an inactive ``direct`` one does not."""
    servers = {"fx": {"command": sys.executable, "args": [str(FIXTURE_SERVER)], "exposure": exposure}}
    (pi_env.agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    code = "return (await tools.mcp__fx__echo({text: 'kept'})).content[0].text;"
    [result] = run_scripts(pi_env, code, args=("--tools", "read,codemode"))
    if exposure == "codemode":
        assert "Script completed" in result and "echo: kept" in result, result
    else:
        assert "Script failed" in result and "echo: kept" not in result, result
    assert declared(pi_env) == ["read", "codemode"]  # as the reference Pi: no MCP tool declared
