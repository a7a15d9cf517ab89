"""Which MCP servers a call waits for: Pi's ``reachesTools`` of codemode and tool_search."""

from __future__ import annotations

from pi_harness.extensions_builtin.codemode.extension import script_reach
from pi_harness.extensions_builtin.mcp.discovery import reached_servers

SERVERS = ["dev-radius", "fs", "other"]
TOOLS: list[dict[str, object]] = [
    {"name": "codemode", "reachesTools": script_reach},
    {"name": "tool_search", "reachesTools": lambda _arguments: "all"},
    {"name": "read"},
]


def reached(tool: str, arguments: dict[str, object]) -> list[str]:
    return reached_servers(TOOLS, tool, arguments, SERVERS)


def test_a_script_waits_only_for_the_servers_it_names() -> None:
    code = "const a = await tools.mcp__fs__read_file({path: 'x'});\nreturn tools.mcp__dev_radius__ping({});"
    assert reached("codemode", {"code": code}) == ["dev-radius", "fs"]
    assert reached("codemode", {"code": "return 1 + 1;"}) == []


def test_a_script_that_discovers_tools_waits_for_all() -> None:
    for code in ("return await searchTools('x');", "return ALL_TOOLS.length;", "describeNamespace('fs')"):
        assert script_reach({"code": code}) == "all"
        assert reached("codemode", {"code": code}) == SERVERS


def test_tool_search_reaches_all_and_plain_tools_none() -> None:
    assert reached("tool_search", {"query": "x"}) == SERVERS
    assert reached("read", {"path": "mcp__fs__x"}) == []
    assert script_reach({}) == []
