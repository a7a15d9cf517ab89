"""The parts behind links and images in fullscreen mode, one by one: link styles, the output that
keeps links to their cells, the kitty transmission parser and the layer placing images."""

from __future__ import annotations

import io

from prompt_toolkit.data_structures import Size
from prompt_toolkit.output.vt100 import Vt100_Output

from pi_harness.cli.modes.interactive.fullscreen.kitty import (
    DELETE_ALL,
    DELETE_PLACEMENTS,
    MAX_OFFSCREEN_IMAGES,
    KittyLayer,
    Placement,
    kitty_image,
    placements,
)
from pi_harness.cli.modes.interactive.fullscreen.link_output import LINK_CLOSE, link_output
from pi_harness.cli.modes.interactive.fullscreen.links import link_escape, link_fragments, link_target
from pi_harness.tui.hyperlinks import hyperlink
from pi_harness.tui.terminal_image import CellSize, encode_kitty

# A 36x18 PNG, base64 (as test_inline_images draws it).
PNG = "iVBORw0KGgoAAAANSUhEUgAAACQAAAASCAIAAAC8Qet/AAAAIElEQVR4nGMQaPhAN8QwatmoZaOWjVo2atmoZaOWkYYAZs/MLoo1j3UAAAAASUVORK5CYII="


def _image_line(image_id: int = 7, data: str = PNG, rows: int = 15) -> str:
    return "\x1b[48;5;235m " + encode_kitty(data, CellSize(60, rows), image_id) + "   \x1b[0m"


# --- links --------------------------------------------------------------------------------------


def test_link_cells_carry_their_target_in_the_style() -> None:
    line = "see \x1b[1m" + hyperlink("the docs", "https://example.com/a b") + " now\x1b[0m"
    fragments = [(fragment[0], fragment[1]) for fragment in link_fragments(line)]
    assert "".join(text for _, text in fragments) == "see the docs now"
    linked = [(text, link_target(style)) for style, text in fragments if link_target(style)]
    assert linked == [("the docs", "https://example.com/a%20b")]  # one style word: whitespace encoded
    styles = {text: style for style, text in fragments}
    assert link_escape(styles["the docs"]) == "\x1b]8;;https://example.com/a%20b\x1b\\"
    assert "bold" in styles["the docs"] and link_escape(styles[" now"]) is None
    # A restyled cell (selection, search) keeps its link.
    assert link_target(styles["the docs"] + " reverse") == "https://example.com/a%20b"
    assert link_fragments("plain \x1b[31mred\x1b[0m") == [("", "plain "), ("fg:ansired", "red")]


def _frame(writes: list[tuple[str, str]]) -> str:
    buffer = io.StringIO()
    output = link_output(Vt100_Output(buffer, lambda: Size(rows=5, columns=20), term="xterm"))
    for kind, data in writes:
        (output.write_raw if kind == "raw" else output.write)(data)
    output.flush()
    return buffer.getvalue()


def test_the_output_opens_a_link_once_and_closes_it_before_other_cells() -> None:
    url = "\x1b]8;;https://example.com\x1b\\"
    # Cells 'a' 'b' of a link, a cursor move, cell 'c' of the same link, then a cell without one.
    stream = _frame(
        [("raw", url), ("text", "a"), ("raw", url), ("text", "b"), ("raw", url), ("text", "c"), ("text", "x")]
    )
    assert stream == f"{url}abc{LINK_CLOSE}x"
    # A frame ending inside a link closes it; raw output (an image) never lands inside a link.
    assert _frame([("raw", url), ("text", "a")]) == f"{url}a{LINK_CLOSE}"
    assert _frame([("raw", url), ("text", "a"), ("raw", "\x1b_Ga=d\x1b\\")]) == f"{url}a{LINK_CLOSE}\x1b_Ga=d\x1b\\"
    other = "\x1b]8;;https://other.example\x1b\\"
    assert _frame([("raw", url), ("text", "a"), ("raw", other), ("text", "b")]) == f"{url}a{other}b{LINK_CLOSE}"
    assert _frame([("text", "plain")]) == "plain"


# --- kitty ----------------------------------------------------------------------------------------


def test_a_transmission_is_read_back_from_its_line() -> None:
    image = kitty_image(_image_line())
    assert image is not None
    assert (image.image_id, image.columns, image.rows, image.width_px, image.height_px) == (7, 60, 15, 36, 18)
    assert image.column == 1  # after the box's padding cell
    assert image.command(0, 15, transmit=False) == "\x1b_Ga=p,q=2,C=1,c=60,r=15,i=7\x1b\\"
    # The lower 10 of 15 rows: a source rectangle from pixel row 6 (18 * 5 // 15), 12 pixels high.
    assert image.command(5, 10, transmit=False) == "\x1b_Ga=p,q=2,C=1,c=60,i=7,y=6,h=12,r=10\x1b\\"
    sent = image.command(0, 4, transmit=True)
    assert sent.startswith("\x1b_Ga=T,f=100,q=2,C=1,c=60,i=7,y=0,h=5,r=4;iVBOR") and sent.endswith("\x1b\\")
    assert kitty_image("no image here") is None and kitty_image("\x1b_Ga=T,f=100;broken") is None


def test_a_chunked_transmission_is_kept_whole() -> None:
    big = PNG + "A" * 9000  # more than two 4096-byte chunks
    line = _image_line(data=big)
    image = kitty_image(line)
    assert image is not None and image.payload.count("\x1b_G") == 2 and image.payload.endswith("\x1b\\")
    assert "\x1b_G" + ",".join(image.controls) + image.payload in line


def test_images_are_found_in_view_and_reaching_into_it_from_above() -> None:
    lines = ["text"] * 10 + [_image_line(rows=4)] + [" "] * 3 + ["text"] * 10
    assert [(p.row, p.hidden, p.visible) for p in placements(lines, 0, 12)] == [(10, 0, 2)]  # cut below
    assert [(p.row, p.hidden, p.visible) for p in placements(lines, 12, 5)] == [(0, 2, 2)]  # cut above
    assert placements(lines, 14, 5) == []


def test_the_layer_draws_only_when_something_changed_and_frees_old_images() -> None:
    layer = KittyLayer()
    image = kitty_image(_image_line())
    assert image is not None
    shown = [Placement(image, 3, 1, 0, 15)]
    first = layer.frame(shown, redraw=True)
    assert "\x1b[4;2H\x1b_Ga=T," in first and first.startswith("\x1b[?2026h\x1b7" + DELETE_PLACEMENTS)
    assert layer.frame(shown, redraw=False) == ""  # nothing moved: the terminal still shows it
    moved = layer.frame([Placement(image, 2, 1, 0, 15)], redraw=False)
    assert DELETE_PLACEMENTS in moved and "\x1b[3;2H\x1b_Ga=p,q=2,C=1,c=60,r=15,i=7\x1b\\" in moved
    assert layer.frame([Placement(image, 2, 1, 0, 15)], redraw=False, covered="text changed") != ""
    assert DELETE_PLACEMENTS in layer.frame([], redraw=False)  # scrolled out of view
    assert layer.frame([], redraw=False) == ""
    # Off-screen images are kept up to the limit, then the least recently shown are freed.
    written = []
    for image_id in range(100, 100 + MAX_OFFSCREEN_IMAGES + 1):
        other = kitty_image(_image_line(image_id))
        assert other is not None
        written.append(layer.frame([Placement(other, 0, 1, 0, 15)], redraw=False))
    assert "d=I" not in "".join(written[:-1]) and "\x1b_Ga=d,d=I,i=7,q=2\x1b\\" in written[-1]
    evicted = layer.frame([], redraw=False)  # now all 17 are off screen
    assert "\x1b_Ga=d,d=I,i=100,q=2\x1b\\" in evicted and "i=101," not in evicted
    assert layer.clear() == DELETE_ALL and layer.clear() == ""
