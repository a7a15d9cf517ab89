"""mcp.json loading and validation, tool names and result mapping (no servers needed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_harness.extensions_builtin.mcp import load_mcp_config, tool_name
from pi_harness.extensions_builtin.mcp.results import MAX_LINES, to_tool_result


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_stdio_and_http_entries_with_variable_expansion(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    write(
        agent / "mcp.json",
        {
            "mcpServers": {
                "files": {
                    "command": "${TOOLS}/server",
                    "args": ["--root", "${ROOT:-/srv}", "${MISSING}"],
                    "env": {"TOKEN": "${TOKEN}"},
                    "cwd": "sub",
                },
                "docs": {"type": "http", "url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
            }
        },
    )
    env = {"TOOLS": "/opt/tools", "TOKEN": "t0k", "HOST": "example.org"}
    config = load_mcp_config(agent, tmp_path, project_trusted=False, environ=env)
    assert config.errors == []
    files, docs = config.servers["files"], config.servers["docs"]
    assert files.transport == "stdio"
    assert files.command == "/opt/tools/server"
    assert files.args == ("--root", "/srv", "${MISSING}")
    assert dict(files.env) == {"TOKEN": "t0k"}
    assert files.cwd == "sub"
    assert docs.transport == "http"
    assert docs.url == "https://example.org/mcp"
    assert dict(docs.headers) == {"Authorization": "Bearer t0k"}
    assert config.warnings == ['MCP server "files": environment variable MISSING is not set']


def test_invalid_entries_are_reported_and_skipped(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    path = write(
        agent / "mcp.json",
        {
            "mcpServers": {
                "ok": {"command": "run"},
                "neither": {"args": []},
                "both": {"command": "x", "url": "http://h/mcp"},
                "badargs": {"command": "x", "args": "one two"},
                "sse": {"type": "sse", "url": "http://h/sse"},
                "badurl": {"url": "ftp://h"},
                "direct": {"command": "x", "directTools": "yes"},
                "timeout": {"command": "x", "timeout": -1},
                "notobj": 3,
            }
        },
    )
    config = load_mcp_config(agent, tmp_path, project_trusted=False)
    assert list(config.servers) == ["ok"]
    assert config.errors == [
        f'Invalid MCP server "neither" in {path}: exactly one of "command" (stdio) or "url" (HTTP) is required',
        f'Invalid MCP server "both" in {path}: exactly one of "command" (stdio) or "url" (HTTP) is required',
        f'Invalid MCP server "badargs" in {path}: "args" must be an array of strings',
        f'Invalid MCP server "sse" in {path}: the legacy "sse" transport is not supported; use a streamable HTTP "url"',
        f'Invalid MCP server "badurl" in {path}: "url" must be an http:// or https:// URL, got \'ftp://h\'',
        f'Invalid MCP server "direct" in {path}: "directTools" must be a boolean or an array of tool names',
        f'Invalid MCP server "timeout" in {path}: "timeout" must be a positive number of milliseconds',
        f'Invalid MCP server "notobj" in {path}: the entry must be an object',
    ]


def test_unparsable_file_and_wrong_shapes(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    path = write(agent / "mcp.json", "{not json")
    config = load_mcp_config(agent, tmp_path, project_trusted=False)
    assert config.servers == {}
    assert len(config.errors) == 1 and config.errors[0].startswith(f"Failed to parse {path}: ")
    write(agent / "mcp.json", {"mcpServers": []})
    assert load_mcp_config(agent, tmp_path, project_trusted=False).errors == [
        f'Invalid MCP config {path}: "mcpServers" must be an object'
    ]
    write(agent / "mcp.json", "")
    assert load_mcp_config(agent, tmp_path, project_trusted=False).errors == []


def test_project_file_needs_trust_and_overrides_by_name(tmp_path: Path) -> None:
    agent, project = tmp_path / "agent", tmp_path / "project"
    write(agent / "mcp.json", {"mcpServers": {"shared": {"command": "global"}, "mine": {"command": "g2"}}})
    write(project / ".pi" / "mcp.json", {"mcpServers": {"shared": {"url": "http://127.0.0.1:1/mcp"}}})
    untrusted = load_mcp_config(agent, project, project_trusted=False)
    assert untrusted.servers["shared"].command == "global"
    assert untrusted.files == [agent / "mcp.json"]
    trusted = load_mcp_config(agent, project, project_trusted=True)
    assert trusted.servers["shared"].transport == "http"
    assert list(trusted.servers) == ["mine", "shared"]
    assert trusted.servers["shared"].source == str(project / ".pi" / "mcp.json")


def test_disabled_and_direct_tools_flags(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    write(
        agent / "mcp.json",
        {
            "mcpServers": {
                "a": {"command": "x", "disabled": True},
                "b": {"command": "x", "enabled": False},
                "c": {"command": "x", "directTools": ["one"]},
                "d": {"command": "x", "directTools": False},
            }
        },
    )
    config = load_mcp_config(agent, tmp_path, project_trusted=False)
    assert [s.name for s in config.enabled] == ["c", "d"]
    c, d = config.servers["c"], config.servers["d"]
    assert c.exposes_direct_tools and c.is_direct("one") and not c.is_direct("two")
    assert not d.exposes_direct_tools and not d.is_direct("one")


def test_tool_names_are_valid_for_every_provider() -> None:
    assert tool_name("files", "read_text_file") == "files__read_text_file"
    assert tool_name("my server", "get.thing/v2") == "my_server__get_thing_v2"
    long = tool_name("s" * 40, "t" * 40)
    assert len(long) == 64 and long.startswith("s" * 40 + "__")
    assert long == tool_name("s" * 40, "t" * 40)  # stable
    taken = {"a_b__c"}
    other = tool_name("a.b", "c", taken)
    assert other != "a_b__c" and other.startswith("a_b__c_") and len(other) == 15
    for name in (long, other, tool_name("ü", "ß")):
        assert all(ch.isascii() and (ch.isalnum() or ch in "_-") for ch in name)


def test_results_mapping_of_every_content_kind() -> None:
    raw = {
        "content": [
            {"type": "text", "text": "plain"},
            {"type": "image", "data": "AAAA", "mimeType": "image/jpeg"},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt", "description": "the file"},
            {"type": "resource", "resource": {"uri": "mem://note", "text": "inline note"}},
            {"type": "resource", "resource": {"uri": "mem://img", "mimeType": "image/png", "blob": "BBBB"}},
            {"type": "resource", "resource": {"uri": "mem://bin", "mimeType": "application/zip", "blob": "AAAA"}},
        ],
        "isError": True,
    }
    result = to_tool_result(raw, server="s", tool="t")
    assert result["isError"] is True
    assert result["details"] == {"server": "s", "tool": "t"}
    assert result["content"] == [
        {"type": "text", "text": "plain"},
        {"type": "image", "data": "AAAA", "mimeType": "image/jpeg"},
        {"type": "text", "text": "[audio (audio/wav, 3 bytes) not shown]"},
        {"type": "text", "text": "[resource link: file:///a.txt a.txt]\nthe file"},
        {"type": "text", "text": "[resource mem://note]\ninline note"},
        {"type": "image", "data": "BBBB", "mimeType": "image/png"},
        {"type": "text", "text": "[binary resource mem://bin (application/zip, 3 bytes) not shown]"},
    ]


def test_structured_only_results_and_truncation() -> None:
    structured = to_tool_result({"content": [], "structuredContent": {"n": 1}}, server="s", tool="t")
    assert structured["content"] == [{"type": "text", "text": '{"n":1}'}]
    assert structured["structuredContent"] == {"n": 1}
    assert to_tool_result({"content": []}, server="s", tool="t")["content"][0]["text"] == "(no output)"
    long_text = "\n".join(f"line {i}" for i in range(MAX_LINES + 500))
    cut = to_tool_result({"content": [{"type": "text", "text": long_text}]}, server="s", tool="t")
    text = cut["content"][0]["text"]
    assert text.startswith("line 0\n") and f"line {MAX_LINES - 1}\n" in text and f"line {MAX_LINES}\n" not in text
    assert "[MCP output truncated" in text
    assert cut["details"]["truncated"] is True
