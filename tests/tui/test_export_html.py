from __future__ import annotations

import re
from datetime import UTC, datetime
from html.parser import HTMLParser

from pi_harness.tui.export_html import default_export_name, export_html
from pi_harness.tui.theme import builtin_theme

from .scenario import assistant, tool_result, user

DIFF = " 1 a\n-2 <b>\n+2 <i>"


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def session_messages() -> list[dict[str, object]]:
    calls = [
        {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "echo '<script>alert(1)</script>'"}},
        {"type": "toolCall", "id": "c2", "name": "edit", "arguments": {"path": "a.html", "edits": []}},
        {"type": "toolCall", "id": "c3", "name": "deploy", "arguments": {"env": "prod & test"}},
    ]
    return [
        user("Fix <b>this</b> & that <script>alert('x')</script>"),
        assistant([{"type": "thinking", "thinking": "Think about <tags>"},
                   {"type": "text", "text": "Sure, **bold** and [a link](javascript:alert(1))"}, *calls],
                  stop="toolUse"),
        tool_result("c1", "bash", "<script>alert(1)</script>"),
        tool_result("c2", "edit", "Successfully replaced text in a.html.", details={"diff": DIFF}),
        tool_result("c3", "deploy", "denied", error=True),
        {"role": "user", "content": [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                                     {"type": "image", "data": "\"><script>", "mimeType": "image/png"},
                                     {"type": "image", "data": "AAAA", "mimeType": "text/html"}], "timestamp": 5},
        {"role": "bashExecution", "command": "ls <dir>", "output": "x", "exitCode": 1, "cancelled": False,
         "truncated": False, "timestamp": 6},
        {"role": "custom", "customType": "note", "content": "Extension <note>", "display": True, "timestamp": 7},
        {"role": "compactionSummary", "summary": "Earlier work", "tokensBefore": 1000, "timestamp": 8},
        assistant([], stop="error", errorMessage="boom <500>"),
    ]  # fmt: skip


def test_page_is_self_contained_and_escaped() -> None:
    page = export_html(session_messages(), builtin_theme("dark"), title="My <session>", session_id="abc",
                       cwd="/work/p", exported_at=datetime(2025, 1, 2, 3, 4, tzinfo=UTC))  # fmt: skip
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page.lower()  # every script-looking string is escaped
    assert 'href="javascript:' not in page
    assert "<style>" in page and "http" not in page.split("<style>")[1].split("</style>")[0]
    assert "<title>My &lt;session&gt;</title>" in page
    assert "Fix &lt;b&gt;this&lt;/b&gt; &amp; that" in page
    assert "Exported by pi-harness on 2025-01-02 03:04 UTC" in page
    collector = _Collector()
    collector.feed(page)
    text = "".join(collector.text)
    for expected in (
        "Sure, ",
        "bold",
        "Think about <tags>",
        "$ echo '<script>alert(1)</script>'",
        "edit a.html",
        "prod & test",
        "denied",
        "ls <dir>",
        "Extension <note>",
        "Earlier work",
        "Error: boom <500>",
    ):
        assert expected in text, expected
    assert collector.tags.count("details") == 5  # thinking, three tool calls, the summary
    assert 'class="tool error"' in page and 'class="tool ok"' in page
    assert '<span class="del">-2 &lt;b&gt;</span>' in page and '<span class="add">+2 &lt;i&gt;</span>' in page
    assert page.count("data:image/png;base64,") == 1  # only a valid image is embedded
    assert "[image: text/html]" in page


def test_theme_colours_are_used_and_names() -> None:
    light = export_html([user("hi")], builtin_theme("light"))
    assert "--page:#f6f8fa" in light
    dark = export_html([user("hi")], builtin_theme("dark"))
    assert "--page:#1a1b26" in dark and re.search(r"--added:#[0-9a-f]{6}", dark)
    assert default_export_name("abc") == "pi-session-abc.html"
    assert default_export_name(None, datetime(2025, 1, 2, 3, 4, 5)) == "pi-session-20250102-030405.html"
