"""``/session``: the session's file, messages, tokens, cache warming and cost, as Pi 1.4.0 words them.

Sections (bold titles, dim labels): ``Session Info`` (name, file — ``In-memory`` when there is
none — and id), ``Messages``, ``Tokens`` (the prompt volume as ``Input``, split into cached and
uncached parts once the cache was used), ``Cache Warming`` (mode and status) and, once
something was spent or re-billed, ``Cost`` (the total, a line per model when more than the
selected one was used, and the cache misses paid again). Numbers are written with thousands
separators.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pi_harness.coding.cache_misses import CacheWaste
from pi_harness.coding.cache_warming import MINIMUM_EXPECTED_SAVINGS, WarmingDecision, WarmingStatus
from pi_harness.tui.ansi import visible_width, wrap
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.footer import format_tokens, to_fixed
from pi_harness.tui.theme import Theme, bold


@dataclass(frozen=True)
class CostShare:
    key: str  # "provider/model", or "Tools/summaries"
    cost: float
    tokens: int


def _num(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def cost_breakdown(entries: Sequence[Mapping[str, object]]) -> list[CostShare]:
    """What each model cost (responses and warming), tool and summary usage apart; dearest first."""
    totals: dict[str, tuple[float, int]] = {}
    for entry in entries:
        kind, message = entry.get("type"), entry.get("message")
        role = message.get("role") if isinstance(message, Mapping) else None
        if kind == "message" and isinstance(message, Mapping) and role == "assistant":
            key = f"{message.get('provider')}/{message.get('responseModel') or message.get('model')}"
            usage = message.get("usage")
        elif kind == "usage":
            key, usage = f"{entry.get('provider')}/{entry.get('model')}", entry.get("usage")
        elif kind == "message" and isinstance(message, Mapping) and role == "toolResult":
            key, usage = "Tools/summaries", message.get("usage")
        elif kind in ("branch_summary", "compaction"):
            key, usage = "Tools/summaries", entry.get("usage")
        else:
            continue
        if not isinstance(usage, Mapping):
            continue
        cost = usage.get("cost")
        spent = _num(cost.get("total")) if isinstance(cost, Mapping) else 0.0
        tokens = sum(int(_num(usage.get(name))) for name in ("input", "output", "cacheRead", "cacheWrite"))
        before = totals.get(key, (0.0, 0))
        totals[key] = (before[0] + spent, before[1] + tokens)
    shares = [CostShare(key, cost, tokens) for key, (cost, tokens) in totals.items() if cost > 0 or tokens > 0]
    return sorted(shares, key=lambda share: -share.cost)


def _dollars(value: float) -> str:
    return f"-${to_fixed(abs(value), 3)}" if value < 0 else f"${to_fixed(value, 3)}"


def _economics(decision: WarmingDecision) -> str:
    if not decision["economicsAvailable"]:
        return "cache economics unavailable"
    chance = round(decision["continuationProbability"] * 100)
    if decision["phase"] == "streaming":
        likely = f"{chance}% assumed continuation while agent runs"
    else:
        likely = f"{chance}% estimated continuation"
    compared = ">=" if decision["action"] == "warm" else "<"
    savings = _dollars(decision["expectedSavings"])
    return f"{likely}, expected savings {savings} {compared} ${MINIMUM_EXPECTED_SAVINGS:.2f}"


def _when(next_at: float | None, now_ms: float) -> str:
    if next_at is None or next_at <= now_ms:
        return "Warming soon"
    left = -(-int(next_at - now_ms) // 1000)
    hours, minutes, seconds = left // 3600, left % 3600 // 60, left % 60
    parts = [f"{hours}h"] if hours else []
    parts += [f"{minutes}m"] if minutes else []
    parts += [f"{seconds}s"] if seconds or not parts else []
    return f"Warming in {' '.join(parts)}"


def warming_status_text(status: WarmingStatus, now_ms: float) -> str:
    decision = status.get("decision")
    override = bool(status.get("extensionOverride"))
    if decision is None or (status["state"] == "inactive" and not decision["economicsAvailable"] and not override):
        return f"Inactive ({status.get('reason') or 'unknown reason'})"
    economics = _economics(decision)
    details = f"extension override, {economics}" if override else f"{economics} -> {decision['action']}"
    if status["state"] == "inactive":
        return f"Stopped ({details})"
    if status["state"] == "refreshing":
        return f"Warming cache ({details})"
    return f"{_when(status.get('nextWarmAt'), now_ms)} ({details})"


@dataclass(frozen=True)
class SessionFacts:
    stats: Mapping[str, object]
    name: str | None
    warming_mode: str
    warming_status: str
    decision: WarmingDecision | None
    shares: Sequence[CostShare]
    selected_key: str
    waste: CacheWaste


def session_info_text(facts: SessionFacts, theme: Theme) -> str:
    def dim(text: str) -> str:
        return theme.fg("dim", text)

    def row(label: str, value: object) -> str:
        return f"{dim(label)} {value}"

    stats = facts.stats
    raw = stats.get("tokens")
    tokens: Mapping[str, object] = raw if isinstance(raw, Mapping) else {}
    fresh, read, written, output, total = (
        int(_num(tokens.get(name))) for name in ("input", "cacheRead", "cacheWrite", "output", "total")
    )
    prompt = fresh + read + written
    lines = [bold("Session Info"), ""]
    if facts.name:
        lines.append(row("Name:", facts.name))
    lines += [row("File:", stats.get("sessionFile") or "In-memory"), row("ID:", stats.get("sessionId")), ""]
    lines += [
        bold("Messages"), row("Total:", stats.get("totalMessages", 0)), row("User:", stats.get("userMessages", 0)),
        row("Assistant:", stats.get("assistantMessages", 0)),
        row("Tools:", f"{stats.get('toolCalls', 0)} calls, {stats.get('toolResults', 0)} results"), "",
    ]  # fmt: skip
    lines += [bold("Tokens"), row("Input:", f"{prompt:,}")]
    if prompt > 0 and (read > 0 or written > 0):
        lines.append("  " + row("Cached:", f"{read:,} {dim(f'({to_fixed(read / prompt * 100, 1)}%)')}"))
        note = f" {dim(f'({written:,} written to cache)')}" if written > 0 else ""
        lines.append("  " + row("Uncached:", f"{fresh + written:,}{note}"))
    lines += [row("Output:", f"{output:,}"), row("Total:", f"{total:,}")]
    lines += ["", bold("Cache Warming"), row("Mode:", facts.warming_mode), row("Status:", facts.warming_status)]
    if facts.decision is not None and facts.decision["economicsAvailable"]:
        lines.append(row("Cache miss penalty:", f"${to_fixed(facts.decision['missCost'], 3)}"))
        lines.append(row("Refresh cost:", f"${to_fixed(facts.decision['warmCost'], 3)}"))
    cost, waste = _num(stats.get("cost")), facts.waste
    if cost > 0 or waste.missed_tokens > 0:
        lines += ["", bold("Cost"), row("Total:", f"${to_fixed(cost, 3)}")]
        if len(facts.shares) > 1 or (facts.shares[0].key if facts.shares else None) != facts.selected_key:
            for share in facts.shares:
                used = dim(f"({format_tokens(share.tokens)} tokens)")
                lines.append("  " + row(f"{share.key}:", f"${to_fixed(share.cost, 3)} {used}"))
        if waste.missed_tokens > 0:
            misses = "1 miss" if waste.miss_count == 1 else f"{waste.miss_count} misses"
            detail = f"{waste.missed_tokens:,} tokens, {misses}"
            paid = f"${to_fixed(waste.missed_cost, 3)} {dim(f'({detail})')}" if waste.missed_cost >= 0.0001 else detail
            lines.append(row("Cache Re-billed:", paid))
    return "\n".join(lines)


class SessionInfoBlock:
    """The text above, one column in from the left, wrapped to the width."""

    def __init__(self, facts: SessionFacts, context: RenderContext) -> None:
        self.facts = facts
        self.context = context

    def render(self, width: int) -> list[str]:
        text = session_info_text(self.facts, self.context.theme)
        room = max(1, width - 2)
        return [" " + row for line in text.split("\n") for row in _wrap_words(line, room)]


def _wrap_words(line: str, room: int) -> list[str]:
    """Word wrap where a word that does not fit the rest of a row starts the next one (Pi's rule;
    a file path longer than a row goes under its label), then long words are split."""
    if visible_width(line) <= room:
        return [line]
    rows: list[str] = []
    current = ""
    for word in line.split(" "):
        candidate = f"{current} {word}" if current else word
        if current and visible_width(candidate) > room:
            rows.append(current)
            current = word
        else:
            current = candidate
    rows.append(current)
    return [piece for row in rows for piece in wrap(row, room)]
