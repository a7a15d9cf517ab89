"""Terminal features beyond text (issue 20, defect 13): capabilities, OSC 8 links, inline images,
OSC 9;4 progress, bordered tables, the bash timer and the startup header's two forms."""

from __future__ import annotations

import base64
import struct
import zlib
from dataclasses import replace

import pytest

from pi_harness.tui.ansi import strip_ansi, visible_width
from pi_harness.tui.capabilities import TerminalCapabilities, apply_settings, detect_capabilities
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.header import Header, HeaderData
from pi_harness.tui.components.tool_call import ToolCallView, format_tool_duration
from pi_harness.tui.components.user_message import UserMessageView
from pi_harness.tui.markdown import MarkdownRenderer
from pi_harness.tui.theme import Theme
from pi_harness.tui.ui_settings import UiSettings, screen_capabilities
from tui.conftest import plain

KITTY = TerminalCapabilities("kitty", True, True)
ITERM = TerminalCapabilities("iterm2", True, True)


def png(width: int, height: int) -> str:
    """A real (tiny) PNG of ``width`` x ``height`` pixels, base64."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    raw = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
    return base64.b64encode(raw).decode()


# --- capabilities -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"KITTY_WINDOW_ID": "1", "TERM": "xterm-kitty"}, KITTY),
        ({"TERM_PROGRAM": "ghostty"}, KITTY),
        ({"TERM_PROGRAM": "WezTerm"}, KITTY),
        ({"TERM_PROGRAM": "iTerm.app"}, ITERM),
        ({"TERM_PROGRAM": "vscode"}, TerminalCapabilities(None, True, True)),
        ({"TERM": "xterm-256color"}, TerminalCapabilities(None, False, False)),
        ({"TERM": "xterm-256color", "COLORTERM": "truecolor"}, TerminalCapabilities(None, True, False)),
        ({"TERM": "screen-256color", "KITTY_WINDOW_ID": "1"}, TerminalCapabilities(None, False, False)),
    ],
)
def test_capabilities_are_read_from_the_environment(env: dict[str, str], expected: TerminalCapabilities) -> None:
    assert detect_capabilities(env, lambda: True) == expected


def test_tmux_has_no_images_and_links_only_when_it_forwards_them() -> None:
    env = {"TMUX": "/tmp/tmux-1/default,1,0", "KITTY_WINDOW_ID": "3"}
    assert detect_capabilities(env, lambda: False) == TerminalCapabilities(None, False, False)
    assert detect_capabilities(env, lambda: True).hyperlinks is True
    # PI_* variables win, and the tmux probe is not asked then.
    forced = detect_capabilities({**env, "PI_HYPERLINKS": "0", "PI_IMAGE_PROTOCOL": "kitty"}, lambda: 1 / 0 > 0)
    assert forced == TerminalCapabilities("kitty", False, False)


def test_settings_override_the_detection_and_fullscreen_has_no_iterm2_images() -> None:
    detected = detect_capabilities({"TERM_PROGRAM": "kitty"})
    assert apply_settings(detected, images=False, hyperlinks=False) == TerminalCapabilities(None, True, False)
    assert apply_settings(TerminalCapabilities(), images="iterm2", hyperlinks=True).images == "iterm2"
    env = {"TERM_PROGRAM": "kitty"}
    assert screen_capabilities(UiSettings(tui_mode="regular"), env) == KITTY
    assert screen_capabilities(UiSettings(tui_mode="regular", images=False), env).images is None
    # Fullscreen draws kitty images and links as regular mode does; iTerm2 images stay placeholders (Pi).
    assert screen_capabilities(UiSettings(tui_mode="fullscreen"), env) == KITTY
    iterm = {"TERM_PROGRAM": "iTerm.app"}
    assert screen_capabilities(UiSettings(tui_mode="regular"), iterm).images == "iterm2"
    assert screen_capabilities(UiSettings(tui_mode="fullscreen"), iterm) == TerminalCapabilities(None, True, True)


# --- OSC 8 hyperlinks ---------------------------------------------------------------------------


def test_markdown_links_are_osc8_when_supported_and_text_url_otherwise(theme: Theme) -> None:
    text = "See [the docs](https://example.com/docs) now."
    linked = MarkdownRenderer(theme, hyperlinks=True).render(text, 40)
    joined = "\n".join(linked)
    assert "\x1b]8;;https://example.com/docs\x1b\\" in joined and joined.count("\x1b]8;;\x1b\\") == 1
    assert strip_ansi(joined) == "See the docs now."
    assert all(visible_width(line) <= 40 for line in linked)
    fallback = MarkdownRenderer(theme, hyperlinks=False).render(text, 60)
    assert "\x1b]8;" not in "\n".join(fallback)
    assert plain(fallback) == "See the docs (https://example.com/docs) now."


# --- inline images ------------------------------------------------------------------------------


def test_kitty_image_is_one_escape_line_then_reserved_rows(context: RenderContext) -> None:
    data = png(90, 36)  # 10 x 2 cells at 9x18 px per cell (scaled to the width allowed, as Pi does)
    context.capabilities = KITTY
    context.image_width_cells = 10
    view = UserMessageView({"role": "user", "content": [{"type": "image", "data": data, "mimeType": "image/png"}]},
                           context)  # fmt: skip
    lines = view.render(80)
    escape = next(line for line in lines if "\x1b_G" in line)
    image_id = zlib.crc32(data.encode()) or 1
    assert f"\x1b_Ga=T,f=100,q=2,C=1,c=10,r=2,i={image_id};{data}\x1b\\" in escape
    assert strip_ansi(lines[lines.index(escape) + 1]).strip() == ""  # the second row the image covers
    assert all(visible_width(line) == 80 for line in lines)


def test_kitty_image_payload_is_sent_in_4096_byte_chunks(context: RenderContext) -> None:
    from pi_harness.tui.terminal_image import CellSize, encode_kitty

    data = "A" * 9000
    sequence = encode_kitty(data, CellSize(4, 2), image_id=7)
    assert sequence.startswith("\x1b_Ga=T,f=100,q=2,C=1,c=4,r=2,i=7,m=1;" + "A" * 4096 + "\x1b\\")
    assert "\x1b_Gm=1;" + "A" * 4096 + "\x1b\\" in sequence
    assert sequence.endswith("\x1b_Gm=0;" + "A" * 808 + "\x1b\\")


def test_iterm2_image_moves_up_and_draws_on_its_last_row(context: RenderContext) -> None:
    data = png(90, 54)  # 10 x 3 cells
    context.capabilities = ITERM
    context.image_width_cells = 10
    view = ToolCallView("t1", "read", {"path": "/work/project/a.png"}, context)
    view.start()
    view.finish({"content": [{"type": "text", "text": "Read image file [image/png]"},
                             {"type": "image", "data": data, "mimeType": "image/png"}]}, False)  # fmt: skip
    lines = view.render(80)
    index = next(i for i, line in enumerate(lines) if "\x1b]1337;File=" in line)
    size = len(base64.b64decode(data))
    assert f"\x1b[2A\x1b]1337;File=inline=1;size={size};width=10;height=auto:{data}\x07" in lines[index]
    assert [strip_ansi(line).strip() for line in lines[index - 2 : index]] == ["", ""]
    assert "[Image:" not in plain(lines)


def test_without_a_protocol_an_image_is_pi_s_placeholder(context: RenderContext) -> None:
    data = png(800, 600)
    result = {"content": [{"type": "text", "text": "Read image file [image/png]"},
                          {"type": "image", "data": data, "mimeType": "image/png"}]}  # fmt: skip
    view = ToolCallView("t1", "read", {"path": "a.png"}, context)
    view.finish(result, False)
    assert "[Image:" not in plain(view.render(80))  # collapsed, a read shows only its title (as Pi)
    context.set_expand_tools(True)
    view.touch()
    text = plain(view.render(80))
    assert "[Image: [image/png] 800x600]" in text and "\x1b_G" not in "".join(view.render(80))
    context.capabilities = KITTY
    context.show_images = False  # terminal.showImages: false
    view.touch()
    assert "[Image: [image/png] 800x600]" in plain(view.render(80))


def test_image_width_follows_image_width_cells(context: RenderContext) -> None:
    context.capabilities = KITTY
    context.image_width_cells = 20
    block = {"type": "image", "data": png(900, 90), "mimeType": "image/png"}
    lines = UserMessageView({"role": "user", "content": [block]}, context).render(120)
    assert ",c=20,r=1," in "".join(lines)


# --- tables -------------------------------------------------------------------------------------

TABLE = "| Name | Description |\n|---|---|\n| alpha | the first letter of the greek alphabet |\n| b | short |"


def test_table_has_box_borders_and_natural_widths_when_it_fits(theme: Theme) -> None:
    assert plain(MarkdownRenderer(theme).render(TABLE, 60)).split("\n") == [
        "┌───────┬────────────────────────────────────────┐",
        "│ Name  │ Description                            │",
        "├───────┼────────────────────────────────────────┤",
        "│ alpha │ the first letter of the greek alphabet │",
        "├───────┼────────────────────────────────────────┤",
        "│ b     │ short                                  │",
        "└───────┴────────────────────────────────────────┘",
    ]


def test_narrow_table_wraps_its_cells_to_fit(theme: Theme) -> None:
    lines = MarkdownRenderer(theme).render(TABLE, 30)
    assert all(visible_width(line) <= 30 for line in lines)
    assert plain(lines).split("\n") == [
        "┌───────┬────────────────────┐",
        "│ Name  │ Description        │",
        "├───────┼────────────────────┤",
        "│ alpha │ the first letter   │",
        "│       │ of the greek       │",
        "│       │ alphabet           │",
        "├───────┼────────────────────┤",
        "│ b     │ short              │",
        "└───────┴────────────────────┘",
    ]
    header = next(line for line in lines if "Name" in line)
    assert "\x1b[1m" in header  # the header row is bold


def test_table_too_narrow_for_its_columns_falls_back_to_its_source(theme: Theme) -> None:
    lines = MarkdownRenderer(theme).render("| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |", 10)
    assert "┌" not in plain(lines) and plain(lines).startswith("| a | b |")


# --- the bash timer -----------------------------------------------------------------------------


def test_running_bash_counts_elapsed_seconds_then_says_how_long_it_took(context: RenderContext) -> None:
    now = [50.0]
    context.clock = lambda: now[0]
    view = ToolCallView("b1", "bash", {"command": "sleep 5"}, context)
    assert "Elapsed" not in plain(view.render(60))  # not started: no clock yet
    view.start()
    assert plain(view.render(60)).split("\n")[-2].strip() == "Elapsed 0.0s"
    now[0] = 51.2
    assert "Elapsed 1.2s" in plain(view.render(60))  # a new second: drawn again without any event
    now[0] = 51.9
    assert "Elapsed 1.2s" in plain(view.render(60))  # within the same second the rows are kept
    now[0] = 125.0
    assert "Elapsed 1m 15s" in plain(view.render(60))
    view.finish({"content": [{"type": "text", "text": "done"}]}, False)
    now[0] = 500.0
    text = plain(view.render(60))
    assert "Took 1m 15s" in text and "Elapsed" not in text


def test_tool_duration_format() -> None:
    assert [format_tool_duration(ms) for ms in (0, 4200, 59_949, 90_000, 7_384_000)] == [
        "0.0s", "4.2s", "59.9s", "1m 30s", "2h 3m 4s"]  # fmt: skip


# --- the startup header -------------------------------------------------------------------------


def test_header_is_short_until_ctrl_o_expands_it(context: RenderContext) -> None:
    data = HeaderData(version="1.0", context_files=["/work/project/AGENTS.md"], skills=["zeta", "alpha"],
                      skill_paths=["/work/project/.pi/skills/zeta/SKILL.md", "/work/project/.pi/skills/alpha/SKILL.md"])  # fmt: skip
    header = Header(data, context)
    short = plain(header.render(100)).split("\n")
    assert short[:3] == [
        "pi v1.0",
        "escape interrupt · ctrl+c/ctrl+d clear/exit · / commands · ! bash · ctrl+o more",
        "Press ctrl+o to show full startup help and loaded resources.",
    ]
    assert "  AGENTS.md" in short and "  alpha, zeta" in short
    context.set_expand_tools(True)
    full = plain(header.render(100)).split("\n")
    assert "escape to interrupt" in full and "ctrl+o to expand tools" in full
    assert "  ~/project/AGENTS.md" in full and "  ~/project/.pi/skills/zeta/SKILL.md" in full
    assert not any("Press ctrl+o" in line for line in full)
    assert replace(data, quiet=True) and Header(replace(data, quiet=True), context).render(100) == []


def test_tool_paths_link_to_their_files_only_with_hyperlinks(context: RenderContext) -> None:
    view = ToolCallView("r1", "read", {"path": "src/app.py"}, context)
    assert "\x1b]8;" not in "".join(view.render(80))
    context.capabilities = KITTY
    context.changed()
    lines = view.render(80)
    assert "\x1b]8;;file:///work/project/src/app.py\x1b\\" in "".join(lines)
    assert "read src/app.py" in plain(lines) and all(visible_width(line) == 80 for line in lines)


def test_quiet_startup_header_keeps_the_keys_without_the_resources(context: RenderContext) -> None:
    data = HeaderData(version="1.0", context_files=["/work/project/AGENTS.md"], skills=["alpha"], details=False)
    lines = plain(Header(data, context).render(100)).split("\n")
    assert lines[2] == "Press ctrl+o to show full startup help."
    assert "[Context]" not in lines and "[Skills]" not in lines


def test_quiet_startup_header_setting_is_read() -> None:
    from pi_harness.coding.config.settings_model import parse_settings

    assert UiSettings.from_values(parse_settings({"quietStartup": "header"})[0]).startup_details is False
    assert UiSettings.from_values(parse_settings({})[0]).startup_details is True


def test_colour_mode_follows_the_terminal_and_terminal_true_color() -> None:
    from pi_harness.tui.ui_settings import color_mode

    assert color_mode(UiSettings(), {"TERM_PROGRAM": "ghostty"}) == "truecolor"
    assert color_mode(UiSettings(), {"TERM": "xterm-256color"}) == "256"
    assert color_mode(UiSettings(true_color=True), {"TERM": "xterm-256color"}) == "truecolor"
    assert color_mode(UiSettings(true_color=False), {"COLORTERM": "truecolor"}) == "256"
