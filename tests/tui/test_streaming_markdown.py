"""A streamed answer drawn delta by delta looks exactly like the same answer drawn whole.

The renderer keeps the lines of settled blocks from one delta to the next and re-lays out only
the block still growing; these properties pin that the cache never shows anything a fresh
rendering would not, whatever the split points and widths: at every step the lines equal a
fresh rendering of the text so far, lines reported stable never change afterwards, and the
scrollback a long streamed answer was handed in pieces equals the finished answer's lines.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_harness.tui.components import assistant_message
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.markdown import MarkdownRenderer
from pi_harness.tui.theme import load_theme
from pi_harness.tui.transcript import Transcript

THEME = load_theme("dark", "truecolor")
WIDTHS = st.sampled_from([12, 23, 40, 61, 100])

# Pieces whose meaning depends on what comes after them: the renderer must not settle them early.
TRICKY = {
    "fence across deltas": "Before the code:\n\n```python\ndef f(x):\n\n    return x  # a blank line inside\n```\nAfter.",
    "tilde fence and backticks inside": "~~~\n```not a close\n~~~~\n\ntext `a` b",
    "fence in a list": "- item\n\n  ```sh\n  ls -la\n  ```\n- next item\n",
    "list continuing": "- one\n- two\n\n  still two\n\n- three\n\n1. first\n2. second\n\n10. tenth",
    "table": "Intro.\n\n| name | value |\n|:-----|------:|\n| a | 1 |\n| long cell text here | 22 |\n\nAfter the table.",
    "heading after a paragraph": "A paragraph that runs\nover two lines.\n# Heading right after\nMore text.\n\n## Second",
    "setext heading": "Title arrives first\n===\n\nSubtitle\n---\n\nplain\n\n---\n",
    "link reference definitions": "See [the docs][d] and [x].\n\n[d]: https://example.com/docs\n[x]: <https://x.y> 'T'\n",
    "quote and rule": "> quoted\ncontinued lazily\n\n> second\n\n***\n\n* star list\n",
    "unclosed fence at the end": "Text\n\n````md\n```inner```\nstill code",
    "indented code": "Para\n\n    indented code\n\n    more\n\nend",
}
PIECES = st.sampled_from([*TRICKY.values(), "", "word", "\n", "\n\n", "```", "```py\nx = 1", "- item", "1. one",
                          "  indented", "> quote", "# head", "===", "---", "| a |", "|---|", "[r]: /u", "`x`"])  # fmt: skip


def prefixes(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(len(text), cut) for cut in cuts} | {len(text)})
    return [text[:point] for point in points]


def check_streaming(text: str, cuts: list[int], width: int, style: str = "") -> None:
    streaming = MarkdownRenderer(THEME)
    final = MarkdownRenderer(THEME).render(text, width, style=style, indent=" ")
    for partial in prefixes(text, cuts):
        lines, stable = streaming.render_stable(partial, width, style=style, indent=" ")
        assert lines == MarkdownRenderer(THEME).render(partial, width, style=style, indent=" ")
        assert lines[:stable] == final[:stable], "a line reported stable changed later"
    assert lines == final


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(TRICKY)), st.lists(st.integers(0, 200), max_size=25), WIDTHS)
def test_each_tricky_document_streams_like_it_renders_whole(name: str, cuts: list[int], width: int) -> None:
    check_streaming(TRICKY[name], cuts, width)


@settings(max_examples=80, deadline=None)
@given(st.lists(PIECES, min_size=1, max_size=12), st.lists(st.integers(0, 600), max_size=30), WIDTHS,
       st.sampled_from(["", "thinking"]))  # fmt: skip
def test_random_documents_stream_like_they_render_whole(pieces: list[str], cuts: list[int], width: int,
                                                        style: str) -> None:  # fmt: skip
    check_streaming("\n".join(pieces), cuts, width, style)


def test_every_prefix_of_every_tricky_document() -> None:
    for text in TRICKY.values():
        check_streaming(text, list(range(len(text))), 40)


def _assistant(text: str, stop: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "api": "fake", "provider": "fake",
            "model": "m", "usage": {}, "stopReason": stop, "timestamp": 0}  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(st.lists(PIECES, min_size=1, max_size=16), st.lists(st.integers(0, 800), max_size=30), WIDTHS,
       st.integers(2, 12))  # fmt: skip
def test_scrollback_of_a_streamed_answer_equals_the_finished_answer(pieces: list[str], cuts: list[int], width: int,
                                                                    live_limit: int) -> None:  # fmt: skip
    """What regular mode prints into the scrollback while a tall answer streams, then at its end,
    is what a resumed session prints for the same message."""
    text = "\n".join(pieces * 3)
    context = RenderContext(THEME, cwd="/p", home="/h")
    transcript = Transcript(context)
    transcript.handle({"type": "message_start", "message": _assistant("", "pending")})
    printed: list[str] = []
    for partial in prefixes(text, cuts):
        transcript.handle({"type": "message_update", "message": _assistant(partial, "pending")})
        printed.extend(transcript.take_finished(width, live_limit=live_limit))
        transcript.render_live(width)
    transcript.handle({"type": "message_end", "message": _assistant(text, "stop")})
    printed.extend(transcript.take_finished(width))
    whole = Transcript(RenderContext(THEME, cwd="/p", home="/h"))
    whole.load_messages([_assistant(text, "stop")])
    assert printed == whole.take_finished(width)


@settings(max_examples=60, deadline=None)
@given(st.lists(PIECES, min_size=1, max_size=12), st.lists(st.integers(0, 600), max_size=20), WIDTHS)
def test_a_spent_frame_budget_draws_a_prefix_then_catches_up(pieces: list[str], cuts: list[int], width: int) -> None:
    """With no time left in a frame, each render lays out one more settled block and shows the
    lines done so far: always the start of the true rendering, and the true rendering at last."""
    text = "\n".join(pieces * 2)
    renderer = MarkdownRenderer(THEME)
    for partial in prefixes(text, cuts):
        lines, stable, behind = renderer.render_within(partial, width, indent=" ", deadline=0.0)
        fresh = MarkdownRenderer(THEME).render(partial, width, indent=" ")
        if behind:
            assert stable == len(lines) and lines == fresh[: len(lines)]
        else:
            assert lines == fresh
    for _ in range(len(text) + 1):
        lines, stable, behind = renderer.render_within(text, width, indent=" ", deadline=0.0)
        if not behind:
            break
    assert lines == MarkdownRenderer(THEME).render(text, width, indent=" ")


def test_a_streaming_answer_behind_its_frame_budget_asks_for_more_frames(monkeypatch: pytest.MonkeyPatch) -> None:
    """The transcript says it is behind while the answer is drawn in part; the scrollback it hands
    over, and the finished answer, are the same as without a budget."""
    monkeypatch.setattr(assistant_message, "FRAME_BUDGET", -1.0)  # every render stops after one block
    text = "\n\n".join(TRICKY.values())
    transcript = Transcript(RenderContext(THEME, cwd="/p", home="/h"))
    transcript.handle({"type": "message_start", "message": _assistant("", "pending")})
    transcript.handle({"type": "message_update", "message": _assistant(text, "pending")})
    printed: list[str] = []
    frames = 0
    while True:
        printed.extend(transcript.take_finished(50, live_limit=5))
        transcript.render_live(50)
        frames += 1
        if not transcript.behind:
            break
    assert frames > 5  # the settled blocks came a few per frame
    transcript.handle({"type": "message_end", "message": _assistant(text, "stop")})
    assert not transcript.behind
    printed.extend(transcript.take_finished(50))
    whole = Transcript(RenderContext(THEME, cwd="/p", home="/h"))
    whole.load_messages([_assistant(text, "stop")])
    assert printed == whole.take_finished(50)
