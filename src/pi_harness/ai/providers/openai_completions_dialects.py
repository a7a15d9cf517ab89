"""Request fields of Pi 1.4's ``openai-completions`` compat flags beyond the thinking switches of
``apply_reasoning``: the ``ant-ling``, ``string-thinking``, ``chat-template`` and ``baseten``
thinking formats (the last two with ``chatTemplateKwargs`` / ``chatTemplateArgs`` values), a
thinking token budget field (``thinkingTokenBudgetField``, ``supportsThinkingTokenBudget``) and
vLLM's scheduler priority (``vllmPriority``).

A ``chatTemplate*`` value is sent as given unless it is an object: ``{"$var": "thinking.enabled"}``
is whether thinking is on, ``{"$var": "thinking.budget"}`` the token budget, any other
``{"$var": ...}`` the level's name on the wire (``thinkingLevelMap``, ``off`` when thinking is
off); ``"omitWhenOff": true`` drops the value when thinking is off.
"""

from __future__ import annotations

from collections.abc import Mapping

from pi_harness.ai.types import Model

EXTRA_FORMATS = frozenset({"ant-ling", "string-thinking", "chat-template", "baseten"})
DEFAULT_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
MIN_ANSWER_TOKENS = 1024
_UNSET = object()


def _mapped(level_map: Mapping[str, str | None], level: str) -> object:
    return level_map.get(level, _UNSET)


def thinking_budget(
    model: Model, effort: str | None, max_tokens: int | None, budgets: Mapping[str, int] | None
) -> int | None:
    """The level's budget, leaving at least ``MIN_ANSWER_TOKENS`` of the output cap for the answer."""
    if not effort or not model.get("reasoning"):
        return None
    level = "high" if effort in ("xhigh", "max") else effort
    budget = {**DEFAULT_BUDGETS, **(budgets or {})}.get(level)
    if budget is None:
        return None
    ceiling = max_tokens or model["maxTokens"]
    budget = min(budget, max(0, ceiling - MIN_ANSWER_TOKENS))
    return budget if budget > 0 else None


def _template_values(
    values: object, level_map: Mapping[str, str | None], effort: str | None, budget: int | None
) -> dict[str, object]:
    resolved: dict[str, object] = {}
    for key, value in values.items() if isinstance(values, Mapping) else ():
        if not isinstance(value, Mapping):
            resolved[key] = value
            continue
        if effort is None and value.get("omitWhenOff"):
            continue
        var = value.get("$var")
        if var == "thinking.enabled":
            resolved[key] = effort is not None
        elif var == "thinking.budget":
            if budget is not None:
                resolved[key] = budget
        else:
            mapped = _mapped(level_map, effort or "off")
            name = effort if mapped is _UNSET else mapped
            if isinstance(name, str):
                resolved[key] = name
    return resolved


def dialect_fields(
    model: Model,
    compat: Mapping[str, object],
    level: str | None,
    max_tokens: int | None,
    budgets: Mapping[str, int] | None = None,
) -> dict[str, object]:
    """The body fields these flags add for a request at ``level`` (``None``/``off``: no thinking)."""
    fields: dict[str, object] = {}
    effort = level if level and level != "off" else None
    level_map: Mapping[str, str | None] = model.get("thinkingLevelMap") or {}
    budget = thinking_budget(model, effort, max_tokens, budgets)
    fmt = compat.get("thinkingFormat")
    if model.get("reasoning"):
        if fmt == "ant-ling" and effort:
            ling = level_map.get(effort)
            if isinstance(ling, str):
                fields["reasoning"] = {"effort": ling}
        elif fmt == "string-thinking":
            if effort:
                fields["thinking"] = level_map.get(effort) or effort
            elif level_map.get("off", "") is not None:
                off = level_map.get("off")
                fields["thinking"] = off if off is not None else "none"
        elif fmt == "chat-template":
            kwargs = _template_values(compat.get("chatTemplateKwargs"), level_map, effort, budget)
            if kwargs:
                fields["chat_template_kwargs"] = kwargs
        elif fmt == "baseten":
            args = _template_values(compat.get("chatTemplateArgs"), level_map, effort, budget)
            if args:
                fields["chat_template_args"] = args
            if compat.get("supportsReasoningEffort"):
                wire = _mapped(level_map, effort or "off")
                effort_name = effort if wire is _UNSET else wire
                if isinstance(effort_name, str):
                    fields["reasoning_effort"] = effort_name
    budget_field = compat.get("thinkingTokenBudgetField") or (
        "thinking_token_budget" if compat.get("supportsThinkingTokenBudget") else None
    )
    if isinstance(budget_field, str) and budget is not None:
        fields[budget_field] = budget
    priority = compat.get("vllmPriority")
    if isinstance(priority, int | float) and not isinstance(priority, bool):
        fields["priority"] = priority
    return fields
