"""The footer: where we are (cwd, git branch, session name) and what it costs.

Second row: cumulative tokens ``↑input ↓output``, cache ``R``ead/``W``rite, cost ``$0.123`` and
the context in use ``12.3k/200k (6.2%)`` — ``?`` right after a compaction, until the next response
reports usage — with the model and thinking level on the right. Totals cover the whole session
(compacted history included); the context figure is the latest response's prompt size.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pi_harness.tui.ansi import align_right, truncate, truncate_start, visible_width
from pi_harness.tui.components.base import shorten_path
from pi_harness.tui.theme import Theme


def _count(value: object) -> int:
    """A token count of a usage record (a missing or malformed one counts as none)."""
    return int(value) if isinstance(value, int | float) else 0


@dataclass
class UsageTotals:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0

    def add(self, usage: Mapping[str, object]) -> None:
        self.input += _count(usage.get("input"))
        self.output += _count(usage.get("output"))
        self.cache_read += _count(usage.get("cacheRead"))
        self.cache_write += _count(usage.get("cacheWrite"))
        cost = usage.get("cost")
        if isinstance(cost, Mapping):
            self.cost += float(cost.get("total") or 0.0)


@dataclass
class FooterData:
    cwd: str
    git_branch: str | None = None
    session_name: str | None = None
    model: str | None = None
    provider: str | None = None
    thinking_level: str | None = None  # None: the model does not reason
    # Under a virtual selection: the model (and level) the latest response came from.
    routed: str | None = None
    context_tokens: int | None = None  # None: unknown (right after a compaction)
    context_window: int | None = None
    totals: UsageTotals = field(default_factory=UsageTotals)
    auto_compact: bool = True
    home: str | None = None


def format_tokens(count: int) -> str:
    """``950``, ``1.2k``, ``12k``, ``1.5M``."""
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{round(count / 1000)}k"
    if count < 10_000_000:
        return f"{count / 1_000_000:.1f}M"
    return f"{round(count / 1_000_000)}M"


def usage_totals(messages: Iterable[Mapping[str, object]]) -> UsageTotals:
    """Session totals from assistant responses and tool results that report nested usage."""
    totals = UsageTotals()
    for message in messages:
        usage = message.get("usage")
        if message.get("role") in ("assistant", "toolResult") and isinstance(usage, Mapping):
            totals.add(usage)
    return totals


def context_tokens(messages: Iterable[Mapping[str, object]]) -> int | None:
    """Prompt size of the latest response that reported usage; None when a compaction came after it."""
    latest: int | None = None
    for message in messages:
        role = message.get("role")
        if role == "compactionSummary":
            latest = None
        elif role == "assistant" and message.get("stopReason") not in ("error", "aborted"):
            usage = message.get("usage")
            if isinstance(usage, Mapping):
                total = int(usage.get("totalTokens") or 0) or sum(
                    int(usage.get(k) or 0) for k in ("input", "output", "cacheRead", "cacheWrite")
                )
                if total:
                    latest = total
    return latest


def git_branch(cwd: str | os.PathLike[str]) -> str | None:
    """The checked-out branch (or short commit when detached), read from ``.git/HEAD``."""
    current = Path(cwd).resolve()
    for directory in (current, *current.parents):
        marker = directory / ".git"
        if marker.is_dir():
            git_dir = marker
        elif marker.is_file():
            try:
                pointer = marker.read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if not pointer.startswith("gitdir:"):
                return None
            git_dir = (directory / pointer[len("gitdir:") :].strip()).resolve()
        else:
            continue
        try:
            head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            return None
        if head.startswith("ref:"):
            return head.split("/", 2)[-1] if head.startswith("ref: refs/heads/") else head[4:].strip()
        return head[:7] or None
    return None


class Footer:
    def __init__(self, data: FooterData, theme: Theme) -> None:
        self.data = data
        self.theme = theme

    def render(self, width: int) -> list[str]:
        theme, data = self.theme, self.data
        path = shorten_path(data.cwd, data.home)
        suffix = f" ({data.git_branch})" if data.git_branch else ""
        if data.session_name:
            suffix += f" • {data.session_name}"
        # A long path gives way from its start, so the branch and the session name stay in view.
        room = width - visible_width(suffix)
        if visible_width(path + suffix) > width and room >= 8:
            path = truncate_start(path, room)
        first = theme.fg("dim", truncate(path + suffix, width))
        return [first, self._second_row(width)]

    def _second_row(self, width: int) -> str:
        """Usage on the left, the model on the right; the model gives way first (provider, then name)."""
        left = self._stats()
        left_width = visible_width(left)
        for right in (self._model(with_provider=True), self._model(with_provider=False)):
            if left_width + 2 + visible_width(right) <= width:
                return align_right(left, right, width, min_gap=2)
        room = width - left_width - 2
        if room >= 12:
            return left + "  " + truncate(self._model(with_provider=False), room)
        return truncate(left, width)

    def _stats(self) -> str:
        theme, totals = self.theme, self.data.totals
        parts = [f"↑{format_tokens(totals.input)}", f"↓{format_tokens(totals.output)}"]
        if totals.cache_read:
            parts.append(f"R{format_tokens(totals.cache_read)}")
        if totals.cache_write:
            parts.append(f"W{format_tokens(totals.cache_write)}")
        parts.append(f"${totals.cost:.3f}")
        stats = theme.fg("dim", " ".join(parts))
        return stats + " " + self._context()

    def _context(self) -> str:
        theme, data = self.theme, self.data
        window = format_tokens(data.context_window) if data.context_window else "?"
        auto = " (auto)" if data.auto_compact else ""
        if data.context_tokens is None:
            return theme.fg("dim", f"?/{window}{auto}")
        if not data.context_window:
            return theme.fg("dim", f"{format_tokens(data.context_tokens)}/?{auto}")
        percent = data.context_tokens / data.context_window * 100
        token = "error" if percent > 90 else "warning" if percent > 70 else "dim"
        return theme.fg(token, f"{format_tokens(data.context_tokens)}/{window} ({percent:.1f}%)") + theme.fg(
            "dim", auto
        )

    def _model(self, *, with_provider: bool) -> str:
        data = self.data
        if not data.model:
            return self.theme.fg("dim", "no model")
        text = data.model
        if data.provider and with_provider:
            text = f"({data.provider}) {text}"
        if data.thinking_level is not None:
            text += " • thinking off" if data.thinking_level == "off" else f" • {data.thinking_level}"
        if data.routed:
            text += f" → {data.routed}"
        return self.theme.fg("dim", text)
