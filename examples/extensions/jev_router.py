"""jev-router: one model choice, ``jev/auto``, that plans on a strong model and implements on a cheap one.

Select ``jev/auto`` (``pi -e examples/extensions/jev_router.py --model jev/auto``) and each
request goes to one of three OpenAI Codex models:

* **planning**, from the first prompt: GPT-5.6 Sol for demanding work, GPT-5.6 Terra otherwise.
  The choice is made once, by TypeSafe's Jev classifier rating the first prompt; where no
  classifier can be asked, Terra plans. A session already on Sol or Terra keeps it (no cache miss);
* **implementation**: once an ``edit`` or ``write`` call has succeeded, the next request (still in
  the same turn) and all later ones go to GPT-5.6 Luna. The session switches model once, so it
  pays for one prompt-cache miss.

The phase is the router's state: pi stores it on the session branch, so it follows ``/tree`` and
``/fork`` and survives compaction. The thinking level you pick is passed on to the chosen model.
Requests outside the agent loop (branch summaries, for instance) go to Luna.

Needs an OpenAI Codex login (``/login``); the classifier also needs ``TYPESAFE_API_KEY``.
``create_extension(provider, sol=, terra=, luna=)`` routes between other models (SDK hosts,
tests).

What it shows: ``pi.register_virtual_model`` with an ``async route(request, ctx)`` returning
``{"model", "thinkingLevel", "state"}``, router state, and ``request["messages"]``,
``request["previous"]`` and ``request["reason"]``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pi_harness.ai.model_types import get_model_of_type
from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext

PROVIDER = "openai-codex"
SOL, TERRA, LUNA = "gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.6-luna"
EDIT_TOOLS = frozenset({"edit", "write"})
CLASSIFIER = ("classifier", "typesafe", "jev-latest")
PROMPT_LIMIT = 16_000
COMPLEXITY_QUESTION = {
    "complexity": {
        "type": "choice",
        "instructions": "How hard is the software engineering work asked for in `prompt`?",
        "criteria": {
            "standard": "Everyday features, fixes, reviews or questions",
            "complex": "Delicate design, changes across many parts, or difficult debugging",
        },
    }
}


def last_user_text(messages: Sequence[Mapping[str, Any]]) -> str:
    users = [m for m in messages if m.get("role") == "user"]
    content = users[-1].get("content", "") if users else ""
    if isinstance(content, str):
        return content
    return "\n".join(block.get("text", "") for block in content if block.get("type") == "text")


def edited_since_last_prompt(messages: Sequence[Mapping[str, Any]]) -> bool:
    """Whether an ``edit``/``write`` call succeeded after the latest user message."""
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    return any(
        m.get("role") == "toolResult" and m.get("toolName") in EDIT_TOOLS and not m.get("isError")
        for m in messages[last_user + 1 :]
    )


def create_extension(
    provider: str = PROVIDER, *, sol: str = SOL, terra: str = TERRA, luna: str = LUNA
) -> Callable[[ExtensionAPI], None]:
    def route_to(request: Mapping[str, Any], ctx: ExtensionContext, model_id: str, state: Any = None) -> dict[str, Any]:
        model = ctx.model_registry.find(provider, model_id)
        if model is None:
            raise RuntimeError(f"Model {provider}/{model_id} is not in the catalogue")
        route: dict[str, Any] = {"model": model, "thinkingLevel": request.get("thinkingLevel")}
        if state is not None:
            route["state"] = state
        return route

    async def planning_model(request: Mapping[str, Any], ctx: ExtensionContext) -> str:
        previous = request.get("previous") or {}
        model = previous.get("model") if isinstance(previous, Mapping) else None
        if isinstance(model, Mapping) and model.get("provider") == provider and model.get("id") in (sol, terra):
            return str(model["id"])
        jev = get_model_of_type(*CLASSIFIER)
        classify = getattr(ctx.model_registry, "classify", None)  # classifier requests may be unsupported
        if jev is None or classify is None:
            return terra
        prompt = last_user_text(request.get("messages") or [])[:PROMPT_LIMIT]
        result = await classify(
            jev, {"state": {"prompt": prompt}, "questions": COMPLEXITY_QUESTION}, signal=request.get("signal")
        )
        answer = result.get("answers", {}).get("complexity") if result.get("stopReason") == "stop" else None
        complex_share = (answer or {}).get("probabilities", {}).get("complex", 0) if isinstance(answer, Mapping) else 0
        return sol if complex_share >= 0.5 else terra

    def extension(pi: ExtensionAPI) -> None:
        async def route(request: Mapping[str, Any], ctx: ExtensionContext) -> dict[str, Any]:
            if request.get("reason") == "direct":
                return route_to(request, ctx, luna)
            state = request.get("state")
            if not isinstance(state, Mapping):
                chosen = await planning_model(request, ctx)
                return route_to(request, ctx, chosen, {"phase": "planning", "model": chosen})
            if state.get("phase") == "planning" and edited_since_last_prompt(request.get("messages") or []):
                return route_to(request, ctx, luna, {"phase": "implementation", "model": luna})
            return route_to(request, ctx, str(state.get("model")))

        pi.register_virtual_model(
            {
                "provider": "jev",
                "id": "auto",
                "name": "Auto (Jev)",
                "thinkingLevels": ["low", "medium", "high", "xhigh"],
                "contextWindow": 272_000,  # shared by the three models, shown before the first answer
                "maxTokens": 128_000,
                "route": route,
            }
        )

    return extension


extension = create_extension()
