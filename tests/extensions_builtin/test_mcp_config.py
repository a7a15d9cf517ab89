"""mcp.json loading and validation, values, tool names, the prompt section and result mapping."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_harness.extensions_builtin.mcp import load_mcp_config, tool_name
from pi_harness.extensions_builtin.mcp.names import names_for_server
from pi_harness.extensions_builtin.mcp.output_limit import MAX_BYTES
from pi_harness.extensions_builtin.mcp.results import to_tool_result
from pi_harness.extensions_builtin.mcp.values import UnresolvedValue, resolve_value


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_stdio_and_http_entries_as_pi_reads_them(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    write(
        agent / "mcp.json",
        {
            "mcpServers": {
                "files": {
                    "command": "~/bin/server",
                    "args": ["--root", "~/data", "${ROOT}"],
                    "env": {"TOKEN": "${TOKEN}"},
                    "cwd": "sub",
                },
                "docs": {
                    "type": "streamable-http",
                    "url": "https://example.org/mcp",
                    "headers": {"Authorization": "Bearer ${TOKEN}"},
                    "timeout": 2.5,
                    "description": "Product docs",
                },
            }
        },
    )
    config = load_mcp_config(agent, tmp_path, project_trusted=False)
    assert config.errors == []
    files, docs = config.servers["files"], config.servers["docs"]
    home = str(Path.home())
    assert files.transport == "stdio"
    assert files.command == f"{home}/bin/server"
    # Only env and headers values are templates, and they resolve when the server connects.
    assert files.args == ("--root", f"{home}/data", "${ROOT}")
    assert dict(files.env) == {"TOKEN": "${TOKEN}"}
    assert files.cwd == "sub"
    assert files.timeout_s == 60.0 and files.exposure == "codemode" and files.enabled
    assert docs.transport == "http" and docs.url == "https://example.org/mcp"
    assert dict(docs.headers) == {"Authorization": "Bearer ${TOKEN}"}
    assert docs.timeout_s == 2.5  # seconds, as in Pi
    assert docs.description == "Product docs"
    assert not docs.uses_oauth  # an Authorization header is configured


def test_invalid_entries_are_reported_and_skipped(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    path = write(
        agent / "mcp.json",
        {
            "mcpServers": {
                "ok": {"command": "run"},
                "neither": {"args": []},
                "badargs": {"command": "x", "args": "one two"},
                "sse": {"type": "sse", "url": "http://h/sse"},
                "badurl": {"url": "ftp://h"},
                "badtype": {"type": "streamable_http", "url": "http://h/mcp"},
                "exp": {"command": "x", "exposure": "sometimes"},
                "texp": {"command": "x", "toolExposure": {"a*": "never"}},
                "timeout": {"command": "x", "timeout": -1},
                "desc": {"command": "x", "description": 3},
                "oauth": {"url": "http://h/mcp", "oauth": {"callbackPort": 0}},
                "bad name": {"command": "x"},
                "notobj": 3,
            }
        },
    )
    config = load_mcp_config(agent, tmp_path, project_trusted=False)
    assert list(config.servers) == ["ok"]
    assert config.errors == [
        f'{path}: server "neither" needs either "command" (stdio) or "url" (streamable HTTP)',
        f'{path}: server "badargs": args must be an array of strings',
        f'{path}: server "sse": the legacy SSE transport is not supported; use the streamable HTTP URL',
        f'{path}: server "badurl": url must be an http or https URL',
        f'{path}: server "badtype" needs either "command" (stdio) or "url" (streamable HTTP)',
        f'{path}: server "exp": exposure must be one of "codemode", "deferred", "direct", "hidden"',
        f'{path}: server "texp": toolExposure "a*" must be one of "codemode", "deferred", "direct", "hidden"',
        f'{path}: server "timeout": timeout must be a positive number of seconds',
        f'{path}: server "desc": description must be a string',
        f'{path}: server "oauth": oauth.callbackPort must be a port number',
        f'{path}: invalid server name "bad name" (use letters, digits, "_" and "-")',
        f'{path}: server "notobj" must be an object',
    ]


def test_names_differing_only_in_dash_and_underscore_clash(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    path = write(agent / "mcp.json", {"mcpServers": {"dev-tools": {"command": "a"}, "dev_tools": {"command": "b"}}})
    config = load_mcp_config(agent, tmp_path, project_trusted=False)
    assert list(config.servers) == ["dev-tools"]
    assert config.errors == [f'{path}: server "dev_tools" conflicts with "dev-tools"']


def test_unparsable_file_and_wrong_shapes(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    path = write(agent / "mcp.json", "{not json")
    config = load_mcp_config(agent, tmp_path, project_trusted=False)
    assert config.servers == {}
    assert len(config.errors) == 1 and config.errors[0].startswith(f"{path}: ")
    write(agent / "mcp.json", {"mcpServers": []})
    assert load_mcp_config(agent, tmp_path, project_trusted=False).errors == [
        f'{path}: expected an object with an "mcpServers" object'
    ]
    write(agent / "mcp.json", "")
    assert load_mcp_config(agent, tmp_path, project_trusted=False).errors == []
    write(agent / "mcp.json", {"autoEnableCodemode": "yes", "mcpServers": {}})
    assert load_mcp_config(agent, tmp_path, project_trusted=False).errors == [
        f"{path}: autoEnableCodemode must be a boolean"
    ]
    write(agent / "mcp.json", {"autoEnableCodemode": False})
    assert load_mcp_config(agent, tmp_path, project_trusted=False).auto_enable_codemode is False


def test_project_file_needs_trust_and_replaces_by_name(tmp_path: Path) -> None:
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
    assert trusted.servers["shared"].scope == "project"


def test_project_overrides_merge_into_the_global_server(tmp_path: Path) -> None:
    agent, project = tmp_path / "agent", tmp_path / "project"
    write(
        agent / "mcp.json",
        {
            "mcpServers": {
                "tools": {"command": "srv", "env": {"KEY": "${SECRET}"}, "exposure": "direct", "timeout": 5},
                "docs": {"url": "https://d.example/mcp", "auth": {"provider": "anthropic"}},
            }
        },
    )
    project_file = write(
        project / ".pi" / "mcp.json",
        {
            "mcpServers": {
                "tools": {"enabled": False, "toolExposure": {"write_*": "hidden"}},
                "docs": {"exposure": "hidden"},
                "ghost": {"enabled": False},
                "sneaky": {"command": "x", "url": "https://evil.example/mcp", "auth": {"provider": "anthropic"}},
                "docs-extra": {"exposure": "direct", "headers": {}},
            }
        },
    )
    config = load_mcp_config(agent, project, project_trusted=True)
    tools, docs = config.servers["tools"], config.servers["docs"]
    assert not tools.enabled and tools.command == "srv" and dict(tools.env) == {"KEY": "${SECRET}"}
    assert tools.exposure == "direct" and tools.timeout_s == 5
    assert tools.exposure_of("write_file") == "hidden" and tools.exposure_of("read_file") == "direct"
    assert tools.source == str(agent / "mcp.json") and tools.override == str(project_file)
    assert docs.exposure == "hidden" and docs.auth_provider == "anthropic"  # kept from the global entry
    assert "ghost" not in config.servers and "sneaky" not in config.servers
    assert config.errors == [
        f'{project_file}: server "ghost" needs "command" or "url", or a global server to override',
        f'{project_file}: server "sneaky": auth is only allowed in the global mcp.json',
        f'{project_file}: server "docs-extra" needs "command" or "url", or a global server to override',
    ]


def test_exposure_defaults_aliases_and_tool_patterns(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    write(
        agent / "mcp.json",
        {
            "mcpServers": {
                "a": {"command": "x"},
                "b": {"command": "x", "exposure": "codemode-deferred"},
                "c": {
                    "command": "x",
                    "exposure": "hidden",
                    "toolExposure": {"get_*": "direct", "get_secret": "hidden", "*": "deferred", "get_a*": "codemode"},
                },
                "d": {"command": "x", "enabled": False},
                "e": {"command": "x", "disabled": True},  # not a Pi key: ignored, with a warning
            }
        },
    )
    config = load_mcp_config(agent, tmp_path, project_trusted=False)
    assert [s.name for s in config.enabled] == ["a", "b", "c", "e"]
    a, b, c = config.servers["a"], config.servers["b"], config.servers["c"]
    assert a.exposure == "codemode" and not a.exposes_direct_tools and a.has_indirect_tools
    assert b.exposure == "codemode"
    assert c.exposure_of("get_secret") == "hidden"  # an exact name wins
    assert c.exposure_of("get_all") == "direct"  # the first matching pattern wins
    assert c.exposure_of("put") == "deferred"
    assert c.exposes_direct_tools
    assert any("ignoring unknown keys disabled" in w for w in config.warnings)


def test_tool_names_match_pi() -> None:
    golden = json.loads((Path(__file__).parent / "fixtures" / "pi14_mcp_golden.json").read_text())
    long_server = "a-server-name-that-is-long-enough-to-cut"
    assert tool_name(long_server, "trigger-long-running-operation") in golden["toolNames"]
    assert tool_name("every-thing", "get-tiny-image") == "mcp__every_thing__get_tiny_image"
    assert tool_name("my.server", "get thing/v2") == "mcp__my_server__get_thing_v2"
    long = tool_name("s" * 40, "t" * 40)
    assert len(long) == 64 and long.startswith("mcp__" + "s" * 40 + "__")
    assert long == tool_name("s" * 40, "t" * 40)  # stable
    for name in (long, tool_name("ü", "ß")):
        assert all(ch.isascii() and (ch.isalnum() or ch == "_") for ch in name)


def test_tools_whose_names_collide_all_get_a_hash() -> None:
    owners: dict[str, str] = {}
    names = names_for_server("s", ["a-b", "a_b", "c"], owners)
    assert names["c"] == "mcp__s__c"
    assert names["a-b"] != names["a_b"]
    assert all(names[t].startswith("mcp__s__a_b_") and len(names[t]) == len("mcp__s__a_b_") + 8 for t in ("a-b", "a_b"))
    # A name another server's tool holds is not taken over.
    other = names_for_server("s", ["c"], {"mcp__s__c": "t\0c"})
    assert other["c"].startswith("mcp__s__c_")
    assert names_for_server("s", ["a_b", "a-b", "c"], {}) == names  # independent of the order


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
        {"type": "text", "text": result["content"][6]["text"]},
    ]
    saved = result["content"][6]["text"]
    assert saved.startswith("[binary resource mem://bin (application/zip, 3 bytes) saved to ") and saved.endswith(
        ".bin]"
    )
    path = Path(saved.removesuffix("]").rsplit(" ", 1)[1])
    assert path.read_bytes() == b"\0\0\0" and (path.stat().st_mode & 0o777) == 0o600
    path.unlink()
    linked = to_tool_result({"content": raw["content"][3:4]}, server="s", tool="t", readable_resources=True)
    assert 'read_mcp_resource, server "s"' in linked["content"][0]["text"]
    text_blob = {"type": "resource", "resource": {"uri": "m://j", "mimeType": "application/json", "blob": "e30="}}
    assert to_tool_result({"content": [text_blob]}, server="s", tool="t")["content"] == [{"type": "text", "text": "{}"}]
    silent = to_tool_result({"content": [], "isError": True}, server="s", tool="t")
    assert silent["isError"] is True and "reported an error" in silent["content"][0]["text"]


def test_structured_only_results_and_truncation() -> None:
    structured = to_tool_result({"content": [], "structuredContent": {"n": 1}}, server="s", tool="t")
    assert structured["content"] == [{"type": "text", "text": '{"n":1}'}]
    assert structured["structuredContent"] == {"n": 1}
    assert to_tool_result({"content": []}, server="s", tool="t")["content"][0]["text"] == "(no output)"
    # Text over 20 KB keeps its first and last 10 KB around a marker; the whole is saved to a file.
    long_text = "\n".join(f"line {i:05}" for i in range(4000))
    picture = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    cut = to_tool_result({"content": [{"type": "text", "text": long_text}, picture]}, server="s", tool="t")
    text = cut["content"][0]["text"]
    head, middle_and_tail = text.split("\n\n", 1)[1].split("…", 1)
    assert head == long_text.encode()[: MAX_BYTES // 2].decode()
    removed = len(long_text) - MAX_BYTES
    assert middle_and_tail.startswith(f"{removed} chars truncated…")
    assert text.startswith("[Output cut in the middle: 4000 lines, 43999 bytes (about 11000 tokens) in all.]")
    assert cut["content"][1] == picture
    full = Path(cut["details"]["fullOutputPath"])
    assert full.read_text() == long_text and f"[The complete output is in {full};" in text
    assert cut["details"]["truncated"] is True
    full.unlink()
    small = to_tool_result({"content": [{"type": "text", "text": "x" * MAX_BYTES}]}, server="s", tool="t")
    assert small["content"][0]["text"] == "x" * MAX_BYTES and "fullOutputPath" not in small["details"]


def test_env_and_header_values_resolve_as_in_pi() -> None:
    env = {"TOKEN": "t0k", "HOST": "h", "EMPTY": ""}
    assert resolve_value("Bearer ${TOKEN}", "x", env) == "Bearer t0k"
    assert resolve_value("$HOST:$TOKEN/$$/$!/${not-a-name}", "x", env) == "h:t0k/$/!/${not-a-name}"
    assert resolve_value("!printf '  out  '", "x", env) == "out"
    with pytest.raises(UnresolvedValue, match=r"^Failed to resolve d from environment variable: EMPTY$"):
        resolve_value("${EMPTY}", "d", env)
    with pytest.raises(UnresolvedValue, match=r"^Failed to resolve d from environment variables: A, B$"):
        resolve_value("$A-${B}-$A", "d", env)
    with pytest.raises(UnresolvedValue, match=r"^Failed to resolve d from shell command: exit 3$"):
        resolve_value("!exit 3", "d", env)


async def test_an_unresolved_env_value_fails_that_server_alone(
    tmp_path: Path, agent_dir: Path, stdio_entry: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pi_harness.extensions_builtin.mcp import mcp_list_async

    monkeypatch.delenv("PI_TEST_NOT_SET", raising=False)
    write(
        agent_dir / "mcp.json",
        {"mcpServers": {"ok": stdio_entry(), "needs": {**stdio_entry(), "env": {"KEY": "${PI_TEST_NOT_SET}"}}}},
    )
    text, code = await mcp_list_async(tmp_path)
    assert code == 1
    assert "ok: connected, 4 tools (direct, global)" in text.splitlines()
    assert '  Failed to resolve MCP server "needs" env "KEY" from environment variable: PI_TEST_NOT_SET' in text


def test_servers_section_lists_indirect_servers_within_its_limits() -> None:
    from types import SimpleNamespace

    from pi_harness.extensions_builtin.mcp.config import parse_server
    from pi_harness.extensions_builtin.mcp.prompt_section import MAX_SECTION, servers_section

    def connection(name: str, instructions: str | None = None, **entry: Any) -> Any:
        return SimpleNamespace(
            name=name, instructions=instructions, config=parse_server(name, {"command": "x", **entry}, "mcp.json")
        )

    assert servers_section([connection("d", exposure="direct")]) is None
    section = servers_section(
        [
            connection("zeta", "Zeta tools\nmore", exposure="deferred"),
            connection("alpha-1", "ignored", description="  Alpha things  \nsecond"),
            connection("off", enabled=False),
            connection("mixed", exposure="direct", toolExposure={"x": "codemode"}),
        ]
    )
    assert section is not None
    assert section.splitlines()[1:] == [
        "- mcp__alpha_1 (codemode): Alpha things",
        "- mcp__mixed (codemode)",
        "- mcp__zeta (tool_search): Zeta tools",
    ]
    many = servers_section([connection(f"server{i:03}", "x" * 400) for i in range(300)])
    assert many is not None and len(many) <= MAX_SECTION
    assert many.splitlines()[-1].startswith("- … ") and "more servers" in many.splitlines()[-1]
    few = servers_section([connection(f"s{i}", "y" * 400) for i in range(3)])
    assert few is not None and all(len(line) <= 250 + len("- mcp__s0 (codemode): ") for line in few.splitlines()[1:])
    assert few.splitlines()[1].endswith("…")
