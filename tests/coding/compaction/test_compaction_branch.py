"""Branch summaries and tree navigation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _compaction_helpers import append_all, assistant, tool_result, user, words

from pi_harness.ai.providers.faux import FauxProvider, FauxResponse, faux_error, faux_text
from pi_harness.coding.compaction import (
    BeforeTreeEvent,
    collect_entries_for_branch_summary,
    generate_branch_summary,
    navigate_tree,
    prepare_branch_entries,
    prompts,
)
from pi_harness.coding.session_store import EntryNotFoundError, SessionManager


@pytest.fixture
def faux() -> Iterator[FauxProvider]:
    provider = FauxProvider(model_id="faux-model", context_window=50_000)
    yield provider
    provider.close()


def _tree(tmp_path: Path) -> tuple[SessionManager, dict[str, str]]:
    """root question → answer → [branch A: edit work] ; the leaf is at the end of branch A."""
    manager = SessionManager.in_memory(str(tmp_path))
    q1, a1 = append_all(manager, [user("How should we structure the parser?"), assistant("Use a table.")])
    q2, a2, r2, a3 = append_all(
        manager,
        [
            user("Do it in src/parser.py"),
            assistant("", calls=(("e1", "edit", {"path": "src/parser.py"}), ("r1", "read", {"path": "README.md"}))),
            tool_result("e1", "edited"),
            assistant("Done: table-driven parser in src/parser.py"),
        ],
    )
    return manager, {"q1": q1, "a1": a1, "q2": q2, "a2": a2, "r2": r2, "a3": a3}


def test_collect_walks_back_to_the_common_ancestor(tmp_path: Path) -> None:
    manager, ids = _tree(tmp_path)
    collection = collect_entries_for_branch_summary(manager.entries_by_id(), ids["a3"], ids["a1"])
    assert collection.common_ancestor_id == ids["a1"]
    assert [e["id"] for e in collection.entries] == [ids["q2"], ids["a2"], ids["r2"], ids["a3"]]
    assert collect_entries_for_branch_summary(manager.entries_by_id(), None, ids["a1"]).entries == []
    # Navigating forward (to a descendant) leaves nothing behind.
    assert collect_entries_for_branch_summary(manager.entries_by_id(), ids["a1"], ids["a3"]).entries == []


def test_budget_keeps_the_newest_messages_and_drops_tool_results(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    append_all(manager, [user(words(100)), assistant(words(100)), tool_result("x", words(500)), user(words(100))])
    prep = prepare_branch_entries(manager.get_branch(), 250)
    assert [m["role"] for m in prep.messages] == ["assistant", "user"] and prep.total_tokens == 200
    assert len(prepare_branch_entries(manager.get_branch(), 0).messages) == 3  # 0 = no limit


def test_summary_entry_squeezes_in_below_ninety_percent(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    first = manager.append_message(user("start"))  # type: ignore[arg-type]
    manager.append_compaction(words(150), first, 10)
    append_all(manager, [user(words(100))])
    prep = prepare_branch_entries(manager.get_branch(), 200)
    assert [m["role"] for m in prep.messages] == ["compactionSummary", "user"]  # 250 > 200, but 100 < 180


async def test_branch_summary_request_and_result(tmp_path: Path, faux: FauxProvider) -> None:
    manager, ids = _tree(tmp_path)
    entries = collect_entries_for_branch_summary(manager.entries_by_id(), ids["a3"], ids["a1"]).entries
    faux.push(faux_text("## Goal\nTable parser"))
    result = await generate_branch_summary(entries, faux.model, custom_instructions="mention tests")
    text = faux.requests[0].context["messages"][0]["content"][0]["text"]  # type: ignore[index,typeddict-item]
    assert faux.requests[0].context["systemPrompt"] == prompts.SYSTEM_PROMPT
    assert text.startswith("<conversation>\n[User]: Do it in src/parser.py\n\n[Assistant tool calls]: edit(")
    assert "[Tool result]" not in text  # tool results are left out of branch summaries
    assert text.endswith(prompts.BRANCH_PROMPT + "\n\nAdditional focus: mention tests")
    assert "## Critical Context" not in prompts.BRANCH_PROMPT
    assert result.summary == (
        prompts.BRANCH_SUMMARY_PREAMBLE + "## Goal\nTable parser"
        "\n\n<read-files>\nREADME.md\n</read-files>\n\n<modified-files>\nsrc/parser.py\n</modified-files>"
    )
    assert result.details() == {"readFiles": ["README.md"], "modifiedFiles": ["src/parser.py"]}
    assert faux.requests[0].options.disable_cache_writes  # type: ignore[union-attr]

    faux.push(faux_text("only this"))
    await generate_branch_summary(entries, faux.model, custom_instructions="Just list files", replace_instructions=True)
    assert (
        faux.requests[1]
        .context["messages"][0]["content"][0]["text"]
        .endswith(  # type: ignore[index,typeddict-item]
            "</conversation>\n\nJust list files"
        )
    )


async def test_branch_summary_outcomes(tmp_path: Path, faux: FauxProvider) -> None:
    manager, _ = _tree(tmp_path)
    entries = manager.get_branch()
    assert (await generate_branch_summary([], faux.model)).summary == "No content to summarize"
    faux.push(faux_text(""))
    assert (await generate_branch_summary(entries, faux.model)).summary.startswith(  # type: ignore[union-attr]
        prompts.BRANCH_SUMMARY_PREAMBLE + "No summary generated"
    )
    faux.push(faux_error("quota reached"))
    assert (await generate_branch_summary(entries, faux.model)).error == "quota reached"

    async def silent_failure(model: Any, context: Any, options: Any) -> Any:
        return {**assistant(stop="error"), "content": []}

    result = await generate_branch_summary(entries, faux.model, complete_fn=silent_failure)
    assert result.error == "Summarization failed"


async def test_navigate_with_summary_to_a_user_message(tmp_path: Path, faux: FauxProvider) -> None:
    manager, ids = _tree(tmp_path)
    faux.push(faux_text("## Goal\nparser"))
    result = await navigate_tree(manager, ids["q2"], summarize=True, model=faux.model, label="retry here")
    # selecting a user message re-opens it: the leaf becomes its parent and its text is returned
    assert result.editor_text == "Do it in src/parser.py" and not result.cancelled
    summary = result.summary_entry
    assert summary is not None and summary["parentId"] == ids["a1"] and summary["fromId"] == ids["a1"]
    assert summary["details"] == {"readFiles": ["README.md"], "modifiedFiles": ["src/parser.py"]}  # type: ignore[typeddict-item]
    assert manager.get_label(summary["id"]) == "retry here"
    context = manager.build_session_context().messages
    assert [m["role"] for m in context] == ["user", "assistant", "branchSummary"]
    assert result.old_leaf_id == ids["a3"] and result.new_leaf_id == manager.get_leaf_id()


async def test_navigate_without_summary(tmp_path: Path, faux: FauxProvider) -> None:
    manager, ids = _tree(tmp_path)
    result = await navigate_tree(manager, ids["a1"], label="answer")
    assert result.editor_text is None and result.summary_entry is None
    assert manager.get_label(ids["a1"]) == "answer"
    assert [e["id"] for e in manager.get_branch()][:2] == [ids["q1"], ids["a1"]]
    leaf = manager.get_leaf_id()
    assert leaf is not None
    noop = await navigate_tree(manager, leaf, summarize=True)  # already there: nothing happens
    assert not noop.cancelled and manager.get_leaf_id() == leaf
    result = await navigate_tree(manager, ids["q1"])  # first user message: leaf before the root
    assert manager.get_leaf_id() is None and result.editor_text == "How should we structure the parser?"
    assert faux.requests == []


async def test_navigate_errors_and_cancellation(tmp_path: Path, faux: FauxProvider) -> None:
    manager, ids = _tree(tmp_path)
    with pytest.raises(ValueError, match=r"^No model available for summarization$"):
        await navigate_tree(manager, ids["a1"], summarize=True)
    with pytest.raises(EntryNotFoundError, match=r"^Entry nope not found$"):
        await navigate_tree(manager, "nope")
    keyed: Any = {**faux.model, "api": "anthropic-messages", "provider": "anthropic"}
    with pytest.raises(ValueError, match=r"^No API key for anthropic$"):
        await navigate_tree(manager, ids["a1"], summarize=True, model=keyed)
    faux.push(faux_error("overloaded"))
    with pytest.raises(RuntimeError, match=r"^overloaded$"):
        await navigate_tree(manager, ids["a1"], summarize=True, model=faux.model)
    assert manager.get_leaf_id() == ids["a3"]  # navigation did not happen

    async def cancel(event: BeforeTreeEvent) -> Any:
        assert event.preparation.common_ancestor_id == ids["a1"]
        assert event.preparation.user_wants_summary
        return {"cancel": True}

    result = await navigate_tree(manager, ids["a1"], summarize=True, model=faux.model, before_tree=cancel)
    assert result.cancelled and manager.get_leaf_id() == ids["a3"]

    async def supply(event: BeforeTreeEvent) -> Any:
        return {"summary": {"summary": "extension summary", "details": {"k": 1}}, "label": "ext"}

    result = await navigate_tree(manager, ids["a1"], summarize=True, model=faux.model, before_tree=supply)
    assert result.from_extension and result.summary_entry is not None
    assert result.summary_entry["summary"] == "extension summary" and result.summary_entry["fromHook"] is True  # type: ignore[typeddict-item]
    assert manager.get_label(result.summary_entry["id"]) == "ext"
    assert faux.requests[-1].context["messages"][0]["content"][0]["text"]  # the earlier failed call only  # type: ignore[index,typeddict-item]
    assert len(faux.requests) == 1


async def test_aborted_summary_cancels_navigation(tmp_path: Path, faux: FauxProvider) -> None:
    from pi_harness.ai.abort import AbortController

    manager, ids = _tree(tmp_path)
    controller = AbortController()
    controller.abort()
    faux.push(FauxResponse(content=[{"type": "text", "text": "never"}]))
    result = await navigate_tree(manager, ids["a1"], summarize=True, model=faux.model, signal=controller.signal)
    assert result.cancelled and result.aborted
    assert manager.get_leaf_id() == ids["a3"]
