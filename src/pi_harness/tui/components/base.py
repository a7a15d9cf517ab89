"""What every component shares: the ``Component`` protocol, the render context and box drawing.

A component is data plus ``render(width) -> list[str]``: lines with ANSI styles, none wider
than ``width`` cells. Components never hold a session; whoever owns the data feeds them.
"""

from __future__ import annotations

import os
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from pi_harness.tui.ansi import truncate, with_background, wrap
from pi_harness.tui.capabilities import NO_CAPABILITIES, TerminalCapabilities
from pi_harness.tui.keybindings import KeyMap
from pi_harness.tui.markdown import MarkdownRenderer
from pi_harness.tui.theme import Theme


class Component(Protocol):
    def render(self, width: int) -> list[str]: ...


# (message, width, context) -> lines; registered by extensions per custom message type.
CustomMessageRenderer = Callable[[Mapping[str, object], int, "RenderContext"], list[str]]


@dataclass(frozen=True)
class ToolRenderer:
    """An extension tool's own look (``renderCall``/``renderResult``); a missing half uses the built-in one.

    ``render_call(args, context)`` gives the title lines, ``render_result(result, is_error, context)``
    the body lines of a finished call (``result`` has ``content`` and ``details``).
    """

    render_call: Callable[[Mapping[str, object], RenderContext], list[str]] | None = None
    render_result: Callable[[Mapping[str, object], bool, RenderContext], list[str]] | None = None


@dataclass
class RenderContext:
    """Display state shared by all transcript components.

    ``generation`` changes whenever something that affects rendering changes (theme, expanded
    tools, hidden thinking, output padding), so components can cache their lines per
    ``(width, generation)``.
    """

    theme: Theme
    keymap: KeyMap = field(default_factory=KeyMap)
    expand_tools: bool = False
    hide_thinking: bool = False
    hidden_thinking_label: str | None = None  # ``ctx.ui.set_hidden_thinking_label``; None: "Thinking…"
    code_block_indent: str = "  "
    # outputPad: blank columns left and right of messages, tool calls, ``!`` output and summaries.
    output_pad: int = 1
    mermaid: str = "streaming"  # markdown.mermaid: "off" | "final" | "streaming"
    show_images: bool = True
    # What the terminal shows besides text (images, OSC 8 links); none unless the screen says so.
    capabilities: TerminalCapabilities = NO_CAPABILITIES
    image_width_cells: int = 60  # terminal.imageWidthCells
    clock: Callable[[], float] = time.monotonic  # live timers (a running bash's "Elapsed")
    cwd: str | None = None
    home: str | None = None
    custom_renderers: dict[str, CustomMessageRenderer] = field(default_factory=dict)
    entry_renderers: dict[str, CustomMessageRenderer] = field(default_factory=dict)  # custom entries, by type
    tool_renderers: dict[str, ToolRenderer] = field(default_factory=dict)
    generation: int = 0
    render_errors: list[str] = field(default_factory=list)  # failures of extension renderers, newest last
    # Runs a blocking function with the terminal handed over (the screen is put away meanwhile);
    # set by the interactive screen for extension components (an editor, an interactive command).
    run_in_terminal: Callable[[Callable[[], object]], Awaitable[object]] | None = None
    _markdown: MarkdownRenderer | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.home is None:
            self.home = os.path.expanduser("~")
        self.output_pad = 0 if self.output_pad == 0 else 1

    @property
    def markdown(self) -> MarkdownRenderer:
        if self._markdown is None:
            self._markdown = MarkdownRenderer(
                self.theme, self.code_block_indent, hyperlinks=self.capabilities.hyperlinks
            )
        return self._markdown

    def changed(self) -> None:
        self.generation += 1

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self._markdown = None
        self.changed()

    def set_expand_tools(self, expanded: bool) -> None:
        if expanded != self.expand_tools:
            self.expand_tools = expanded
            self.changed()

    def set_hide_thinking(self, hidden: bool) -> None:
        if hidden != self.hide_thinking:
            self.hide_thinking = hidden
            self.changed()

    def set_output_pad(self, pad: int) -> None:
        """0 or 1 (anything but 0 is 1, as Pi reads ``outputPad``)."""
        pad = 0 if pad == 0 else 1
        if pad != self.output_pad:
            self.output_pad = pad
            self.changed()

    def padded(self, width: int) -> int:
        """The width left for a transcript block's content inside its output padding."""
        return max(1, width - 2 * self.output_pad)

    def key(self, action: str) -> str:
        """The key hint for an action (``ctrl+o``), or the action id when it is unbound."""
        return self.keymap.label(action) or action

    def key_display(self, action: str) -> str:
        """The capitalised key names of an action (``Escape/Ctrl+C``), "" when it is unbound."""
        return self.keymap.display_label(action)

    def short_path(self, path: str) -> str:
        return shorten_path(path, self.home)


def guarded(render: Callable[[], list[str]], context: RenderContext, what: str) -> list[str] | None:
    """Lines from extension rendering code, or None when it raised (recorded in ``context.render_errors``)."""
    try:
        return [str(line) for line in render()]
    except Exception as exc:  # extension code must not break the screen
        context.render_errors.append(f"{what}: {exc}")
        return None


def shorten_path(path: str, home: str | None = None) -> str:
    """``~/…`` for paths inside the home directory."""
    home = home if home is not None else os.path.expanduser("~")
    if home and home != "/" and (path == home or path.startswith(home.rstrip("/") + "/")):
        return "~" + path[len(home.rstrip("/")) :]
    return path


def box(lines: list[str], width: int, bg: str, *, pad_x: int = 1, pad_y: int = 1) -> list[str]:
    """``lines`` (already fitting ``width - 2*pad_x``) on a full-width background block."""
    margin = " " * pad_x
    blank = with_background("", width, bg)
    body = [with_background(margin + line, width, bg) for line in lines]
    return [blank] * pad_y + body + [blank] * pad_y


def wrap_all(lines: list[str], width: int) -> list[str]:
    out: list[str] = []
    for line in lines:
        out.extend(wrap(line, width))
    return out


def clip(lines: list[str], width: int) -> list[str]:
    """Each line cut to ``width`` cells (for rows that must not wrap)."""
    return [truncate(line, width) for line in lines]


class CachedRender:
    """Mixin: ``render`` memoised per ``(width, generation, version)``; call ``touch`` after changes."""

    _version: int = 0
    _cache_key: tuple[int, int, int] | None = None
    _cache_lines: list[str] | None = None

    def touch(self) -> None:
        self._version += 1

    def _cached(self, width: int, generation: int, produce: Callable[[int], list[str]]) -> list[str]:
        key = (width, generation, self._version)
        if key != self._cache_key or self._cache_lines is None:
            self._cache_lines = produce(width)
            self._cache_key = key
        return self._cache_lines


class MessageView(CachedRender, ABC):
    """A message of the conversation as a block: drawn by ``_render``, again only when the width,
    the context (theme, expanded tools …) or the message itself (``touch``) changed."""

    def __init__(self, message: Mapping[str, object], context: RenderContext) -> None:
        self.message = message
        self.context = context

    def render(self, width: int) -> list[str]:
        return self._cached(width, self.context.generation, self._render)

    @abstractmethod
    def _render(self, width: int) -> list[str]:
        """The block's lines at ``width``; each kind of message draws itself."""
