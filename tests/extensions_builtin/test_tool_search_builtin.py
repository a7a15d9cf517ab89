"""``builtin:tool-search``: the BM25 ranking, namespaces, and loading in a real session.

The session tests run an ``AgentSession`` against the fake LLM server with an extension that
registers 200 ``deferred`` tools in two namespaces (so the rule is that of the extension API, not
of MCP alone) and the built-in ``tool_search``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.extensions import ExtensionAPI, ToolDefinition, ToolNamespace
from pi_harness.coding.sdk import create_agent_session
from pi_harness.coding.session_store import SessionManager
from pi_harness.extensions_builtin.tool_search import (
    SearchDocument,
    create_tool_search_extension,
    rank,
    result_text,
    search_document,
    tokenize,
)
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

# -- ranking ------------------------------------------------------------------------------------


def test_tokenize_splits_camel_case_drops_stop_words_and_plurals() -> None:
    assert tokenize("listGitHubIssues for the repo") == ["list", "git", "hub", "issue", "repo"]
    assert tokenize("HTTPServer searches boxes") == ["http", "server", "search", "box"]
    assert tokenize("class address status") == ["class", "address", "statu"]  # "ss" stays, other "s" goes


def test_rank_orders_by_bm25_and_drops_non_matches() -> None:
    documents = [
        SearchDocument("a", "create issue in a tracker"),
        SearchDocument("b", "issue issue issue comment"),
        SearchDocument("c", "weather forecast"),
    ]
    matches = rank("issue", documents, 8)
    assert [m.name for m in matches] == ["b", "a"]
    assert matches[0].score > matches[1].score > 0
    assert rank("issue", documents, 1)[0].name == "b"
    assert rank("the of", documents, 8) == []  # only stop words
    assert rank("nothing", documents, 8) == []


def test_rank_keeps_document_order_on_ties() -> None:
    documents = [SearchDocument(name, "same words here") for name in ("x", "y", "z")]
    assert [m.name for m in rank("words", documents, 8)] == ["x", "y", "z"]


def test_document_covers_schema_and_namespace() -> None:
    tool = {
        "name": "mcp__gh__get_pr",
        "description": "Get one pull request",
        "parameters": {"type": "object", "properties": {"repoOwner": {"description": "The org"}}},
        "namespace": {"name": "mcp__gh", "description": "GitHub", "instructions": "Use for code review"},
    }
    text = search_document(tool).text
    for word in ("mcp__gh__get_pr", "mcp  gh  get pr", "pull request", "repoOwner", "The org", "GitHub", "review"):
        assert word in text


def namespaced(name: str, group: str, description: str) -> dict[str, Any]:
    return {"name": name, "description": description, "namespace": {"name": group}}


def test_a_namespace_in_the_query_selects_its_tools() -> None:
    tools = [
        namespaced("mcp__github__search", "mcp__github", "Search code"),
        namespaced("mcp__jira__search", "mcp__jira", "Search issues"),
        namespaced("mcp__jira__create", "mcp__jira", "Create an issue"),
    ]
    documents = [search_document(tool) for tool in tools]
    assert [m.name for m in rank("jira", documents, 8)] == ["mcp__jira__search", "mcp__jira__create"]
    assert next(m.name for m in rank("mcp__github search", documents, 8)) == "mcp__github__search"


def test_result_text_is_pis_format() -> None:
    assert result_text([]) == "No matching tools found."
    assert result_text([("a", "First line\nsecond")]) == (
        "Loaded 1 tool. They are available from your next call:\n- a: First line"
    )
    assert result_text([("a", "A"), ("b", "")]).startswith("Loaded 2 tools.")


# -- in a session ---------------------------------------------------------------------------------

TOPICS = ["invoice", "calendar", "weather", "ticket"]


def many_tools(pi: ExtensionAPI) -> None:
    """200 deferred tools in two namespaces, and ``tool_search`` switched on at session start."""
    for index in range(200):
        group = "billing" if index % 2 == 0 else "office"
        topic = TOPICS[index % len(TOPICS)]

        async def execute(_id: str, params: Any, *_rest: Any, name: str = f"{group}_{topic}_{index}") -> str:
            return f"{name} ran with {params['text']}"

        pi.register_tool(
            ToolDefinition(
                name=f"{group}_{topic}_{index}",
                description=f"Handle a {topic} (number {index}).",
                parameters={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
                execute=execute,
                exposure="deferred",
                namespace=ToolNamespace(group, description=f"The {group} department"),
            )
        )

    @pi.on("session_start")
    def start(_event: Any, _ctx: Any) -> None:
        pi.set_active_tools([*pi.get_active_tools(), "tool_search"])


def declared(request: Any) -> list[str]:
    return [tool["function"]["name"] for tool in request.body.get("tools", [])]


async def open_session(server: FakeLLMServer, cwd: Path, manager: SessionManager) -> Any:
    result = await create_agent_session(
        cwd=str(cwd),
        model=server.model("openai-completions"),
        api_keys={"fake": "test-key"},
        settings_manager=SettingsManager.in_memory({}),
        session_manager=manager,
        extension_factories=[many_tools, create_tool_search_extension()],
    )
    return result.session


@pytest.fixture
def server() -> Any:
    with FakeLLMServer() as running:
        yield running


async def test_loaded_tools_follow_the_branch(server: FakeLLMServer, tmp_path: Path) -> None:
    found = "office_calendar_9"
    server.push(
        ScriptedResponse(steps=[TextStep("first answer")]),
        ScriptedResponse(steps=[ToolCallStep("tool_search", {"query": "office calendar number 9", "limit": 1})]),
        ScriptedResponse(steps=[ToolCallStep(found, {"text": "hello"})]),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    manager = SessionManager.create(str(tmp_path), str(tmp_path / "sessions"))
    session = await open_session(server, tmp_path, manager)
    await session.prompt("one")
    first_answer = manager.get_leaf_id()
    await session.prompt("two")
    requests = server.requests
    assert "tool_search" in declared(requests[0]) and found not in declared(requests[0])
    assert not any(name.startswith(("office_", "billing_")) for name in declared(requests[1]))
    assert declared(requests[2])[-1] == found  # the same run, the next request
    results = [m for m in session.get_messages() if m["role"] == "toolResult"]
    assert results[0]["details"] == {"loaded": [found]}
    assert results[1]["content"][0]["text"] == f"{found} ran with hello"
    loaded_leaf = manager.get_leaf_id()

    # /tree to before the search: the tool is not declared there.
    await session.navigate_tree(first_answer)
    server.push(ScriptedResponse(steps=[TextStep("elsewhere")]))
    await session.prompt("three")
    assert found not in declared(server.requests[-1])
    # Back to the branch that loaded it.
    await session.navigate_tree(loaded_leaf)
    server.push(ScriptedResponse(steps=[TextStep("back")]))
    await session.prompt("four")
    assert found in declared(server.requests[-1])
    path = manager.get_session_file()
    await session.dispose()

    # Resume: the branch's tools are declared again from the first request.
    reopened = await open_session(server, tmp_path, SessionManager.open(str(path), str(tmp_path / "sessions")))
    server.push(ScriptedResponse(steps=[TextStep("resumed")]))
    await reopened.prompt("five")
    assert found in declared(server.requests[-1])
    await reopened.dispose()
    records = [json.loads(line) for line in Path(path).read_text().splitlines()]
    patches = [r["message"] for r in records if r.get("type") == "message" and r["message"].get("role") == "system"]
    assert any([t["name"] for t in p.get("toolsAdded", [])] == [found] for p in patches[1:])


def test_ranking_matches_the_reference() -> None:
    """Names and scores as Pi 1.4.0's ranker gives them (``record_pi14_tool_search_ranking.py``)."""
    golden = json.loads((Path(__file__).parent / "fixtures" / "pi14_tool_search_ranking_golden.json").read_text())
    assert tokenize(golden["tokenizeInput"]) == golden["tokens"]
    documents = [search_document(tool) for tool in golden["tools"]]
    for query, expected in golden["rankings"].items():
        ours = rank(query, documents, 8)
        assert [m.name for m in ours] == [m["name"] for m in expected], query
        assert [m.score for m in ours] == pytest.approx([m["score"] for m in expected], abs=1e-9), query
