"""Snapshot tests of the main screens at 80 and 120 columns (golden files in ``golden/``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.session_store.tree import build_tree, resolve_labels
from pi_harness.tui.components.autocomplete import Autocomplete, CommandInfo
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.dialogs import ConfirmDialog, StatusBar
from pi_harness.tui.components.editor import Editor
from pi_harness.tui.components.editor_view import EditorView
from pi_harness.tui.components.footer import Footer, FooterData, UsageTotals
from pi_harness.tui.components.header import Diagnostic, Header, HeaderData
from pi_harness.tui.components.model_selector import ModelSelector
from pi_harness.tui.components.notices import WorkingIndicator
from pi_harness.tui.components.queue import QueueView
from pi_harness.tui.components.settings_items import setting_items
from pi_harness.tui.components.settings_view import SettingsView
from pi_harness.tui.components.tree_selector import TreeSelector
from pi_harness.tui.components.trust_prompt import TrustPrompt
from pi_harness.tui.file_index import FileIndex
from pi_harness.tui.screen import BottomPane
from pi_harness.tui.transcript import Transcript

from .scenario import assistant, failing_turn, first_turn, stream
from .test_selectors import MODELS
from .test_tree_and_dialogs import session_entries

Golden = Callable[[str, list[str], int], None]
WIDTHS = pytest.mark.parametrize("width", [80, 120])


def footer(context: RenderContext, **overrides: object) -> Footer:
    data = FooterData(
        cwd="/work/project", home="/work", git_branch="main", session_name="fix tests", model="claude-sonnet-4-5",
        provider="anthropic", thinking_level="medium", context_tokens=45_200, context_window=200_000,
        totals=UsageTotals(input=123_456, output=7_890, cache_read=450_000, cache_write=12_000, cost=0.4321),
    )  # fmt: skip
    for key, value in overrides.items():
        setattr(data, key, value)
    return Footer(data, context.theme)


@WIDTHS
def test_transcript_screen(context: RenderContext, golden: Golden, width: int) -> None:
    transcript = Transcript(context)
    printed: list[str] = []
    for event in first_turn() + failing_turn():
        transcript.handle(event)
        printed.extend(transcript.take_finished(width))
    golden(f"transcript_{width}", printed, width)


@WIDTHS
def test_bottom_pane_while_working(context: RenderContext, golden: Golden, width: int, tmp_path: Path) -> None:
    for name in ("src/app.py", "src/api.py", "README.md"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("", encoding="utf-8")
    editor = Editor()
    editor.insert("Also refactor @src/ap")
    complete = Autocomplete(context.theme, files=FileIndex(str(tmp_path)), commands=[CommandInfo("model", "Select")])
    complete.update(editor)
    queue = QueueView(context)
    queue.set(["use yarn instead"], ["then update the docs"])
    status = StatusBar(context)
    status.set("mcp", "MCP: 2 servers connected")
    transcript = Transcript(context)
    partial = [{"type": "text", "text": "Running the **whole** suite now."},
               {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "yarn test"}}]  # fmt: skip
    for event in stream([partial], assistant(partial, stop="toolUse")):
        transcript.handle(event)
    transcript.handle({"type": "tool_execution_start", "toolCallId": "c1", "toolName": "bash", "args": {}})
    transcript.take_finished(width)
    pane = BottomPane(transcript, EditorView(editor, context.theme, thinking_level="medium"), footer(context),
                      queue=queue, autocomplete=complete, working=WorkingIndicator(context), status=status,
                      show_working=True)  # fmt: skip
    frame = pane.render(width, 40)
    golden(f"bottom_pane_{width}", frame.lines, width)
    assert frame.cursor is not None and frame.lines[frame.cursor[0]].count("\x1b[7m") == 1


@WIDTHS
def test_startup_header(context: RenderContext, golden: Golden, width: int) -> None:
    data = HeaderData(
        app_name="pi", version="0.1.0",
        context_files=["/work/.pi/agent/AGENTS.md", "/work/project/AGENTS.md"],
        skills=["pdf-tools", "release-notes"], prompts=["review"], extensions=["/work/project/.pi/extensions/gate.py"],
        diagnostics=[Diagnostic("warning", 'Theme "ocean" from /work/a.json ignored: the name is already used'),
                     Diagnostic("error", "Failed to parse /work/.pi/agent/keybindings.json: unexpected character")],
    )  # fmt: skip
    golden(f"header_{width}", Header(data, context).render(width), width)
    context.set_expand_tools(True)  # Ctrl+O: the full form
    golden(f"header_expanded_{width}", Header(data, context).render(width), width)
    context.set_expand_tools(False)
    quiet = Header(HeaderData(quiet=True, diagnostics=data.diagnostics), context).render(width)
    assert len(quiet) == 3


def test_selectors_and_dialogs(context: RenderContext, golden: Golden) -> None:
    model = ModelSelector(MODELS, context, current="openai/gpt-5", default="google/gemini-2.5-pro",
                          on_save_default=lambda chosen: None)  # fmt: skip
    golden("model_selector_80", model.render(80), 80)
    entries = session_entries()
    roots = build_tree(entries, {e["id"]: e for e in entries}, resolve_labels(entries))  # type: ignore[arg-type]
    golden("tree_120", TreeSelector(roots, context, leaf_id="a4").render(120), 120)
    trust = TrustPrompt("/work/project", [".pi/settings.json", ".pi/extensions/", ".agents/skills/"], context)
    golden("trust_80", trust.render(80), 80)
    settings = SettingsView(setting_items(SettingsManager.in_memory({}).values), context)
    golden("settings_80", settings.render(80), 80)
    confirm = ConfirmDialog("Allow rm -rf build?", "⚠️ Dangerous command:\n\n  rm -rf build", context, timeout=30,
                            clock=lambda: 0.0)  # fmt: skip
    golden("confirm_80", confirm.render(80), 80)


def test_footer_variants(context: RenderContext) -> None:
    assert footer(context, provider_count=2).render(120)[1].endswith("(anthropic) claude-sonnet-4-5 • medium\x1b[39m")
    assert "anthropic" not in footer(context).render(120)[1]  # one provider in use: not named
    narrow = footer(context, provider_count=2).render(60)
    assert "anthropic" not in narrow[1]
    after_compaction = footer(context, context_tokens=None).render(120)[1]
    assert "?/200k (auto)" in after_compaction
    full = footer(context, context_tokens=190_000).render(120)[1]
    assert context.theme.fg_code("error") + "95.0%/200k (auto)" in full
    no_reasoning = footer(context, thinking_level=None, provider=None).render(120)[1]
    assert no_reasoning.rstrip("\x1b[39m").endswith("claude-sonnet-4-5")
    routed = footer(context, model="auto", provider="router", thinking_level="high", routed="gpt-5 • medium",
                    provider_count=2)  # fmt: skip
    assert routed.render(120)[1].endswith("(router) auto • high → gpt-5 • medium\x1b[39m")
