"""The tmux keyboard check at start, against a stand-in ``tmux`` program answering ``show -gv``."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from pi_harness.cli.modes.interactive.tmux_keys import EXTENDED_KEYS_OFF, XTERM_FORMAT, tmux_keyboard_warning


def fake_tmux(directory: Path, extended_keys: str | None, key_format: str | None) -> dict[str, str]:
    """A ``tmux`` that prints the given values (None: the option is unknown, exit status 1)."""
    lines = ["#!/bin/sh", 'case "$3" in']
    for option, value in (("extended-keys", extended_keys), ("extended-keys-format", key_format)):
        lines.append(f"  {option}) " + (f"echo {value};;" if value is not None else "echo invalid >&2; exit 1;;"))
    lines += ["esac", ""]
    script = directory / "tmux"
    script.write_text("\n".join(lines), encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return {"TMUX": "/tmp/tmux-0/default,1,0", "PATH": f"{directory}{os.pathsep}{os.environ['PATH']}"}


@pytest.mark.parametrize(
    ("extended_keys", "key_format", "warning"),
    [
        ("off", None, EXTENDED_KEYS_OFF),  # tmux 3.3: no extended-keys-format option
        ("on", None, None),
        ("always", "csi-u", None),
        ("on", "xterm", XTERM_FORMAT),
        (None, None, None),  # tmux does not answer: say nothing
    ],
)
def test_the_warning_follows_tmux_s_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extended_keys: str | None, key_format: str | None,
    warning: str | None,
) -> None:  # fmt: skip
    env = fake_tmux(tmp_path, extended_keys, key_format)
    monkeypatch.setenv("PATH", env["PATH"])
    assert asyncio.run(tmux_keyboard_warning(env)) == warning


def test_outside_tmux_nothing_is_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = fake_tmux(tmp_path, "off", None)
    monkeypatch.setenv("PATH", env["PATH"])
    del env["TMUX"]
    assert asyncio.run(tmux_keyboard_warning(env)) is None
