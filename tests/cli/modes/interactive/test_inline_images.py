"""Inline images through the interactive mode: ``read`` on a PNG in a kitty terminal.

Regular mode prints the kitty graphics escape into the scrollback; fullscreen mode places it over
the painted frame (test_fullscreen_media has the details); ``terminal.showImages: false`` shows
Pi's placeholder line instead.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path

import pytest

from pi_harness.cli.modes.interactive.fullscreen.view import FullscreenView
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

from .harness import run_pi


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x10\x80\xf0" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


@pytest.fixture
def kitty(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TMUX", "PI_IMAGE_PROTOCOL", "PI_HYPERLINKS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-kitty")
    monkeypatch.setenv("TERM_PROGRAM", "kitty")


async def _read_picture(server: FakeLLMServer, project: Path, *, expanded: bool = False) -> tuple[str, str]:
    """The raw output and the transcript's text after reading a picture (with tool output
    ``expanded``: a collapsed read shows no output, a placeholder neither, as in Pi)."""
    picture = _png(36, 18)
    (project / "pic.png").write_bytes(picture)
    server.push(ScriptedResponse(steps=[ToolCallStep("read", {"path": "pic.png"}, id="call_1")]))
    server.push(ScriptedResponse(steps=[TextStep("A small picture.")]))
    async with run_pi() as pi:
        await pi.started()
        if expanded:
            await pi.press("ctrl+o")
        await pi.submit("look at pic.png")
        await pi.wait_for(lambda: "A small picture." in pi.scrollback(), "the answer")
        await pi.idle()
        view = pi.mode.shell.view
        if isinstance(view, FullscreenView):  # drawn in the next frame, the picture placed after it
            frames = view.app.render_counter
            await view.flush()
            await pi.wait_for(lambda: view.app.render_counter > frames, "a frame drawn")
        else:  # queued for the scrollback and written between two frames: wait until written out
            # (the live pane may already show the answer while the picture is still queued)
            await view.flush()
        return pi.buffer.getvalue(), pi.scrollback()


async def test_read_png_is_drawn_inline(server: FakeLLMServer, project: Path, kitty: None) -> None:
    raw, _text = await _read_picture(server, project)
    data = base64.b64encode((project / "pic.png").read_bytes()).decode()
    assert "\x1b_Ga=T,f=100,q=2,C=1," in raw and f";{data}\x1b\\" in raw
    assert "[Image: [image/png] 36x18]" not in raw


async def test_show_images_off_gives_the_placeholder(
    server: FakeLLMServer, project: Path, agent_dir: Path, kitty: None
) -> None:
    settings = json.loads((agent_dir / "settings.json").read_text())
    settings["terminal"] = {"showImages": False}
    (agent_dir / "settings.json").write_text(json.dumps(settings))
    raw, text = await _read_picture(server, project)
    assert "\x1b_G" not in raw and "[Image:" not in text
    raw, text = await _read_picture(server, project, expanded=True)
    assert "\x1b_G" not in raw and "[Image: [image/png] 36x18]" in text
