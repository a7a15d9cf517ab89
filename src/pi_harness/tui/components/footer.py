"""The footer: where we are (cwd, git branch, session name) and what it costs.

Second row, as Pi draws it: cumulative tokens ``↑input ↓output`` and cache ``R``ead/``W``rite
(each only once non-zero), the cache hit rate of the latest prompt ``CH12.3%``, the cost
``$0.123`` (``(sub)`` under a subscription plan), and the share of the context window in use
``6.2%/200k (auto)`` — ``?`` right after a compaction, until the next response reports usage —
with the model and thinking level on the right. Totals cover the whole session (compacted
history included).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from pi_harness.tui.ansi import truncate, visible_width
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
    provider_count: int = 0  # providers among the selectable models; over 1 names the model's
    subscription: bool = False  # signed in with a subscription plan: the cost reads "(sub)"
    cache_hit_rate: float | None = None  # percent of the latest prompt read from the cache


def to_fixed(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals, a tie rounded up as JavaScript's ``toFixed`` does
    (``1.25`` → ``1.3``, where Python's formatting gives ``1.2``)."""
    exact = Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    return f"{exact:.{digits}f}"


def _js_round(value: float) -> int:
    return math.floor(value + 0.5)


def format_tokens(count: int) -> str:
    """``950``, ``1.2k``, ``12k``, ``1.5M`` (rounded as Pi rounds them)."""
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{to_fixed(count / 1000, 1)}k"
    if count < 1_000_000:
        return f"{_js_round(count / 1000)}k"
    if count < 10_000_000:
        return f"{to_fixed(count / 1_000_000, 1)}M"
    return f"{_js_round(count / 1_000_000)}M"


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


def cache_hit_rate(messages: Iterable[Mapping[str, object]]) -> float | None:
    """Percent of the latest response's prompt that was read from the cache (None: no prompt)."""
    rate: float | None = None
    for message in messages:
        usage = message.get("usage")
        if message.get("role") != "assistant" or not isinstance(usage, Mapping):
            continue
        read = _count(usage.get("cacheRead"))
        prompt = _count(usage.get("input")) + read + _count(usage.get("cacheWrite"))
        rate = read / prompt * 100 if prompt > 0 else None
    return rate


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
        where = shorten_path(data.cwd, data.home)
        if data.git_branch:
            where += f" ({data.git_branch})"
        if data.session_name:
            where += f" • {data.session_name}"
        first = truncate(theme.fg("dim", where), width, theme.fg("dim", "..."))
        return [first, self._second_row(width)]

    def _second_row(self, width: int) -> str:
        """Usage on the left, the model on the right (the provider only when several are in use
        and there is room); the right side is cut before the left."""
        left = self._stats()
        if visible_width(left) > width:
            left = truncate(left, width, "...")
        left_width = visible_width(left)
        right = self._model(with_provider=False)
        if self.data.provider_count > 1 and self.data.model:
            with_provider = self._model(with_provider=True)
            if left_width + 2 + visible_width(with_provider) <= width:
                right = with_provider
        if left_width + 2 + visible_width(right) > width:
            room = width - left_width - 2
            right = truncate(right, room, "") if room > 0 else ""
        gap = " " * max(0, width - left_width - visible_width(right))
        return self.theme.fg("dim", left) + self.theme.fg("dim", gap + right)

    def _stats(self) -> str:
        totals, data = self.data.totals, self.data
        parts: list[str] = []
        if totals.input:
            parts.append(f"↑{format_tokens(totals.input)}")
        if totals.output:
            parts.append(f"↓{format_tokens(totals.output)}")
        if totals.cache_read:
            parts.append(f"R{format_tokens(totals.cache_read)}")
        if totals.cache_write:
            parts.append(f"W{format_tokens(totals.cache_write)}")
        if (totals.cache_read or totals.cache_write) and data.cache_hit_rate is not None:
            parts.append(f"CH{to_fixed(data.cache_hit_rate, 1)}%")
        if totals.cost or data.subscription:
            parts.append(f"${to_fixed(totals.cost, 3)}" + (" (sub)" if data.subscription else ""))
        parts.append(self._context())
        return " ".join(parts)

    def _context(self) -> str:
        """``12.3%/200k (auto)``: the share of the window in use, ``?`` right after a compaction;
        over 70% in the warning colour, over 90% in the error colour."""
        data = self.data
        auto = " (auto)" if data.auto_compact else ""
        window = format_tokens(data.context_window or 0)
        if not data.context_window:
            return f"0.0%/{window}{auto}"  # no window known: nothing to measure against
        if data.context_tokens is None:
            return f"?/{window}{auto}"
        percent = data.context_tokens / data.context_window * 100
        text = f"{to_fixed(percent, 1)}%/{window}{auto}"
        if percent > 90:
            return self.theme.fg("error", text)
        if percent > 70:
            return self.theme.fg("warning", text)
        return text

    def _model(self, *, with_provider: bool) -> str:
        data = self.data
        if not data.model:
            return "unknown"  # the name the agent gives its placeholder model
        text = data.model
        if data.provider and with_provider:
            text = f"({data.provider}) {text}"
        if data.thinking_level is not None:
            text += " • thinking off" if data.thinking_level == "off" else f" • {data.thinking_level}"
        if data.routed:
            text += f" → {data.routed}"
        return text
