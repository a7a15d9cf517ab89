"""Prompt-cache warming: keep the provider's cache entry of the latest request alive.

A model that declares a cache lifetime (``promptCache: {short, long}`` seconds, models.md) has
its latest session request replayed with a one-token output cap shortly before the entry
expires: at 90 % of the lifetime, keeping at least ten seconds of margin. A replay is sent only
when it is expected to save at least $0.05: the price of a cache miss on the last prompt minus
the price of the cache read, weighted by the chance that a real request follows (1 while the
agent runs; 0.15 between runs, ``cacheWarming: "idle"``), minus the replay's own price.
Warming stops when the transcript no longer extends the warmed request, when the mode changes,
after one hour of streaming (30 minutes once idle), when a refresh deadline is missed, and for
requests that cannot be replayed unchanged (Anthropic budget-based thinking).

Each successful refresh is stored as a ``usage`` entry of kind ``cache_warm``: it counts in the
session's totals and never enters the model context. Everything here takes a ``Clock``, so
tests drive time themselves (``FakeClock``) and never sleep.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypedDict

from pi_harness.ai.abort import AbortController
from pi_harness.ai.cost import calculate_cost
from pi_harness.ai.environ import get_env
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.types import AssistantMessage, Context, Model, Usage, empty_usage

CacheWarmingMode = Literal["off", "streaming", "idle"]
CACHE_WARMING_MODES: tuple[CacheWarmingMode, ...] = ("off", "streaming", "idle")
Phase = Literal["streaming", "idle"]
Action = Literal["warm", "stop"]

MINIMUM_EXPECTED_SAVINGS = 0.05  # dollars
IDLE_CONTINUATION_PROBABILITY = 0.15
MAX_STREAMING_AGE_MS = 60 * 60_000
MAX_IDLE_AGE_MS = 30 * 60_000
_MARGIN_MS = 10_000


# --- the rules ----------------------------------------------------------------------------------


def warming_delay_ms(ttl_ms: float) -> int | None:
    """When to refresh an entry that lives ``ttl_ms``: 90 % of it, at least 10 s before expiry."""
    if ttl_ms <= _MARGIN_MS:
        return None
    return max(1, math.floor(min(ttl_ms * 0.9, ttl_ms - _MARGIN_MS)))


def prompt_cache_ttl_ms(model: Model, options: SimpleStreamOptions | None) -> float | None:
    """The lifetime of the entry a request writes: the model's ``promptCache`` tier for the
    request's retention (``PI_CACHE_RETENTION=long`` when unset); ``None``: unknown or off."""
    retention = options.cache_retention if options is not None else None
    if retention is None:
        env = (options.env if options is not None else None) or {}
        retention = "long" if (env.get("PI_CACHE_RETENTION") or get_env("PI_CACHE_RETENTION")) == "long" else "short"
    if retention == "none":
        return None
    seconds = (model.get("promptCache") or {}).get(retention)
    return float(seconds) * 1000 if isinstance(seconds, int | float) else None


def is_replayable(model: Model, options: SimpleStreamOptions | None) -> bool:
    """A replay capped at one token keeps the cache key, except for Anthropic's budget-based
    thinking, whose budget follows ``max_tokens`` (and is part of what the cache is keyed on)."""
    if options is None or not options.reasoning or model["api"] != "anthropic-messages":
        return True
    return (model.get("compat") or {}).get("forceAdaptiveThinking") is True


def last_prompt_tokens(branch: Sequence[Mapping[str, object]]) -> int:
    """The prompt size of the latest response on the branch, as the provider reported it."""
    for entry in reversed(branch):
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == "assistant":
            usage = message.get("usage") or {}
            return sum(int(usage.get(k) or 0) for k in ("input", "cacheRead", "cacheWrite"))
    return 0


def _price(model: Model, *, fresh: int = 0, output: int = 0, read: int = 0, written: int = 0) -> float:
    usage = empty_usage()
    usage["input"], usage["output"], usage["cacheRead"], usage["cacheWrite"] = fresh, output, read, written
    return float(calculate_cost(model, usage)["cost"]["total"])


class WarmingDecision(TypedDict):
    """What the next refresh would decide (``cache_warming_decision`` carries part of it)."""

    phase: Phase
    warmCost: float
    missCost: float
    continuationProbability: float
    expectedSavings: float
    economicsAvailable: bool
    action: Action


def evaluate(model: Model, prompt_tokens: int, phase: Phase) -> WarmingDecision:
    hit = _price(model, read=prompt_tokens)
    # A miss writes the prompt to the cache again, or pays it as fresh input without write prices.
    writes = model["cost"]["cacheWrite"] > 0
    miss = _price(model, written=prompt_tokens) if writes else _price(model, fresh=prompt_tokens)
    warm = _price(model, read=prompt_tokens, output=1)
    miss_cost = max(0.0, miss - hit)
    probability = IDLE_CONTINUATION_PROBABILITY if phase == "idle" else 1.0
    savings = probability * miss_cost - warm
    return {
        "phase": phase,
        "warmCost": warm,
        "missCost": miss_cost,
        "continuationProbability": probability,
        "expectedSavings": savings,
        "economicsAvailable": prompt_tokens > 0 and (hit > 0 or miss > 0),
        "action": "warm" if savings >= MINIMUM_EXPECTED_SAVINGS else "stop",
    }


# --- time -----------------------------------------------------------------------------------------


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now_ms(self) -> float: ...
    def call_later(self, delay_ms: float, callback: Callable[[], None]) -> TimerHandle: ...


class LoopClock:
    """Wall-clock time and the running event loop's timers."""

    def now_ms(self) -> float:
        return time.time() * 1000

    def call_later(self, delay_ms: float, callback: Callable[[], None]) -> TimerHandle:
        return asyncio.get_running_loop().call_later(max(0.0, delay_ms) / 1000, callback)


@dataclass
class _FakeTimer:
    due_ms: float
    callback: Callable[[], None]
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """A clock tests move by hand: ``advance`` runs the timers that fall due, in order."""

    def __init__(self, start_ms: float = 1_000_000.0) -> None:
        self._now = start_ms
        self._timers: list[_FakeTimer] = []

    def now_ms(self) -> float:
        return self._now

    def call_later(self, delay_ms: float, callback: Callable[[], None]) -> TimerHandle:
        timer = _FakeTimer(self._now + max(0.0, delay_ms), callback)
        self._timers.append(timer)
        return timer

    def advance(self, delta_ms: float) -> None:
        target = self._now + delta_ms
        while True:
            due = sorted((t for t in self._timers if not t.cancelled and t.due_ms <= target), key=lambda t: t.due_ms)
            if not due:
                break
            timer = due[0]
            self._timers.remove(timer)
            self._now = max(self._now, timer.due_ms)
            timer.callback()
        self._now = target

    @property
    def pending(self) -> int:
        return sum(1 for t in self._timers if not t.cancelled)


# --- the warmer -------------------------------------------------------------------------------------


class WarmingStatus(TypedDict, total=False):
    state: Literal["inactive", "scheduled", "refreshing"]
    reason: str
    nextWarmAt: float
    decision: WarmingDecision
    extensionOverride: bool


SendFn = Callable[[Model, Context, SimpleStreamOptions], Awaitable[AssistantMessage]]
AppendUsage = Callable[[str, str, str, Usage, "str | None"], str]
DecideFn = Callable[[dict[str, object]], Awaitable[str]]


@dataclass
class _Run:
    model: Model
    context: Context
    options: SimpleStreamOptions
    is_current: Callable[[], bool]
    ttl_ms: float
    delay_ms: int
    started_at: float
    controller: AbortController = field(default_factory=AbortController)
    phase: Phase = "streaming"
    next_warm_at: float = 0.0
    deadline_at: float = 0.0
    timer: TimerHandle | None = None
    refreshing: bool = False
    extension_override: bool = False


class CacheWarmer:
    """Keeps one prompt-cache entry warm; ``start`` replaces whatever run was going on."""

    def __init__(
        self,
        *,
        send: SendFn,
        get_branch: Callable[[], Sequence[Mapping[str, object]]],
        append_usage: AppendUsage,
        get_mode: Callable[[], str],
        decide: DecideFn | None = None,
        on_warmed: Callable[[str], None] | None = None,
        clock: Clock | None = None,
    ) -> None:
        self._send = send
        self._get_branch = get_branch
        self._append_usage = append_usage
        self._get_mode = get_mode
        self._decide = decide
        self.on_warmed = on_warmed
        self.clock: Clock = clock or LoopClock()
        self._run: _Run | None = None
        self._inactive: WarmingStatus = {"state": "inactive", "reason": "waiting for first request"}
        self._tasks: set[asyncio.Task[None]] = set()

    # -- status -------------------------------------------------------------------------------

    @property
    def status(self) -> WarmingStatus:
        if self._get_mode() == "off":
            return {"state": "inactive", "reason": "cache warming disabled"}
        run = self._run
        if run is None:
            return self._inactive.copy()
        if not run.is_current():
            return {"state": "inactive", "reason": "conversation context changed"}
        decision = self._evaluate(run)
        if not decision["economicsAvailable"] and not run.refreshing:
            return {"state": "inactive", "reason": "cache economics unavailable"}
        return {
            "state": "refreshing" if run.refreshing else "scheduled",
            "nextWarmAt": run.next_warm_at,
            "decision": decision,
            "extensionOverride": run.extension_override,
        }

    # -- lifecycle ------------------------------------------------------------------------------

    def start(
        self,
        model: Model,
        context: Context,
        options: SimpleStreamOptions,
        watch: Callable[[], Callable[[], bool]],
    ) -> None:
        """The session sent ``context`` to ``model``: keep the entry it writes warm. ``watch``
        makes the test of whether the run is still current; it is called only when a run starts
        (it may copy the transcript, which a request that is not warmed need not pay for)."""
        self._clear()
        if self._get_mode() == "off":
            self._stop("cache warming disabled")
            return
        if not is_replayable(model, options):
            self._stop("request cannot be replayed safely")
            return
        ttl = prompt_cache_ttl_ms(model, options)
        if ttl is None:
            off = options.cache_retention == "none"
            self._stop("request disabled prompt caching" if off else "cache lifetime unavailable")
            return
        delay = warming_delay_ms(ttl)
        if delay is None:
            self._stop("cache lifetime unavailable")
            return
        self._run = _Run(model, context, options, watch(), ttl, delay, self.clock.now_ms())
        self._schedule(self._run)

    def on_agent_settled(self) -> None:
        run = self._run
        if run is None:
            return
        if self._get_mode() == "streaming":
            self._stop("agent run settled")
            return
        run.phase = "idle"
        deadline = run.started_at + MAX_IDLE_AGE_MS
        if run.next_warm_at > deadline or self.clock.now_ms() >= deadline:
            self._stop("30-minute idle safety limit reached")

    def on_mode_changed(self) -> None:
        run = self._run
        reason = self._mode_stop_reason(run) if run is not None else None
        if reason is not None:
            self._stop(reason)

    def cancel(self) -> None:
        self._stop("inactive")

    async def wait_idle(self) -> None:
        """Until the refreshes in flight are done (tests; disposal)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # -- internals ------------------------------------------------------------------------------

    def _clear(self) -> None:
        run, self._run = self._run, None
        if run is not None:
            if run.timer is not None:
                run.timer.cancel()
            run.controller.abort()

    def _stop(self, reason: str, decision: WarmingDecision | None = None, override: bool = False) -> None:
        self._clear()
        self._inactive = {"state": "inactive", "reason": reason}
        if decision is not None:
            self._inactive["decision"] = decision
            self._inactive["extensionOverride"] = override

    def _schedule(self, run: _Run) -> None:
        now = self.clock.now_ms()
        run.extension_override = False
        run.next_warm_at = now + run.delay_ms
        # A timer may fire late (sleep, a blocked loop): half of the margin before expiry is kept
        # for that; a later refresh would most likely pay a full cache write.
        run.deadline_at = run.next_warm_at + math.floor((run.ttl_ms - run.delay_ms) / 2)
        idle = run.phase == "idle"
        limit = run.started_at + (MAX_IDLE_AGE_MS if idle else MAX_STREAMING_AGE_MS)
        if run.next_warm_at > limit or now >= limit:
            self._stop("30-minute idle safety limit reached" if idle else "one-hour safety limit reached")
            return
        run.timer = self.clock.call_later(run.delay_ms, lambda: self._fire(run))

    def _fire(self, run: _Run) -> None:
        run.timer = None
        task = asyncio.ensure_future(self._refresh(run))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _valid(self, run: _Run) -> bool:
        if self._run is not run:
            return False
        reason = self._mode_stop_reason(run) or (None if run.is_current() else "conversation context changed")
        if reason is None:
            return True
        self._stop(reason)
        return False

    def _deadline_missed(self, run: _Run) -> bool:
        if self.clock.now_ms() <= run.deadline_at:
            return False
        self._stop("cache refresh deadline missed")
        return True

    def _mode_stop_reason(self, run: _Run) -> str | None:
        mode = self._get_mode()
        if mode == "off":
            return "cache warming disabled"
        if mode == "streaming" and run.phase == "idle":
            return "agent run settled"
        return None

    def _evaluate(self, run: _Run) -> WarmingDecision:
        return evaluate(run.model, last_prompt_tokens(self._get_branch()), run.phase)

    async def _refresh(self, run: _Run) -> None:
        if not self._valid(run) or self._deadline_missed(run):
            return
        decision = self._evaluate(run)
        action: str = decision["action"]
        if self._decide is not None:
            event: dict[str, object] = {
                "type": "cache_warming_decision",
                "warmCost": decision["warmCost"],
                "missCost": decision["missCost"],
                "continuationProbability": decision["continuationProbability"],
                "action": action,
            }
            try:
                decided = await self._decide(event)
                action = decided if decided in ("warm", "stop") else action
            except Exception:  # an extension's failure falls back to our own decision
                action = decision["action"]
        if not self._valid(run) or self._deadline_missed(run):
            return
        override = action != decision["action"]
        if action == "stop":
            reason = (
                "stopped by extension"
                if override
                else "expected savings below threshold"
                if decision["economicsAvailable"]
                else "cache economics unavailable"
            )
            self._stop(reason, decision, override)
            return
        run.extension_override = override
        run.refreshing = True
        options = dataclasses.replace(run.options, max_tokens=1, max_retries=0, signal=run.controller.signal)
        try:
            message = await self._send(run.model, run.context, options)
        except Exception:  # best effort: warming never disturbs the session
            message = None
        finally:
            run.refreshing = False
        if not self._valid(run):
            return
        if message is not None and message.get("stopReason") not in ("error", "aborted"):
            model_id = str(message.get("responseModel") or message.get("model") or run.model["id"])
            note = "extension override" if override else None
            entry_id = self._append_usage("cache_warm", str(message.get("provider")), model_id, message["usage"], note)
            if self.on_warmed is not None:
                self.on_warmed(entry_id)
        if self._run is run:
            self._schedule(run)


def _dollars(value: float) -> str:
    return f"-${abs(value):.3f}" if value < 0 else f"${value:.3f}"


def _until(next_at: float | None, now_ms: float) -> str:
    if next_at is None or next_at <= now_ms:
        return "now"
    seconds = math.ceil((next_at - now_ms) / 1000)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours}h"] if hours else []
    parts += [f"{minutes}m"] if minutes else []
    parts += [f"{secs}s"] if secs or not parts else []
    return "in " + " ".join(parts)


def describe_warming_status(status: WarmingStatus, now_ms: float) -> str:
    """One line for ``/session``: what warming does next and why."""
    decision = status.get("decision")
    reason = status.get("reason") or "unknown"
    if decision is None or (status["state"] == "inactive" and not decision["economicsAvailable"]):
        return f"off ({reason})"
    if decision["economicsAvailable"]:
        chance = round(decision["continuationProbability"] * 100)
        economics = f"saves {_dollars(decision['expectedSavings'])} at a {chance}% chance of a next request"
    else:
        economics = "no prices to judge by"
    who = "an extension's choice" if status.get("extensionOverride") else f"{decision['action']}"
    if status["state"] == "inactive":
        return f"stopped: {reason} ({economics}, {who})"
    if status["state"] == "refreshing":
        return f"refreshing now ({economics}, {who})"
    return f"next refresh {_until(status.get('nextWarmAt'), now_ms)} ({economics}, {who})"


def format_warming_usage(usage: Usage, note: str | None = None) -> str:
    """The transcript's line for a ``cache_warm`` entry."""
    cost = f"{usage['cost']['total']:.6f}"
    head, _, tail = cost.partition(".")
    tail = tail[:3] + tail[3:].rstrip("0")
    return f"Cache warmed{f' ({note})' if note else ''}: ${head}.{tail}"


__all__ = [
    "CACHE_WARMING_MODES",
    "IDLE_CONTINUATION_PROBABILITY",
    "MINIMUM_EXPECTED_SAVINGS",
    "CacheWarmer",
    "CacheWarmingMode",
    "Clock",
    "FakeClock",
    "LoopClock",
    "WarmingDecision",
    "WarmingStatus",
    "describe_warming_status",
    "evaluate",
    "format_warming_usage",
    "is_replayable",
    "last_prompt_tokens",
    "prompt_cache_ttl_ms",
    "warming_delay_ms",
]
