"""What the terminal can show besides text: inline images, OSC 8 hyperlinks, 24-bit colour.

Terminals do not answer this reliably, so it is read from the environment the terminal sets
(``TERM_PROGRAM``, ``KITTY_WINDOW_ID``, ``WEZTERM_PANE`` …), as Pi reads it, then the
``PI_HYPERLINKS`` / ``PI_IMAGE_PROTOCOL`` / ``PI_TRUE_COLOR`` variables and the ``terminal.*``
settings override what was detected. Unknown terminals get neither images nor hyperlinks: an
OSC 8 link swallowed by a terminal would hide its URL, so the ``text (url)`` form is safer.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Literal, TypeAlias

ImageProtocol: TypeAlias = Literal["kitty", "iterm2"]

__all__ = ["NO_CAPABILITIES", "ImageProtocol", "TerminalCapabilities", "apply_settings", "detect_capabilities"]


@dataclass(frozen=True)
class TerminalCapabilities:
    images: ImageProtocol | None = None
    true_color: bool = False
    hyperlinks: bool = False


NO_CAPABILITIES = TerminalCapabilities()


def tmux_forwards_hyperlinks() -> bool:
    """Whether the attached tmux client passes OSC 8 on (its ``client_termfeatures`` lists it)."""
    try:
        result = subprocess.run(
            ["tmux", "display-message", "-p", "#{client_termfeatures}"],
            capture_output=True,
            text=True,
            timeout=0.25,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0 and "hyperlinks" in (part.strip() for part in result.stdout.split(","))


# Terminals speaking the kitty graphics protocol (and OSC 8), by TERM_PROGRAM or their own variables.
_KITTY_PROGRAMS = frozenset({"rex", "kitty", "ghostty", "wezterm", "warpterminal"})
_KITTY_VARIABLES = ("KITTY_WINDOW_ID", "GHOSTTY_RESOURCES_DIR", "WEZTERM_PANE", "WARP_SESSION_ID",
                    "WARP_TERMINAL_SESSION_UUID")  # fmt: skip


def _from_environment(env: Mapping[str, str], tmux_hyperlinks: Callable[[], bool]) -> TerminalCapabilities:
    program = env.get("TERM_PROGRAM", "").lower()
    emulator = env.get("TERMINAL_EMULATOR", "").lower()
    term = env.get("TERM", "").lower()
    colorterm = env.get("COLORTERM", "").lower()
    true_color_hint = colorterm in ("truecolor", "24bit") or term.endswith("-direct")
    # Multiplexers: images do not survive them; tmux forwards links only when it says so.
    if env.get("TMUX") or term.startswith("tmux"):
        return TerminalCapabilities(None, true_color_hint, tmux_hyperlinks())
    if term.startswith("screen"):
        return TerminalCapabilities(None, true_color_hint, False)
    if program == "herdr":
        return TerminalCapabilities("kitty", true_color_hint, True)
    kitty_like = program in _KITTY_PROGRAMS or "ghostty" in term or any(env.get(name) for name in _KITTY_VARIABLES)
    if kitty_like:
        return TerminalCapabilities("kitty", True, True)
    if env.get("ITERM_SESSION_ID") or program == "iterm.app":
        return TerminalCapabilities("iterm2", True, True)
    if env.get("WT_SESSION") or program in ("alacritty", "vscode", "zed"):
        return TerminalCapabilities(None, True, True)
    if emulator == "jetbrains-jediterm" or sys.platform == "win32":
        return TerminalCapabilities(None, True, False)
    return TerminalCapabilities(None, true_color_hint, False)


def _flag(value: str | None) -> bool | None:
    return True if value == "1" else False if value == "0" else None


def detect_capabilities(
    env: Mapping[str, str], tmux_hyperlinks: Callable[[], bool] = tmux_forwards_hyperlinks
) -> TerminalCapabilities:
    """The capabilities of the terminal described by ``env``, with the ``PI_*`` overrides applied."""
    links = _flag(env.get("PI_HYPERLINKS"))
    detected = _from_environment(env, tmux_hyperlinks if links is None else lambda: links)
    protocol = env.get("PI_IMAGE_PROTOCOL", "").lower()
    if protocol in ("kitty", "iterm2"):
        detected = replace(detected, images="kitty" if protocol == "kitty" else "iterm2")
    elif protocol in ("none", "0"):
        detected = replace(detected, images=None)
    true_color = _flag(env.get("PI_TRUE_COLOR"))
    if true_color is not None:
        detected = replace(detected, true_color=true_color)
    if links is not None:
        detected = replace(detected, hyperlinks=links)
    return detected


def apply_settings(
    detected: TerminalCapabilities,
    *,
    images: str | bool = "auto",
    hyperlinks: str | bool = "auto",
    true_color: str | bool = "auto",
) -> TerminalCapabilities:
    """``terminal.images`` / ``terminal.hyperlinks`` / ``terminal.trueColor`` over what was detected."""
    out = detected
    if images is False:
        out = replace(out, images=None)
    elif images in ("kitty", "iterm2"):
        out = replace(out, images="kitty" if images == "kitty" else "iterm2")
    if isinstance(hyperlinks, bool):
        out = replace(out, hyperlinks=hyperlinks)
    if isinstance(true_color, bool):
        out = replace(out, true_color=true_color)
    return out
