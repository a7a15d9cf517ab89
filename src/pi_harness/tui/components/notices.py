"""One-line (wrapped) notices in the transcript: errors, compaction, automatic retries, aborts.

The builders turn AgentSession events (retries, compaction and its failures)
into notices; ``None`` means the event needs no notice.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Literal

from pi_harness.tui.ansi import truncate, wrap
from pi_harness.tui.components.base import RenderContext

NoticeKind = Literal["info", "success", "warning", "error", "muted", "dim"]  # dim: Pi's status lines
_TOKENS: Mapping[str, str] = {"info": "accent", "success": "success", "warning": "warning", "error": "error",
                              "muted": "muted", "dim": "dim"}  # fmt: skip
SPINNER_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class Notice:
    def __init__(self, kind: NoticeKind, text: str, context: RenderContext) -> None:
        self.kind = kind
        self.text = text
        self.context = context

    def render(self, width: int) -> list[str]:
        token = _TOKENS[self.kind]
        return [" " + row for row in wrap(self.context.theme.fg(token, self.text), max(1, width - 1))]


def format_count(value: int) -> str:
    return f"{value:,}"


def compaction_started(event: Mapping[str, object], context: RenderContext) -> Notice:
    reason = event.get("reason")
    key = context.key("app.interrupt")
    if reason == "overflow":
        text = f"Context window exceeded, compacting the conversation… ({key} to cancel)"
    elif reason == "threshold":
        text = f"Context is nearly full, compacting the conversation… ({key} to cancel)"
    else:
        text = f"Compacting the conversation… ({key} to cancel)"
    return Notice("muted", text, context)


def compaction_finished(event: Mapping[str, object], context: RenderContext) -> Notice | None:
    error = event.get("errorMessage")
    if error:
        return Notice("error", str(error), context)
    if event.get("aborted"):
        return Notice("warning", "Compaction cancelled", context)
    result = event.get("result")
    if not isinstance(result, Mapping):
        return None
    before = result.get("tokensBefore")
    after = result.get("estimatedTokensAfter")
    text = "Compacted the conversation"
    if isinstance(before, int):
        text += f" from {format_count(before)} tokens"
        if isinstance(after, int):
            text += f" to about {format_count(after)}"
    if event.get("willRetry"):
        text += "; retrying the request"
    return Notice("success", text, context)


def retry_started(event: Mapping[str, object], context: RenderContext) -> Notice:
    attempt, maximum = event.get("attempt"), event.get("maxAttempts")
    delay = event.get("delayMs")
    seconds = f" in {delay / 1000:g}s" if isinstance(delay, int | float) else ""
    message = event.get("errorMessage")
    text = f"Retrying ({attempt}/{maximum}){seconds}"
    if message:
        text += f": {message}"
    return Notice("warning", text, context)


def retry_finished(event: Mapping[str, object], context: RenderContext) -> Notice | None:
    if event.get("success"):
        return None
    final = event.get("finalError")
    attempt = event.get("attempt")
    text = f"Retry failed after {attempt} attempt{'s' if attempt != 1 else ''}"
    if final:
        text += f": {final}"
    return Notice("error", text, context)


def summarization_retry(event: Mapping[str, object], context: RenderContext) -> Notice:
    attempt, maximum = event.get("attempt"), event.get("maxAttempts")
    delay = event.get("delayMs")
    seconds = f" in {delay / 1000:g}s" if isinstance(delay, int | float) else ""
    text = f"Summary request failed, retrying ({attempt}/{maximum}){seconds}"
    if event.get("errorMessage"):
        text += f": {event['errorMessage']}"
    return Notice("warning", text, context)


def aborted_notice(context: RenderContext) -> Notice:
    return Notice("error", "Operation aborted", context)


def error_notice(message: str, context: RenderContext) -> Notice:
    return Notice("error", f"Error: {message}", context)


class WorkingIndicator:
    """The spinner line shown while the agent works.

    Extensions change it: ``message`` replaces the text, ``frames`` the spinner (``[]`` hides
    the spinner, one frame is static; custom frames are drawn as given), ``interval`` is the
    seconds between frames and ``visible`` hides the whole row. While an automatic retry waits,
    the line counts the seconds down (``start_retry``).
    """

    def __init__(
        self, context: RenderContext, message: str | None = None, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.context = context
        self.message = message
        self.frame = 0
        self.frames: list[str] | None = None  # None: the built-in spinner
        self.interval: float | None = None
        self.visible = True
        self._elapsed = 0.0
        self.clock = clock
        self.retry: tuple[int, int, float] | None = None  # attempt, maximum, when the retry starts

    def start_retry(self, attempt: int, maximum: int, delay_ms: float) -> None:
        self.retry = (attempt, maximum, self.clock() + delay_ms / 1000)

    def clear_retry(self) -> None:
        self.retry = None

    def _retry_text(self) -> str | None:
        if self.retry is None:
            return None
        attempt, maximum, when = self.retry
        seconds = max(0, math.ceil(when - self.clock()))
        return f"Retrying ({attempt}/{maximum}) in {seconds}s…"

    def set_indicator(self, frames: list[str] | None, interval: float | None = None) -> None:
        self.frames = None if frames is None else list(frames)
        self.interval = interval
        self.frame = 0

    def tick(self, seconds: float = 0.1) -> None:
        frames = self.frames if self.frames is not None else SPINNER_FRAMES
        if len(frames) < 2:
            return
        self._elapsed += seconds
        if self.interval is not None and self._elapsed + 1e-9 < self.interval:
            return
        self._elapsed = 0.0
        self.frame = (self.frame + 1) % len(frames)

    def render(self, width: int) -> list[str]:
        if not self.visible:
            return []
        theme = self.context.theme
        retry = self._retry_text()
        text = retry or self.message or "Working…"
        hint = theme.fg("muted", f" ({self.context.key('app.interrupt')} to {'cancel' if retry else 'interrupt'})")
        if self.frames is None:
            spinner = theme.fg("accent", SPINNER_FRAMES[self.frame % len(SPINNER_FRAMES)]) + " "
        else:
            spinner = self.frames[self.frame % len(self.frames)] + " " if self.frames else ""
        line = " " + spinner + theme.fg("muted", text) + hint
        return [truncate(line, width)] if width > 0 else []
