"""Summary requests: serialisation, request layout, split turns, errors."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from _compaction_helpers import assistant, tool_result, user

from pi_harness.ai.providers.faux import FauxProvider, FauxResponse, faux_error, faux_text
from pi_harness.coding.compaction import (
    CompactionPreparation,
    FileOperations,
    SummarizationError,
    generate_summary,
    prompts,
    serialize_conversation,
    summarize_compaction,
)

HEADINGS = [
    "## Goal",
    "## Constraints & Preferences",
    "## Progress",
    "### Done",
    "### In Progress",
    "### Blocked",
    "## Key Decisions",
    "## Next Steps",
    "## Critical Context",
]


@pytest.fixture
def faux() -> Iterator[FauxProvider]:
    provider = FauxProvider(model_id="summariser", max_tokens=4321)
    yield provider
    provider.close()


def _user_text(provider: FauxProvider, index: int = 0) -> str:
    message = provider.requests[index].context["messages"][0]
    assert message["role"] == "user" and len(message["content"]) == 1  # type: ignore[arg-type]
    text: str = message["content"][0]["text"]  # type: ignore[index,typeddict-item]
    return text


def test_serialization_format() -> None:
    long_output = "o" * 2500
    messages: list[Any] = [
        user("please fix"),
        assistant(
            "looking",
            thinking="secret reasoning",
            calls=(("c1", "read", {"path": "a.py", "limit": 5}), ("c2", "bash", {"command": "ls"})),
        ),
        tool_result("c1", long_output),
        tool_result("c2", ""),
        {
            "role": "bashExecution",
            "command": "make",
            "output": "done",
            "exitCode": 2,
            "cancelled": False,
            "truncated": False,
            "timestamp": 1,
        },
        {"role": "custom", "customType": "x", "content": "ext note", "display": True, "timestamp": 1},
        {"role": "compactionSummary", "summary": "S", "tokensBefore": 1, "timestamp": 1},
        {"role": "user", "content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}], "timestamp": 1},
    ]
    text = serialize_conversation(messages)
    parts = text.split("\n\n[")
    assert parts[0] == "[User]: please fix"
    assert "secret reasoning" not in text  # thinking is omitted
    assert '[Assistant]: looking\n\n[Assistant tool calls]: read(path="a.py", limit=5); bash(command="ls")' in text
    assert f"[Tool result]: {'o' * 2000}\n\n[... 500 more characters truncated]" in text
    assert "[User]: Ran `make`\n```\ndone\n```\n\nCommand exited with code 2" in text
    assert "[User]: ext note" in text
    assert "<summary>\nS\n</summary>" in text
    assert text.count("[Tool result]") == 1  # empty results and image-only messages are left out


async def test_request_layout(faux: FauxProvider) -> None:
    faux.push(faux_text("## Goal\nfix it"))
    output = await generate_summary([user("hello")], faux.model)  # type: ignore[list-item]
    assert output.text == "## Goal\nfix it"
    request = faux.requests[0]
    assert request.context["systemPrompt"] == prompts.SYSTEM_PROMPT
    assert len(request.context["messages"]) == 1
    text = _user_text(faux)
    assert text == "<conversation>\n[User]: hello\n</conversation>\n\n" + prompts.INITIAL_PROMPT
    positions = [text.index(h + "\n") for h in HEADINGS]
    assert positions == sorted(positions)
    assert "file paths, function names and error messages" in text
    options = request.options
    assert options is not None
    assert options.disable_cache_writes is True and options.cache_retention == "none"
    assert options.max_tokens == 4321  # the model's output limit
    assert options.session_id


async def test_update_prompt_and_custom_focus(faux: FauxProvider) -> None:
    faux.push(faux_text("merged"))
    await generate_summary(
        [user("more")],
        faux.model,
        previous_summary="## Goal\nold",
        custom_instructions="the database",  # type: ignore[list-item]
    )
    assert _user_text(faux) == (
        "<conversation>\n[User]: more\n</conversation>\n\n"
        "<previous-summary>\n## Goal\nold\n</previous-summary>\n\n"
        + prompts.UPDATE_PROMPT
        + "\n\nAdditional focus: the database"
    )


async def test_only_text_blocks_of_the_reply_are_used(faux: FauxProvider) -> None:
    faux.push(
        FauxResponse(
            content=[
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "A"},
                {"type": "text", "text": "B"},
            ]
        )
    )
    assert (await generate_summary([user("x")], faux.model)).text == "A\nB"  # type: ignore[list-item]


async def test_errors_name_the_failed_summary(faux: FauxProvider) -> None:
    faux.push(faux_error("upstream overloaded"))
    with pytest.raises(SummarizationError, match=r"^Summarization failed: upstream overloaded$"):
        await generate_summary([user("x")], faux.model)  # type: ignore[list-item]


def _plan(split: bool, history: list[Any], prefix: list[Any], previous: str | None = None) -> CompactionPreparation:
    ops = FileOperations(read={"r.md", "both.py"}, written={"w.txt"}, edited={"both.py"})
    return CompactionPreparation(
        first_kept_entry_id="keep0001",
        messages_to_summarize=history,
        turn_prefix_messages=prefix,
        is_split_turn=split,
        tokens_before=1234,
        previous_summary=previous,
        file_ops=ops,
    )


def _by_prompt(context: Any, _options: Any) -> FauxResponse:
    text = context["messages"][0]["content"][0]["text"]
    if prompts.TURN_PREFIX_PROMPT in text:
        return faux_text("## Original Request\nbig job", usage={"input": 10, "output": 5})
    return faux_text("## Goal\nhistory", usage={"input": 20, "output": 7})


async def test_split_turn_generates_two_summaries_and_merges_them(faux: FauxProvider) -> None:
    faux.push(_by_prompt, _by_prompt)
    result = await summarize_compaction(_plan(True, [user("old")], [user("big request")]), faux.model)  # type: ignore[list-item]
    assert result["summary"] == (
        "## Goal\nhistory\n\n---\n\n**Turn Context (split turn):**\n\n## Original Request\nbig job"
        "\n\n<read-files>\nr.md\n</read-files>\n\n<modified-files>\nboth.py\nw.txt\n</modified-files>"
    )
    assert result["firstKeptEntryId"] == "keep0001" and result["tokensBefore"] == 1234
    assert result["details"] == {"readFiles": ["r.md"], "modifiedFiles": ["both.py", "w.txt"]}
    assert result["usage"]["input"] == 30 and result["usage"]["output"] == 12
    # As in Pi: the history first, then the turn prefix, each with its own fresh UUIDv7.
    assert "[User]: old" in _user_text(faux, 0)
    assert _user_text(faux, 1).endswith(prompts.TURN_PREFIX_PROMPT) and "[User]: big request" in _user_text(faux, 1)
    ids = [uuid.UUID(str(faux.requests[i].options.session_id)) for i in range(2)]  # type: ignore[union-attr]
    assert [u.version for u in ids] == [7, 7] and ids[0] != ids[1]


async def test_custom_instructions_reach_the_turn_prefix_too(faux: FauxProvider) -> None:
    faux.push(_by_prompt, _by_prompt)
    await summarize_compaction(
        _plan(True, [user("old")], [user("big request")]),  # type: ignore[list-item]
        faux.model,
        custom_instructions="Keep file names",
    )
    assert all(_user_text(faux, i).endswith("Additional focus: Keep file names") for i in range(2))


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (
            FauxResponse(content=[{"type": "text", "text": "half a summ"}], stop_reason="length"),
            "Summarization failed: generation hit the token cap and the summary is incomplete",
        ),
        (
            FauxResponse(content=[{"type": "toolCall", "id": "t1", "name": "read", "arguments": {}}]),
            "Summarization attempted to call a tool",
        ),
    ],
)
async def test_a_cut_or_tool_calling_reply_is_no_summary(faux: FauxProvider, reply: Any, message: str) -> None:
    faux.push(reply)
    with pytest.raises(SummarizationError, match=f"^{message}$"):
        await summarize_compaction(_plan(False, [user("a")], []), faux.model)  # type: ignore[list-item]


async def test_split_turn_without_history(faux: FauxProvider) -> None:
    faux.push(_by_prompt)
    result = await summarize_compaction(_plan(True, [], [user("big request")]), faux.model)  # type: ignore[list-item]
    assert result["summary"].startswith("No prior history.\n\n---\n\n**Turn Context (split turn):**")
    assert len(faux.requests) == 1


async def test_turn_prefix_failure(faux: FauxProvider) -> None:
    def respond(context: Any, options: Any) -> FauxResponse:
        if prompts.TURN_PREFIX_PROMPT in context["messages"][0]["content"][0]["text"]:
            return faux_error("bad gateway")
        return faux_text("fine")

    faux.push(respond, respond)
    with pytest.raises(SummarizationError, match=r"^Turn prefix summarization failed: bad gateway$"):
        await summarize_compaction(_plan(True, [user("a")], [user("b")]), faux.model)  # type: ignore[list-item]
