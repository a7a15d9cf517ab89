"""The extension component pieces: key names, overlay placement, guarded rendering, the working
indicator's frames and stacked autocomplete providers."""

from __future__ import annotations

from prompt_toolkit.key_binding.key_processor import KeyPress
from prompt_toolkit.keys import Keys

from pi_harness.tui.ansi import strip_ansi
from pi_harness.tui.components.autocomplete import Autocomplete
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.custom import ComponentOverlay, GuardedComponent, OverlayHandle, OverlayOptions
from pi_harness.tui.components.editor import Editor
from pi_harness.tui.components.notices import WorkingIndicator
from pi_harness.tui.pt_keys import key_id


class _Event:
    def __init__(self, *keys: Keys | str) -> None:
        self.key_sequence = [KeyPress(key) for key in keys]


def test_key_ids_use_the_key_table_notation() -> None:
    cases = {
        (Keys.Up,): "up", (Keys.ControlC,): "ctrl+c", (Keys.Escape, "x"): "alt+x", ("a",): "a",
        (Keys.ControlM,): "enter", (Keys.Escape,): "escape", (" ",): "space", (Keys.BackTab,): "shift+tab",
        (Keys.Escape, Keys.F24, Keys.ControlM): "shift+enter", (Keys.ControlShiftUp,): "ctrl+shift+up",
    }  # fmt: skip
    assert {keys: key_id(_Event(*keys)) for keys in cases} == cases  # type: ignore[arg-type]


class _Rows:
    def __init__(self, *rows: str) -> None:
        self.rows = list(rows)
        self.widths: list[int] = []

    def render(self, width: int) -> list[str]:
        self.widths.append(width)
        return self.rows


def test_overlay_options_size_and_place_the_component() -> None:
    component = _Rows("abc", "def", "ghi")
    overlay = ComponentOverlay(component, {"width": "50%", "anchor": "right", "max_height": 2}, overlay=True)
    assert overlay.render(40) == [" " * 20 + "abc", " " * 20 + "def"]
    assert component.widths == [20]
    left = ComponentOverlay(_Rows("x"), OverlayOptions(width=10, anchor="left", margin=3), overlay=True)
    assert left.render(40) == ["   x"]
    centred = ComponentOverlay(_Rows("x"), lambda: {"width": 10}, overlay=True)
    assert centred.render(30) == [" " * 10 + "x"]
    inline = ComponentOverlay(_Rows("x"), {"width": 10})  # not an overlay: the full width
    assert inline.render(30) == ["x"]


def test_a_hidden_overlay_draws_nothing_until_shown_and_keys_follow_the_protocol() -> None:
    class Keyed(_Rows):
        def __init__(self) -> None:
            super().__init__("row")
            self.keys: list[str] = []

        def handle_input(self, key: str) -> bool | None:
            self.keys.append(key)
            return False if key == "ctrl+c" else None

    component = Keyed()
    overlay = ComponentOverlay(component, overlay=True)
    closed: list[bool] = []
    handle = OverlayHandle(overlay, lambda: closed.append(True))
    handle.hide()
    assert overlay.render(20) == [] and handle.is_hidden()
    handle.show()
    assert overlay.render(20) == ["row"]
    assert overlay.handle_input("a") is True and overlay.handle_input("ctrl+c") is False
    handle.close()
    assert closed == [True] and component.keys == ["a", "ctrl+c"]


def test_a_failing_component_draws_one_error_row() -> None:
    class Broken:
        cursor = (1, 2)

        def render(self, width: int) -> list[str]:
            raise ValueError("boom")

    guarded = GuardedComponent(Broken(), "extension footer")
    assert guarded.render(60) == ["[extension footer failed: boom]"]
    assert guarded.cursor == (1, 2)


def test_working_indicator_frames_interval_and_visibility(context: RenderContext) -> None:
    working = WorkingIndicator(context, "Busy")
    working.set_indicator(["a", "b"], interval=0.3)
    assert strip_ansi(working.render(40)[0]).startswith(" a Busy")
    working.tick(0.1)
    working.tick(0.1)
    assert strip_ansi(working.render(40)[0]).startswith(" a ")
    working.tick(0.1)
    assert strip_ansi(working.render(40)[0]).startswith(" b ")
    working.set_indicator([])
    assert strip_ansi(working.render(40)[0]).startswith(" Busy")
    working.visible = False
    assert working.render(40) == []


def test_autocomplete_providers_stack_on_the_builtin_one(context: RenderContext) -> None:
    suggestions = Autocomplete(context.theme)
    seen: list[object] = []

    def emoji(below: object) -> object:
        def provide(before: str) -> object:
            if before.endswith(":sm"):
                return {"prefix": ":sm", "items": [{"value": "😄", "label": ":smile:"}]}
            seen.append(below(before))  # type: ignore[operator]
            return below(before)  # type: ignore[operator]

        return provide

    suggestions.add_provider(emoji)  # type: ignore[arg-type]
    editor = Editor()
    editor.set_text("hello :sm")
    suggestions.update(editor)
    assert [item.label for item in suggestions.items] == [":smile:"]
    suggestions.accept(editor)
    assert editor.text == "hello 😄"
    editor.set_text("plain")
    suggestions.update(editor)
    assert suggestions.items == [] and seen == [None]
