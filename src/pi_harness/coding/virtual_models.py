"""Virtual models: a selectable model whose router picks a physical model for each request.

A virtual model is registered by an extension (``pi.register_virtual_model``) or an SDK host
(``ModelRuntime.register_virtual_model``). Its catalogue entry carries the API id
``pi-virtual``, which no provider serves: a request must be routed first. What the session
records follows Pi 1.4 (docs: virtual-models.md): the selection in ``model_change`` /
``thinking_level_change`` entries, the dispatched model on each assistant message, and router
state as ``custom`` entries of type ``pi.virtual-model-state`` with ``{provider, modelId, state}``.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypedDict, cast

from pi_harness.ai.thinking import clamp_thinking_level, is_thinking_level
from pi_harness.ai.types import Model, ThinkingLevel

VIRTUAL_MODEL_API = "pi-virtual"
VIRTUAL_MODEL_STATE_ENTRY = "pi.virtual-model-state"
_ALL_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")

RouteReason = Literal["user", "continuation", "retry", "direct"]


class RoutedPair(TypedDict, total=False):
    """A physical model and the thinking level it answered (or failed) with."""

    model: Model
    thinkingLevel: str | None
    message: Mapping[str, object]  # ``failed`` only: the failed assistant message


class RouteRequest(TypedDict, total=False):
    """What a router sees (``route(request, ctx)``); keys as Pi names them."""

    model: Model  # the selected virtual model
    thinkingLevel: str  # the selected (virtual) level
    reason: RouteReason
    previous: RoutedPair  # the latest successful response in ``messages``
    failed: RoutedPair  # for ``retry``: the failed request
    state: object  # router state stored on this branch
    messages: list[Mapping[str, object]]
    signal: object


class RouteResult(TypedDict, total=False):
    model: Model
    thinkingLevel: str
    state: object


Router = Callable[[RouteRequest], "RouteResult | Awaitable[RouteResult]"]


class VirtualModelDefinition(TypedDict, total=False):
    """``register_virtual_model(definition)``: Pi's keys."""

    provider: str
    id: str
    name: str
    thinkingLevels: list[str]
    contextWindow: int
    maxTokens: int
    input: list[str]
    route: Router


class VirtualModelError(ValueError):
    """Registration or routing failed; the message is the one-line reason."""


def is_virtual_model(model: Mapping[str, object] | None) -> bool:
    return model is not None and model.get("api") == VIRTUAL_MODEL_API


def create_virtual_model(definition: VirtualModelDefinition) -> Model:
    """The catalogue entry of a virtual model: unset limits are 0 (unknown), no cost."""
    levels = list(definition.get("thinkingLevels") or ["off"])
    return {
        "id": definition["id"],
        "name": definition.get("name") or definition["id"],
        "api": VIRTUAL_MODEL_API,
        "provider": definition["provider"],
        "baseUrl": "",
        "reasoning": any(level != "off" for level in levels),
        "thinkingLevelMap": {level: (level if level in levels else None) for level in _ALL_LEVELS},
        "input": list(definition.get("input") or ["text", "image"]),
        "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0},
        "contextWindow": int(definition.get("contextWindow") or 0),
        "maxTokens": int(definition.get("maxTokens") or 0),
    }


def find_latest_response(messages: Sequence[Mapping[str, object]]) -> Mapping[str, object] | None:
    """The newest assistant message that neither failed nor was aborted (its model is physical)."""
    for message in reversed(messages):
        if message.get("role") == "assistant" and message.get("stopReason") not in ("error", "aborted"):
            return message
    return None


def branch_state(branch: Sequence[Mapping[str, object]], provider: str, model_id: str) -> object:
    """The router state last stored on ``branch`` for ``provider/model_id`` (``None``: none)."""
    for entry in reversed(branch):
        if entry.get("type") != "custom" or entry.get("customType") != VIRTUAL_MODEL_STATE_ENTRY:
            continue
        data = entry.get("data")
        if isinstance(data, dict) and data.get("provider") == provider and data.get("modelId") == model_id:
            return data.get("state")
    return None


def virtual_selection(
    branch: Sequence[Mapping[str, object]], is_virtual: Callable[[str, str], bool]
) -> tuple[str, str] | None:
    """``(provider, id)`` of a virtual model the branch still has selected, else ``None``.

    Responses name the physical models a virtual selection routed to, so the latest
    ``model_change`` holds across them when it names a model that is (still) virtual; one that
    is no longer registered does not, and the model that answered last is restored instead.
    """
    for entry in reversed(branch):
        if entry.get("type") == "model_change":
            ref = (str(entry.get("provider")), str(entry.get("modelId")))
            return ref if is_virtual(*ref) else None
    return None


def is_user_turn(messages: Sequence[Mapping[str, object]]) -> bool:
    """Whether a message the user wrote follows the latest response (reason ``user``)."""
    for message in reversed(messages):
        role = message.get("role")
        if role == "assistant":
            return False
        if role == "user":
            return True
    return False


@dataclass(frozen=True)
class RoutedModel:
    """The outcome of routing one request: a physical model, its clamped level, router state."""

    model: Model
    thinking_level: ThinkingLevel
    state: object = None


class VirtualModels:
    """The registered virtual models, laid over the catalogue by ``ModelRuntime.refresh``."""

    def __init__(self) -> None:
        self._defs: dict[tuple[str, str], tuple[Model, Router]] = {}
        self._physical_providers: set[str] = set()

    def register(self, definition: Mapping[str, object], physical: Model | None) -> None:
        provider, model_id = str(definition.get("provider") or ""), str(definition.get("id") or "")
        if not provider.strip() or not model_id.strip():
            raise VirtualModelError("Virtual model provider and id must not be empty.")
        if physical is not None:
            raise VirtualModelError(f"Virtual model {provider}/{model_id} conflicts with a physical model.")
        route = definition.get("route")
        if not callable(route):
            raise VirtualModelError(f"Virtual model {provider}/{model_id}: route must be a function.")
        entry = create_virtual_model(cast(VirtualModelDefinition, definition))
        self._defs[(provider, model_id)] = (entry, cast(Router, route))

    def defined(self) -> bool:
        """Whether any virtual model is registered."""
        return bool(self._defs)

    def unregister(self, provider: str, model_id: str) -> bool:
        return self._defs.pop((provider, model_id), None) is not None

    def overlay(self, models: dict[str, list[Model]]) -> dict[str, list[Model]]:
        """``models`` with the virtual ones appended; a virtual id hides a physical one."""
        self._physical_providers = {p for p, listed in models.items() if listed}
        for (provider, model_id), (entry, _route) in self._defs.items():
            bucket = [m for m in models.get(provider, []) if m["id"] != model_id]
            models[provider] = [*bucket, copy.deepcopy(entry)]
        return models

    def only_virtual(self, provider: str) -> bool:
        """A provider id that no physical provider uses: always available."""
        return provider not in self._physical_providers and any(p == provider for p, _ in self._defs)

    async def resolve(
        self,
        model: Model,
        messages: list[Mapping[str, object]],
        *,
        reason: RouteReason,
        thinking_level: str,
        state: object,
        failed: Mapping[str, object] | None,
        signal: object,
        get_physical: Callable[[str, str], Model | None],
        has_credentials: Callable[[str], bool],
    ) -> RoutedModel:
        name = f"Virtual model {model['provider']}/{model['id']}"
        registered = self._defs.get((model["provider"], model["id"]))
        if registered is None:
            raise VirtualModelError(f"{name} is not registered.")
        request: RouteRequest = {
            "model": copy.deepcopy(model),
            "thinkingLevel": thinking_level,
            "reason": reason,
            "messages": list(messages),
            "signal": signal,
        }
        if reason != "direct":
            request["state"] = state
        latest = find_latest_response(messages)
        previous = _physical_of(latest, get_physical)
        if previous is not None and latest is not None:
            request["previous"] = {"model": previous, "thinkingLevel": _level(latest)}
        failed_model = _physical_of(failed, get_physical)
        if failed_model is not None and failed is not None:
            request["failed"] = {"model": failed_model, "thinkingLevel": _level(failed), "message": failed}
        outcome = registered[1](request)
        result = await outcome if inspect.isawaitable(outcome) else outcome
        target_ref = result.get("model") if isinstance(result, Mapping) else None
        if not isinstance(target_ref, Mapping):
            raise VirtualModelError(f"{name} returned no model.")
        routed = f"{name} routed to {target_ref.get('provider')}/{target_ref.get('id')}"
        target = get_physical(str(target_ref.get("provider")), str(target_ref.get("id")))
        if target is None:
            raise VirtualModelError(f"{routed}, which is not a physical model.")
        if not has_credentials(target["provider"]):
            raise VirtualModelError(f"{routed}, which has no credentials.")
        wanted = str(result.get("thinkingLevel") or "off")
        level = cast(ThinkingLevel, wanted if is_thinking_level(wanted) else "off")
        return RoutedModel(target, clamp_thinking_level(target, level), result.get("state"))


def _physical_of(
    message: Mapping[str, object] | None, get_physical: Callable[[str, str], Model | None]
) -> Model | None:
    if message is None:
        return None
    return get_physical(str(message.get("provider")), str(message.get("model")))


def _level(message: Mapping[str, object]) -> str | None:
    level = message.get("thinkingLevel")
    return level if isinstance(level, str) else None


__all__ = [
    "VIRTUAL_MODEL_API",
    "VIRTUAL_MODEL_STATE_ENTRY",
    "RouteReason",
    "RouteRequest",
    "RouteResult",
    "RoutedModel",
    "RoutedPair",
    "Router",
    "VirtualModelDefinition",
    "VirtualModelError",
    "VirtualModels",
    "branch_state",
    "create_virtual_model",
    "find_latest_response",
    "is_user_turn",
    "is_virtual_model",
    "virtual_selection",
]
