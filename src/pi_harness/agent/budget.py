"""Run budgets (beyond Pi; all off by default): ``max_turns``, ``max_total_tokens``, ``max_cost``.

What is counted, per low-level run (one ``agent_start`` … ``agent_end``; an ``Agent.prompt`` or
``Agent.continue_`` call), starting from zero each run:

* **turns**: the turns of the run, i.e. the ``turn_start`` events emitted so far (the first
  turn counts as 1);
* **tokens**: the sum of ``usage.totalTokens`` over the final assistant messages of the run
  (taken at ``message_end``; error and aborted responses count with their partial usage);
* **cost**: the sum of ``usage.cost.total`` (USD) over the same messages.

Tool-result ``usage`` (nested LLM work) is not counted. The budget is checked only at a turn
boundary, after ``turn_end`` (so the turn's tool results are in), and only when the loop would
otherwise go on (tool calls to answer, an explicit continuation, or queued steering/follow-up
messages). A limit is reached when ``turns >= max_turns``, ``tokens >= max_total_tokens`` or
``cost >= max_cost``; the run then emits ``budget_exceeded {limit, value, used}`` and ends with
``agent_end {messages, budgetExceeded}``. Queued messages stay queued. Limits are checked in the
order turns, tokens, cost; the first one reached is reported.
"""

from __future__ import annotations

from pi_harness.agent.types import BudgetInfo
from pi_harness.ai.types import AssistantMessage


class RunBudget:
    __slots__ = ("cost", "max_cost", "max_tokens", "max_turns", "tokens", "turns")

    def __init__(
        self, max_turns: int | None = None, max_total_tokens: int | None = None, max_cost: float | None = None
    ) -> None:
        self.max_turns = max_turns
        self.max_tokens = max_total_tokens
        self.max_cost = max_cost
        self.turns = 0
        self.tokens = 0
        self.cost = 0.0

    @property
    def enabled(self) -> bool:
        return self.max_turns is not None or self.max_tokens is not None or self.max_cost is not None

    def count_turn(self) -> None:
        self.turns += 1

    def count_response(self, message: AssistantMessage) -> None:
        usage = message.get("usage")
        if not usage:
            return
        self.tokens += int(usage.get("totalTokens") or 0)
        cost = usage.get("cost")
        if cost:
            self.cost += float(cost.get("total") or 0.0)

    def reached(self) -> BudgetInfo | None:
        """The first limit reached, with the configured value and the figure used."""
        if self.max_turns is not None and self.turns >= self.max_turns:
            return {"limit": "maxTurns", "value": self.max_turns, "used": self.turns}
        if self.max_tokens is not None and self.tokens >= self.max_tokens:
            return {"limit": "maxTotalTokens", "value": self.max_tokens, "used": self.tokens}
        if self.max_cost is not None and self.cost >= self.max_cost:
            return {"limit": "maxCost", "value": self.max_cost, "used": self.cost}
        return None
