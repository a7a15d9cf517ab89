"""The HTML export's Python side: the embedded data, its escaping, the template and the theme."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from html.parser import HTMLParser

from pi_harness.tui.export_html import default_export_name, export_html
from pi_harness.tui.html_export import SessionPage, page_data, render_page, script_json
from pi_harness.tui.html_export.page import SCRIPTS, asset
from pi_harness.tui.html_export.theme_css import theme_colors
from pi_harness.tui.theme import builtin_theme, parse_theme

from .html_export_fixture import INJECTION, PNG_1X1, session_entries

HOSTILE = "</script><script>alert(1)</script><!-- <script> \u2028\u2029 & {{SCRIPT}} {{DATA}}"


class _Scripts(HTMLParser):
    """The script elements as a browser's tokenizer sees them: attributes and text."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._open: dict[str, str | None] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self._open = dict(attrs)
            self.scripts.append((self._open, ""))

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._open = None


def _page(entries: list[dict[str, object]], **fields: object) -> str:
    leaf = str(entries[-1]["id"]) if entries else None
    return render_page(SessionPage(entries=entries, leaf_id=leaf, **fields), builtin_theme("dark"))  # type: ignore[arg-type]  # test helper passes SessionPage fields through


def _data(page: str) -> dict[str, object]:
    parser = _Scripts()
    parser.feed(page)
    [(_, text)] = [(attrs, text) for attrs, text in parser.scripts if attrs.get("id") == "session-data"]
    loaded: dict[str, object] = json.loads(text)
    return loaded


def test_hostile_text_cannot_leave_the_data_script() -> None:
    entries = [{"type": "message", "id": "a", "parentId": None, "timestamp": "",
                "message": {"role": "user", "content": HOSTILE, "timestamp": 0}}]  # fmt: skip
    page = _page(entries, title=HOSTILE)
    parser = _Scripts()
    parser.feed(page)
    assert [attrs.get("id") or attrs.get("type") for attrs, _ in parser.scripts] == ["session-data", None]
    assert page.count("<script") == 2 and page.lower().count("</script") == 2
    [(_, raw)] = [(attrs, text) for attrs, text in parser.scripts if attrs.get("id") == "session-data"]
    assert "<" not in raw and "&" not in raw and "\u2028" not in raw and "<!--" not in page
    # The browser's JSON.parse gets back exactly what the session held.
    data = _data(page)
    assert data["entries"][0]["message"]["content"] == HOSTILE  # type: ignore[index]  # parsed JSON
    assert f"<title>{HOSTILE[:9].replace('<', '&lt;').replace('>', '&gt;')}" in page
    # Placeholders inside the data are not filled in (one pass over the template).
    assert "\\u0026 {{SCRIPT}} {{DATA}}" in page and page.count("'use strict'") == 1


def test_script_json_escapes_every_html_special_character() -> None:
    text = script_json({"a": "</script>&<!--", "b": "\u2028"})
    assert text == '{"a":"\\u003c/script\\u003e\\u0026\\u003c!--","b":"\\u2028"}'
    assert json.loads(text) == {"a": "</script>&<!--", "b": "\u2028"}


def test_the_page_embeds_every_branch_and_the_leaf() -> None:
    rows = session_entries()
    page = render_page(SessionPage(entries=rows[1:], leaf_id="e21", header=rows[0], title="Fix the calc bug",
                                   system_prompt="Be careful", tools=[{"name": "read", "description": "Read"}],
                                   exported_at=datetime(2026, 1, 2, tzinfo=UTC)), builtin_theme("dark"))  # fmt: skip
    data = _data(page)
    assert [entry["id"] for entry in data["entries"]] == [row["id"] for row in rows[1:]]  # type: ignore[union-attr, index]  # parsed JSON
    assert data["leafId"] == "e21" and data["header"] == rows[0]
    assert data["systemPrompt"] == "Be careful" and data["tools"] == [
        {"name": "read", "description": "Read", "parameters": None}
    ]
    assert data["exportedAt"] == "2026-01-02T00:00:00Z"
    assert INJECTION not in page  # the injection is embedded escaped only
    assert "\\u003c/script\\u003e\\u003cscript\\u003ewindow.__pwned" in page


def test_images_and_terminal_output_are_cleaned() -> None:
    entries = [
        {"type": "message", "id": "u", "parentId": None, "timestamp": "", "message": {"role": "user", "timestamp": 0, "content": [
            {"type": "image", "data": PNG_1X1[:20] + "\n" + PNG_1X1[20:], "mimeType": "image/png"},
            {"type": "image", "data": "\"><script>", "mimeType": "image/png"},
            {"type": "image", "data": "AAAA", "mimeType": "text/html"}]}},
        {"type": "message", "id": "r", "parentId": "u", "timestamp": "", "message": {"role": "toolResult", "toolCallId": "c",
            "toolName": "bash", "isError": False, "timestamp": 0, "content": [{"type": "text", "text": "\x1b[31mred\x1b[0m"}]}},
    ]  # fmt: skip
    data = page_data(SessionPage(entries=entries, leaf_id="r"))
    images = data["entries"][0]["message"]["content"]
    assert images[0] == {"type": "image", "mimeType": "image/png", "data": PNG_1X1}
    assert images[1] == {"type": "image", "mimeType": "image/png", "omitted": True}
    assert images[2] == {"type": "image", "mimeType": "text/html", "omitted": True}
    assert data["entries"][1]["message"]["content"][0]["text"] == "red"
    assert entries[1]["message"]["content"][0]["text"] == "\x1b[31mred\x1b[0m"  # type: ignore[index]  # the input is untouched


def test_the_page_is_self_contained_under_a_strict_policy() -> None:
    page = export_html([{"role": "user", "content": "hi", "timestamp": 0}], builtin_theme("dark"), title="T")
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None and "default-src 'none'" in policy.group(1) and "img-src data:" in policy.group(1)
    nonce = re.search(r"'nonce-([A-Za-z0-9_-]+)'", policy.group(1))
    assert nonce is not None and f'<script nonce="{nonce.group(1)}">' in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    for name in (*SCRIPTS, "viewer.css"):  # the assets that go inside <script> and <style>
        assert "</script" not in asset(name).lower() and "</style" not in asset(name).lower()
    assert _data(page)["entries"] == [{"type": "message", "id": "m1", "parentId": None, "timestamp": "",
                                       "message": {"role": "user", "content": "hi", "timestamp": 0}}]  # fmt: skip


def test_theme_colours_become_variables_light_or_dark() -> None:
    dark = render_page(SessionPage(entries=[], leaf_id=None), builtin_theme("dark"))
    light = render_page(SessionPage(entries=[], leaf_id=None), builtin_theme("light"))
    assert "color-scheme:dark" in dark and "color-scheme:light" in light
    assert "--export-pageBg:#1a1b26;" in dark  # the theme's own export colours
    assert re.search(r"--toolDiffAdded:#[0-9a-f]{6};", dark)
    raw = json.loads(asset_text("dark"))
    del raw["export"]
    spec, errors = parse_theme(raw, None)
    assert spec is not None and not errors
    colors, is_dark = theme_colors(spec)
    assert is_dark and colors["export-infoBg"] == colors["userMessageBg"]  # derived from the user-message colour
    assert colors["export-pageBg"] != colors["export-cardBg"]


def asset_text(theme: str) -> str:
    from importlib import resources

    return resources.files("pi_harness.tui").joinpath("themes", f"{theme}.json").read_text(encoding="utf-8")


def test_default_names() -> None:
    assert default_export_name("2026-01-02T03-04-05-000Z_abc") == "pi-session-2026-01-02T03-04-05-000Z_abc.html"
    assert default_export_name(None, datetime(2025, 1, 2, 3, 4, 5)) == "pi-session-20250102-030405.html"
