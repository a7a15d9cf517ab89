from __future__ import annotations

import re
from typing import Any

from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.transcript import Transcript

from .conftest import assert_fits, plain
from .scenario import assistant, failing_turn, first_turn, stream, tool_result, user


def run(transcript: Transcript, events: list[dict[str, Any]], width: int = 80) -> tuple[list[str], list[list[str]]]:
    """Feed events one by one; returns the scrollback and the live area after each event."""
    printed: list[str] = []
    live: list[list[str]] = []
    for event in events:
        transcript.handle(event)
        printed.extend(transcript.take_finished(width))
        live.append(transcript.render_live(width))
        assert_fits(printed, width)
        assert_fits(live[-1], width)
    return printed, live


def test_event_sequence_becomes_scrollback_in_conversation_order(context: RenderContext) -> None:
    transcript = Transcript(context)
    printed, _ = run(transcript, first_turn() + failing_turn())
    text = plain(printed)
    order = ["Please fix the failing test", "The user wants the tests fixed", "I'll look at the configuration",
             "read ~/project/config.py:1-30", "$ pytest -q tests/test_app.py", "The test compares 1 with 2",
             "assert compute() == 1", "And now?", "Error: 529 overloaded_error: Overloaded"]  # fmt: skip
    positions = [text.index(fragment) for fragment in order]
    assert positions == sorted(positions)
    assert text.count("Please fix the failing test") == 1
    assert not transcript.has_live
    error_line = next(line for line in printed if "Error: 529" in line)
    assert context.theme.fg_code("error") in error_line


def test_live_area_streams_and_keeps_tool_order(context: RenderContext) -> None:
    transcript = Transcript(context)
    events = first_turn()
    printed: list[str] = []
    for event in events:
        transcript.handle(event)
        printed.extend(transcript.take_finished(80))
        live = plain(transcript.render_live(80))
        if event["type"] == "message_update" and "I'll look at the" in str(event["message"]["content"]):
            assert "I'll look at the" in live
            assert "I'll look at the" not in plain(printed)  # still streaming: not in the scrollback yet
        if event["type"] == "tool_execution_end" and event["toolCallId"] == "call_2":
            # bash finished first, but read is above it and still running: both stay live, in order
            assert "$ pytest" not in plain(printed)
            assert live.index("read ~/project/config.py") < live.index("$ pytest")
        if event["type"] == "tool_execution_end" and event["toolCallId"] == "call_1":
            assert "$ pytest" in plain(printed)


def test_streamed_tool_call_arguments_show_before_execution(context: RenderContext) -> None:
    transcript = Transcript(context)
    seen = []
    for event in first_turn():
        transcript.handle(event)
        transcript.take_finished(80)
        if event["type"] == "message_update":
            seen.append(plain(transcript.render_live(80)))
    assert any("read ~/proj" in frame and "config.py" not in frame for frame in seen)  # partial path
    assert any("read ~/project/config.py:1-30" in frame for frame in seen)


def test_thinking_can_be_hidden(context: RenderContext) -> None:
    context.set_hide_thinking(True)
    printed, _ = run(Transcript(context), first_turn())
    text = plain(printed)
    assert "Thinking…" in text and "The user wants the tests fixed" not in text


def test_history_reload_draws_the_same_screen(context: RenderContext) -> None:
    events = [{k: v for k, v in event.items() if k != "durationMs"} for event in first_turn()]  # not in messages
    from_events, _ = run(Transcript(context), events)
    thinking = {"type": "thinking", "thinking": "The user wants the tests fixed. Read the config first."}
    messages = [message for event in first_turn() if event["type"] == "message_end" for message in [event["message"]]]
    assert messages[1]["content"][0] == thinking
    loaded = Transcript(context)
    loaded.load_messages(messages)
    # As in Pi, a bash call timed by the screen says how long it took; history without durations cannot.
    assert plain(loaded.take_finished(80)) == re.sub(r"\n\n Took \d+\.\ds", "", plain(from_events))


def test_tall_streaming_answer_hands_settled_lines_to_the_scrollback(context: RenderContext) -> None:
    transcript = Transcript(context)
    paragraphs = [f"Paragraph {n} of a long answer." for n in range(30)]
    steps = [[{"type": "text", "text": "\n\n".join(paragraphs[: n + 1])}] for n in range(30)]
    events = stream(steps, assistant([{"type": "text", "text": "\n\n".join(paragraphs)}]))
    printed: list[str] = []
    for event in events:
        transcript.handle(event)
        printed.extend(transcript.take_finished(60, live_limit=10))
        assert len(transcript.render_live(60)) <= 12
    text = plain(printed)
    assert [text.count(p) for p in paragraphs] == [1] * 30  # each line printed exactly once, in order
    assert text.index("Paragraph 3 ") < text.index("Paragraph 29 ")


def test_compaction_retry_and_abort_notices(context: RenderContext) -> None:
    transcript = Transcript(context)
    transcript.handle({"type": "compaction_start", "reason": "threshold"})
    assert "compacting the conversation" in plain(transcript.render_live(80))
    transcript.handle({"type": "compaction_end", "reason": "threshold", "aborted": False, "willRetry": False,
                       "result": {"tokensBefore": 180000, "estimatedTokensAfter": 21000, "summary": "s"}})  # fmt: skip
    transcript.handle({"type": "auto_retry_start", "attempt": 1, "maxAttempts": 3, "delayMs": 2000,
                       "errorMessage": "529 overloaded"})  # fmt: skip
    transcript.handle({"type": "auto_retry_end", "success": False, "attempt": 3, "finalError": "529 overloaded"})
    transcript.handle({"type": "compaction_end", "reason": "manual", "aborted": False, "willRetry": False,
                       "result": None, "errorMessage": "Compaction failed: no model"})  # fmt: skip
    aborted = assistant([{"type": "text", "text": "Half an ans"}], stop="aborted")
    for event in stream([[{"type": "text", "text": "Half an ans"}]], aborted):
        transcript.handle(event)
    transcript.handle({"type": "agent_settled", "aborted": True})
    text = plain(transcript.take_finished(80))
    assert "Compacted the conversation from 180,000 tokens to about 21,000" in text
    assert text.count("[compaction] Conversation compacted from 180,000 tokens") == 1  # one block, one success
    assert "Retrying (1/3) in 2s: 529 overloaded" in text
    assert "Retry failed after 3 attempts: 529 overloaded" in text
    assert "Compaction failed: no model" in text
    assert "Half an ans" in text and "Operation aborted" in text
    assert not transcript.has_live


def test_aborted_tool_calls_are_closed(context: RenderContext) -> None:
    transcript = Transcript(context)
    call = {"type": "toolCall", "id": "c9", "name": "bash", "arguments": {"command": "sleep 100"}}
    for event in stream([[call]], assistant([call], stop="toolUse")):
        transcript.handle(event)
    transcript.handle({"type": "tool_execution_start", "toolCallId": "c9", "toolName": "bash", "args": {}})
    transcript.take_finished(80)
    assert "$ sleep 100" in plain(transcript.render_live(80))
    transcript.handle({"type": "agent_settled", "aborted": True})
    text = plain(transcript.take_finished(80))
    assert "$ sleep 100" in text and "Not executed" in text


def test_user_shell_command_streams_then_settles(context: RenderContext) -> None:
    transcript = Transcript(context)
    transcript.begin_bash("ls", exclude_from_context=True)
    transcript.handle({"type": "bash_execution_update", "id": "1", "delta": "a.txt\n"})
    transcript.handle({"type": "bash_execution_update", "id": "1", "delta": "b.txt\n"})
    live = plain(transcript.render_live(40))
    assert "$ ls" in live and "b.txt" in live and "Running... (escape/ctrl+c to cancel)" in live
    final = {"role": "bashExecution", "command": "ls", "output": "a.txt\nb.txt\n", "exitCode": 2, "cancelled": False,
             "truncated": False, "excludeFromContext": True, "timestamp": 5}  # fmt: skip
    transcript.handle({"type": "message_start", "message": final})
    text = plain(transcript.take_finished(40))
    assert "(exit 2)" in text and "Running" not in text
    # As in Pi: the command's header, then a blank row, the output (its last empty line too), a
    # blank row and the status; a ``!!`` command is drawn dim, borders included.
    rows = text.split("\n")
    start = rows.index(" $ ls")
    assert rows[start : start + 7] == [" $ ls", "", " a.txt", " b.txt", "", "", " (exit 2)"]


def test_user_shell_command_is_dim_when_kept_from_the_model(context: RenderContext) -> None:
    message = {"role": "bashExecution", "command": "ls", "output": "x\n", "exitCode": 0, "excludeFromContext": True}
    transcript = Transcript(context)
    transcript.handle({"type": "message_start", "message": message})
    lines = transcript.take_finished(40)
    dim = context.theme.fg("dim", "─" * 40)
    assert dim in lines
    kept = {**message, "excludeFromContext": False}
    transcript = Transcript(context)
    transcript.handle({"type": "message_start", "message": kept})
    assert dim not in transcript.take_finished(40)


def test_other_roles(context: RenderContext) -> None:
    calls: list[int] = []

    def custom_renderer(message: Any, width: int, ctx: RenderContext) -> list[str]:
        calls.append(width)
        return [f"<<{message['content']}>>"]

    context.custom_renderers["plan"] = custom_renderer
    transcript = Transcript(context)
    transcript.load_messages([
        {"role": "custom", "customType": "note", "content": "A **note**", "display": True, "timestamp": 1},
        {"role": "custom", "customType": "hidden", "content": "secret", "display": False, "timestamp": 1},
        {"role": "custom", "customType": "plan", "content": "step 1", "display": True, "timestamp": 1},
        {"role": "compactionSummary", "summary": "We fixed X.", "tokensBefore": 50000, "timestamp": 2},
        {"role": "branchSummary", "summary": "Tried Y.", "fromId": "abc", "timestamp": 3},
        {"role": "system", "content": "prompt", "timestamp": 0},
        user("with image") | {"content": [{"type": "text", "text": "see"}, {"type": "image", "data": "", "mimeType": "image/png"}]},
        tool_result("orphan", "bash", "lonely result"),
    ])  # fmt: skip
    text = plain(transcript.take_finished(60))
    assert "[note]" in text and "A note" in text and "secret" not in text
    assert "<<step 1>>" in text and calls == [60]
    assert "[compaction] Conversation compacted from 50,000 tokens" in text and "We fixed X." not in text
    assert "[branch summary]" in text
    assert "[Image: [image/png]]" in text
    assert "lonely result" in text
    context.set_expand_tools(True)
    assert "We fixed X." in plain(transcript.render_history(60))


def test_line_breaks_in_user_messages_and_thinking_are_kept(context: RenderContext) -> None:
    """A pasted list of lines stays a list of lines (issue 20, defect 4); answers stay markdown."""
    pasted = "\n".join(f"row {n} of the paste" for n in range(1, 6))
    transcript = Transcript(context)
    transcript.load_messages([
        user(pasted),
        assistant([{"type": "thinking", "thinking": "first thought\nsecond thought"},
                   {"type": "text", "text": "joined\nanswer"}]),
    ])  # fmt: skip
    rows = [line.strip() for line in plain(transcript.take_finished(80)).splitlines()]
    assert [f"row {n} of the paste" for n in range(1, 6)] == [row for row in rows if row.startswith("row ")]
    assert "first thought" in rows and "second thought" in rows
    assert "joined answer" in rows  # a single newline in markdown text still joins the lines


def test_finished_blocks_are_rendered_one_at_a_time(context: RenderContext) -> None:
    # A printer can write a block while the next is laid out (regular mode's startup).
    rendered: list[str] = []

    class Block:
        def __init__(self, name: str) -> None:
            self.name = name

        def render(self, width: int) -> list[str]:
            rendered.append(self.name)
            return [self.name]

    transcript = Transcript(context)
    parts = [Block(name) for name in "abc"]
    for part in parts:
        transcript.add_component(part)
    blocks = transcript.finished_blocks(80)
    assert next(blocks) == ["", "a"] and rendered == ["a"]
    assert list(blocks) == [["", "b"], ["", "c"]] and rendered == ["a", "b", "c"]
    assert transcript.history == parts and not transcript.has_live
