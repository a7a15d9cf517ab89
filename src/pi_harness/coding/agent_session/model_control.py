"""Model and thinking-level control of a session.

Changing the model writes a ``model_change`` entry, tells extensions (``model_select``) and
subscribers (``model_changed``), and re-clamps the thinking level. Thinking levels are clamped to
what the model supports (``off`` for models without reasoning); a change writes a
``thinking_level_change`` entry and emits ``thinking_level_changed``. Cycling goes through the
scoped models (``--models``/``enabledModels``) when there are any, else through every model
with credentials.

Initial thinking level: explicit > the session's record > the model's
``modelSettings["<provider>/<id>"].thinkingLevel`` > ``defaultThinkingLevel`` (``medium``),
clamped to the model.
"""

from __future__ import annotations

from typing import Literal, TypedDict, cast

from pi_harness.ai.thinking import DEFAULT_THINKING_LEVEL, clamp_thinking_level, is_thinking_level, supported_levels
from pi_harness.ai.types import Model, ThinkingLevel
from pi_harness.coding.agent_session.session_events import ModelChangedEvent, ThinkingLevelChangedEvent
from pi_harness.coding.agent_session.session_state import SessionState
from pi_harness.coding.config.settings import SettingsManager

ModelSource = Literal["set", "cycle", "restore"]
ScopedModel = tuple[Model, str | None]  # a model of ``--models``/``enabledModels`` and its thinking level


class CycledModel(TypedDict):
    """What ``cycle_model`` answers: the new model, its thinking level, and whether the cycle
    went through the scoped models."""

    model: Model | None
    thinkingLevel: ThinkingLevel
    isScoped: bool


def model_key(model: Model) -> str:
    return f"{model['provider']}/{model['id']}"


def clamp(model: Model | None, level: str) -> ThinkingLevel:
    """``level`` as ``model`` supports it; without a model nothing can think ("off", as in Pi)."""
    if model is None:
        return "off"
    wanted = cast(ThinkingLevel, level if is_thinking_level(level) else DEFAULT_THINKING_LEVEL)
    return clamp_thinking_level(model, wanted)


def resolve_thinking_level(
    model: Model | None,
    settings: SettingsManager,
    *,
    explicit: str | None = None,
    recorded: str | None = None,
) -> ThinkingLevel:
    per_model = settings.values.thinking_level_for(model_key(model) if model is not None else None)
    for candidate in (explicit, recorded, per_model):
        if is_thinking_level(candidate):
            return clamp(model, str(candidate))
    return clamp(model, settings.values.default_thinking_level)


def _same(a: Model | None, b: Model | None) -> bool:
    return a is not None and b is not None and a["provider"] == b["provider"] and a["id"] == b["id"]


class ModelControl:
    def __init__(self, state: SessionState, scoped: list[ScopedModel] | None = None) -> None:
        self._state = state
        self.scoped: list[ScopedModel] = list(scoped or [])

    @property
    def model(self) -> Model | None:
        return self._state.model

    @property
    def thinking_level(self) -> ThinkingLevel:
        return self._state.thinking_level

    def set_scoped(self, models: list[ScopedModel]) -> None:
        self.scoped = list(models)

    # -- models --------------------------------------------------------------------------------

    def check_credentials(self, model: Model) -> None:
        if not self._state.model_runtime.has_credentials(model["provider"]):
            raise ValueError(f"No API key found for {model['provider']}.")

    async def set_model(self, model: Model, source: ModelSource = "set") -> None:
        """Switch models (raises ``ValueError`` when the provider has no credentials)."""
        self.check_credentials(model)
        state = self._state
        previous = self.model
        state.agent.set_model(model)
        # Recorded even when the model stays the same, as Pi does.
        state.manager.append_model_change(model["provider"], model["id"])
        preferred = state.settings.values.thinking_level_for(model_key(model))
        self.set_thinking_level(preferred if preferred is not None else self.thinking_level)
        await state.extensions.emit("model_select", {"model": model, "previousModel": previous, "source": source})
        changed: ModelChangedEvent = {
            "type": "model_changed",
            "model": model,
            "previousModel": previous,
            "source": source,
        }
        await state.events.emit(changed)

    def candidates(self) -> tuple[list[ScopedModel], bool]:
        if self.scoped:
            return list(self.scoped), True
        return [(m, None) for m in self._state.model_runtime.get_available()], False

    async def cycle_model(self, direction: Literal["forward", "backward"] = "forward") -> dict[str, object] | None:
        """The next model: ``{model, thinkingLevel, isScoped}``, or ``None`` with one model or less."""
        models, scoped = self.candidates()
        if len(models) <= 1:
            return None
        current = self.model
        index = next((i for i, (m, _lvl) in enumerate(models) if _same(m, current)), -1)
        step = 1 if direction == "forward" else -1
        target, level = models[(index + step) % len(models)] if index >= 0 else models[0]
        await self.set_model(target, "cycle")
        if level is not None:
            self.set_thinking_level(level)
        cycled: CycledModel = {"model": self.model, "thinkingLevel": self.thinking_level, "isScoped": scoped}
        return dict(cycled)

    # -- thinking levels ---------------------------------------------------------------------------

    def available_thinking_levels(self) -> list[str]:
        model = self.model
        return list(supported_levels(model)) if model is not None else ["off"]

    def set_thinking_level(self, level: str) -> None:
        """Clamp to the model and record the change (no entry when nothing changed)."""
        if not is_thinking_level(level):
            raise ValueError(f"Invalid thinking level: {level}")
        state = self._state
        clamped = clamp(self.model, level)
        if clamped == self.thinking_level:
            return
        state.agent.set_thinking_level(clamped)
        state.manager.append_thinking_level_change(clamped)
        changed: ThinkingLevelChangedEvent = {"type": "thinking_level_changed", "level": clamped}
        state.events.emit_soon(changed)

    def cycle_thinking_level(self) -> str | None:
        """The next supported level (wrapping), or ``None`` for a model without reasoning."""
        levels = self.available_thinking_levels()
        if self.model is None or len(levels) <= 1:
            return None
        current = self.thinking_level
        index = levels.index(current) if current in levels else -1
        self.set_thinking_level(levels[(index + 1) % len(levels)])
        return self.thinking_level


__all__ = [
    "CycledModel",
    "ModelControl",
    "ScopedModel",
    "clamp",
    "model_key",
    "resolve_thinking_level",
]
