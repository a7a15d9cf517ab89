"""The exported page in a real headless Chromium: tree, branches, tools, search, keys, safety."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from .html_export_browser import skip_reason

if skip_reason() is None:
    from playwright.sync_api import expect

from pi_harness.tui.html_export import SessionPage, render_page
from pi_harness.tui.theme import builtin_theme

from .html_export_browser import Opened, Viewer, chromium, needs_browser
from .html_export_fixture import INJECTION, session_entries

pytestmark = needs_browser


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Viewer]:
    with chromium(tmp_path_factory.mktemp("profile")) as browser:
        yield browser


@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rows = session_entries()
    page = SessionPage(entries=rows[1:], leaf_id=rows[-1]["id"], header=rows[0], title="Fix the calc bug",
                       system_prompt="You are a careful assistant.", tools=[{"name": "read", "description": "Read a file"}])  # fmt: skip
    path = tmp_path_factory.mktemp("export") / "session.html"
    path.write_text(render_page(page, builtin_theme("dark")), encoding="utf-8")
    return path


@pytest.fixture
def opened(viewer: Viewer, page_file: Path) -> Iterator[Opened]:
    result = viewer.open(page_file)
    yield result
    result.assert_clean()
    result.page.close()


def messages_text(opened: Opened) -> str:
    text: str = opened.page.inner_text("#messages")
    return text


def test_tree_shows_every_branch_and_the_active_one_is_displayed(opened: Opened) -> None:
    tree = opened.page.inner_text("#tree")
    assert "Now add unit tests for the marmot module" in tree  # the abandoned branch
    assert "Instead, document the fix" in tree  # the active branch
    assert tree.count("├─") == 1  # one fork, its side branch marked
    shown = messages_text(opened)
    assert "Documented in README.md." in shown and "That looks like a script tag." in shown
    assert "Added marmot tests" not in shown
    on_path = opened.page.locator("#tree .row.path").all_inner_texts()
    assert any("Instead, document the fix" in row for row in on_path)
    assert not any("marmot" in row for row in on_path)
    assert opened.page.locator("#tree .leaf-mark").count() == 1


def test_clicking_a_leaf_of_the_other_branch_switches_the_messages(opened: Opened) -> None:
    opened.page.locator("#tree .row", has_text="Added marmot tests").click()
    shown = messages_text(opened)
    assert "Added marmot tests in test_calc.py." in shown
    assert "Now add unit tests for the marmot module" in shown
    assert "Documented in README.md." not in shown and "Branch summary" not in shown
    assert "The bug was an off-by-one" in shown  # the shared start of both branches
    assert "leafId=e12" in opened.page.evaluate("location.hash")
    opened.page.keyboard.press("ArrowUp")  # the tree has the focus: one row up
    assert "targetId=e11" in opened.page.evaluate("location.hash")
    assert opened.page.locator("#entry-e11.target").count() == 1
    # A message's link opens its branch at it.
    opened.page.locator("#entry-e09").hover()
    opened.page.locator("#entry-e09 .permalink").click()
    assert "targetId=e09" in opened.page.evaluate("location.hash")
    opened.page.locator("#tree .row", has_text="That looks like a script tag").click()
    assert "Documented in README.md." in messages_text(opened)
    assert "Added marmot tests" not in messages_text(opened)


def test_a_tool_result_expands_on_click_and_long_output_unclips(opened: Opened) -> None:
    tool = opened.page.locator("details.tool", has_text="$ ls -la && pytest -q")
    output = tool.locator("pre.tool-output")
    assert tool.get_attribute("open") is None and not output.is_visible()
    assert "error" in (tool.get_attribute("class") or "")
    tool.locator("summary").click()
    assert output.is_visible() and "line 001 of the listing" in output.inner_text()
    assert "clipped" in (output.get_attribute("class") or "")
    more = tool.locator("button.more")
    assert more.inner_text() == "Show all 121 lines"
    clipped_height = output.bounding_box()["height"]
    more.click()
    assert "clipped" not in (output.get_attribute("class") or "")
    assert output.bounding_box()["height"] > 3 * clipped_height
    edit = opened.page.locator("details.tool", has_text="edit calc.py")
    edit.locator("summary").click()
    assert edit.locator(".diff .del").inner_text() == "-2     return a + b + 1"
    assert edit.locator(".diff .add").inner_text() == "+2     return a + b"


def test_search_counts_highlights_and_steps_through_matches(opened: Opened) -> None:
    page = opened.page
    page.fill("#search", "calc.py")
    page.press("#search", "Enter")
    expect(page.locator("#search-count")).to_contain_text("/5")
    assert page.inner_text("#search-count") == "1/5 · 1 in other branches"  # test_calc.py in branch A
    marks = page.locator("#messages mark")
    assert len({marks.nth(n).get_attribute("data-m") for n in range(marks.count())}) == 5
    assert [t.lower() for t in marks.all_text_contents()] == ["calc.py"] * 5
    assert page.locator("#messages mark.current").count() == 1
    page.press("#search", "Enter")
    assert page.inner_text("#search-count").startswith("2/5 ")
    current = page.locator("#messages mark.current")
    assert current.is_visible()  # inside a tool call that was opened to show it
    page.press("#search", "Shift+Enter")
    page.press("#search", "Shift+Enter")
    assert page.inner_text("#search-count").startswith("5/5 ")
    page.check("#search-filter")
    assert page.locator("#messages .entry:visible").count() == 4
    page.uncheck("#search-filter")
    # A match across formatting (plain text, then bold) is one match in two marked pieces.
    page.fill("#search", "checked the callers")
    expect(page.locator("#search-count")).to_have_text("1/1")
    assert page.locator("#messages mark").count() == 2
    page.fill("#search", "marmot")
    expect(page.locator("#search-count")).to_contain_text("no matches")
    assert page.inner_text("#search-count") == "no matches · 2 in other branches"
    assert page.locator("#tree .row.hit").count() == 2
    page.press("#search", "Escape")
    assert page.locator("#messages mark").count() == 0 and page.inner_text("#search-count") == ""


@pytest.mark.parametrize("query", ["e", "a b", "line 0", "**"])
def test_the_count_is_what_is_highlighted_in_every_kind_of_entry(opened: Opened, query: str) -> None:
    page = opened.page
    page.fill("#search", query)
    page.press("#search", "Enter")
    expect(page.locator("#search-count")).not_to_have_text("")
    count = page.inner_text("#search-count")
    marks = page.locator("#messages mark")
    numbers = {marks.nth(n).get_attribute("data-m") for n in range(marks.count())}
    total = int(count.split("/")[1].split(" ")[0]) if "/" in count else 0
    assert len(numbers) == total, count
    assert numbers == {str(n) for n in range(total)}


def test_keyboard_shortcuts(opened: Opened) -> None:
    page = opened.page
    thinking = page.locator("details.thinking").first
    assert thinking.get_attribute("open") is None
    page.keyboard.press("t")
    assert thinking.get_attribute("open") is not None
    page.keyboard.press("o")
    assert all(box.get_attribute("open") is not None for box in page.locator("details.tool").all())
    page.keyboard.press("h")
    assert page.locator(".entry.hidden-kind").first.is_visible()  # the label entry
    page.keyboard.press("?")
    assert page.locator("#help").is_visible()
    page.keyboard.press("Escape")
    assert not page.locator("#help").is_visible()
    page.keyboard.press("j")
    page.keyboard.press("j")
    assert page.locator("#scroller").evaluate("box => box.scrollTop") > 0
    page.keyboard.press("g")
    assert page.locator("#scroller").evaluate("box => box.scrollTop") == 0
    page.keyboard.press("b")
    assert not page.locator("#sidebar").is_visible()
    page.keyboard.press("b")
    assert page.locator("#sidebar").is_visible()
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search"


def test_injected_markup_stays_text_and_images_are_inline(opened: Opened) -> None:
    page = opened.page
    assert page.evaluate("window.__pwned") is None
    assert page.locator("script").count() == 2  # the data and the viewer, nothing injected
    shown = page.locator("#entry-e19 .md").text_content() or ""
    assert shown.replace("__", "") == INJECTION.replace("__", "")  # the markup is text (__ reads as bold)
    assert page.locator("#messages a[href^='javascript']").count() == 0
    assert page.locator("#messages a[href='https://example.com/docs']").count() == 1
    assert page.locator("#messages table td").all_inner_texts() == ["calc.py", "fixed"]
    code = page.locator("#entry-e09 pre code")  # a fenced python block, coloured by spans of its text
    assert code.locator(".tok-k").all_text_contents() == ["def", "return"] and code.locator(
        ".tok-f"
    ).all_text_contents() == ["add"]
    assert code.text_content() == "def add(a, b):\n    return a + b"
    images = page.locator("#messages img.inline")
    assert images.count() == 1 and (images.get_attribute("src") or "").startswith("data:image/png;base64,")
    assert "[image: image/png not embedded]" in messages_text(opened)
    images.click()
    assert page.locator("#image-modal").is_visible()
    page.keyboard.press("Escape")
    header = page.inner_text("#session-header")
    assert "Fix the calc bug" in header and "fake/fake-model, fake/bigger-model" in header
    assert re.search(r"22 in 2 branches", header)
    system = page.locator("details", has_text="System prompt · 2 sections, +1 tools")
    system.locator("summary").click()
    assert "You are a coding agent." in system.inner_text() and "+ read: Read a file" in system.inner_text()
    assert "(model changed)" in messages_text(opened)
    assert "Compaction · 48,000 tokens before" in messages_text(opened)


def test_an_address_opens_a_branch_at_an_entry(viewer: Viewer, page_file: Path) -> None:
    opened = viewer.open(page_file, "#leafId=e12&targetId=e11")
    try:
        assert "Added marmot tests" in messages_text(opened)
        assert opened.page.locator("#entry-e11.target").count() == 1
        opened.assert_clean()
    finally:
        opened.page.close()


def big_session(turns: int) -> tuple[list[dict[str, object]], str]:
    """``turns`` user/assistant/tool-result rounds (4 entries each) with a side branch every 1,000."""
    entries: list[dict[str, object]] = []
    parent: str | None = None
    for turn in range(turns):
        stamp = f"2026-01-01T00:00:{turn % 60:02d}.000Z"
        word = "needle-in-the-haystack" if turn == turns - 3 else f"turn {turn}"
        call = {"type": "toolCall", "id": f"c{turn}", "name": "bash", "arguments": {"command": f"echo {turn}"}}
        rows = [
            {"role": "user", "content": f"Question {word}: what is **{turn}**?", "timestamp": 0},
            {"role": "assistant", "content": [{"type": "text", "text": f"Answer `{turn}`"}, call], "provider": "fake",
             "model": "m", "usage": {"input": 10, "output": 5, "cost": {"total": 0.001}}, "stopReason": "toolUse"},
            {"role": "toolResult", "toolCallId": f"c{turn}", "toolName": "bash", "content": [{"type": "text", "text": f"{turn}\n"}],
             "isError": False, "timestamp": 0},
            {"role": "assistant", "content": [{"type": "text", "text": f"Done with {turn}."}], "provider": "fake", "model": "m",
             "stopReason": "stop"},
        ]  # fmt: skip
        for n, message in enumerate(rows):
            entry_id = f"t{turn}-{n}"
            entries.append(
                {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp, "message": message}
            )
            parent = entry_id
        if turn % 1000 == 500:
            side = {"role": "user", "content": f"side branch {turn}", "timestamp": 0}
            entries.append(
                {"type": "message", "id": f"side{turn}", "parentId": f"t{turn}-1", "timestamp": stamp, "message": side}
            )
    assert parent is not None
    return entries, parent


def test_a_50k_entry_session_opens_lazily(viewer: Viewer, tmp_path: Path) -> None:
    entries, leaf = big_session(12_500)
    assert len(entries) > 50_000
    path = tmp_path / "big.html"
    path.write_text(render_page(SessionPage(entries=entries, leaf_id=leaf), builtin_theme("light")), encoding="utf-8")
    opened = viewer.open(path)
    page = opened.page
    try:
        assert page.locator("#messages .entry").count() <= 240  # a window of the branch, not all of it
        assert page.locator("#tree .row").count() < 200  # only the rows in sight
        assert page.inner_text("#tree-status").startswith(f"{len(entries)} / {len(entries)} entries · 13 leaves")
        page.keyboard.press("G")
        expect(page.locator("#messages")).to_contain_text("Done with 12499.")
        page.fill("#search", "needle-in-the-haystack")
        page.press("#search", "Enter")
        expect(page.locator("#search-count")).to_have_text("1/1")
        assert page.locator("#messages mark.current").is_visible()
        page.fill("#search", "side branch 5500")
        page.press("#search", "Enter")
        expect(page.locator("#search-count")).to_have_text("no matches · 1 in other branches")
        page.press("#search", "Escape")
        page.keyboard.press("g")
        page.click("#tree .row >> nth=0")
        page.locator("#tree").evaluate("tree => { tree.scrollTop = 2002 * 20 - 200; }")
        page.locator("#tree .row", has_text="side branch 500").click()
        expect(page.locator("#messages")).to_contain_text("side branch 500")
        assert page.locator("#messages .entry").count() <= 360
        opened.assert_clean()
    finally:
        page.close()


def test_printing_shows_the_branch_expanded_without_the_tree(opened: Opened) -> None:
    page = opened.page
    page.emulate_media(media="print")
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    assert not page.locator("#sidebar").is_visible() and not page.locator("#toolbar").is_visible()
    assert all(box.get_attribute("open") is not None for box in page.locator("#messages details").all())
    assert page.locator("pre.tool-output", has_text="line 120 of the listing").is_visible()
    page.evaluate("window.dispatchEvent(new Event('afterprint'))")
    page.emulate_media(media="screen")
    assert page.locator("details.tool").first.get_attribute("open") is None


def test_the_harness_notices_requests_and_console_errors(viewer: Viewer, tmp_path: Path) -> None:
    """The control for ``assert_clean``: a page that does fetch and log is caught."""
    path = tmp_path / "leaky.html"
    path.write_text(
        '<body data-ready="1"><img src="http://example.invalid/a.png"><script>console.error("boom")</script></body>'
    )
    opened = viewer.open(path)
    try:
        with pytest.raises(AssertionError):
            opened.assert_clean()
        assert opened.blocked == ["http://example.invalid/a.png"]
        assert "boom" in opened.errors
    finally:
        opened.page.close()


def test_empty_and_odd_sessions_open_without_errors(viewer: Viewer, tmp_path: Path) -> None:
    odd: list[dict[str, object]] = [
        {"type": "message", "id": "a", "parentId": "missing", "timestamp": "x", "message": {"role": "user", "content": None}},
        {"type": "message", "id": "b", "parentId": "a", "timestamp": "", "message": {"role": "assistant", "content": [
            None, {"type": "toolCall", "id": "t", "name": "mystery", "arguments": "not an object"},
            {"type": "text", "text": 42}], "stopReason": "aborted"}},
        {"type": "message", "id": "c", "parentId": "c", "timestamp": "", "message": {"role": "toolResult", "toolCallId": "zz",
            "toolName": "orphan", "content": "plain", "isError": True}},
        {"type": "future_kind", "id": "d", "parentId": "b", "timestamp": "", "data": {"x": [1, 2]}},
        {"type": "message", "id": "e", "parentId": "b", "timestamp": "", "message": {"role": "bashExecution",
            "command": "make", "output": "ok", "exitCode": 2}},
    ]  # fmt: skip
    for name, entries, leaf in (("empty", [], None), ("odd", odd, "e")):
        path = tmp_path / f"{name}.html"
        path.write_text(
            render_page(SessionPage(entries=entries, leaf_id=leaf), builtin_theme("dark")), encoding="utf-8"
        )
        opened = viewer.open(path)
        try:
            if entries:
                shown = messages_text(opened)
                assert "Aborted" in shown and "mystery" in shown and "$ make" in opened.page.inner_text("#messages")
                assert opened.page.locator("#tree .row").count() == 4  # the unknown kind only under "All"
                opened.page.click("button[data-filter='all']")
                assert opened.page.locator("#tree .row").count() == 5
                opened.page.locator("#tree .row", has_text="orphan").click()
                assert "plain" in opened.page.locator("#messages").text_content()
            opened.assert_clean()
        finally:
            opened.page.close()
