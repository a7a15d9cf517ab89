"""Slash commands about models and credentials: ``/model``, ``/scoped-models``, ``/thinking``,
``/login`` and ``/logout``.

The handlers of ``/login`` and ``/logout`` live in ``cmd_login.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, cast

from pi_harness.ai.types import THINKING_LEVELS, Model
from pi_harness.cli.modes.interactive.builtin import Builtin, complete_from
from pi_harness.cli.modes.interactive.cmd_login import login, logout
from pi_harness.cli.modes.interactive.scoped_models import ScopedModelsView, ScopeKeys
from pi_harness.cli.modes.interactive.shell import Overlay
from pi_harness.coding.model_resolver import ModelResolutionError, resolve_model_pattern
from pi_harness.tui.components.autocomplete import CompletionItem
from pi_harness.tui.components.model_selector import ModelSelector, model_key
from pi_harness.tui.components.selector import SelectItem, Selector
from pi_harness.tui.components.thinking_selector import ThinkingChoice, ThinkingSelector

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext


def _describe(model: Mapping[str, object]) -> str:
    return f"{model.get('provider')}/{model.get('id')}"


async def _choose(mode: ModeContext, title: str, values: list[str], current: str | None = None) -> str | None:
    context = mode.shell.context

    def build(done: Callable[[str | None], None]) -> Overlay:
        items = [SelectItem(value, value) for value in values]
        return Selector(items, context, title=title, on_select=done, on_cancel=lambda: done(None), initial=current)

    return await mode.shell.ask(build)


async def model(mode: ModeContext, args: str) -> None:
    shell = mode.shell
    session = mode.session
    available = session.model_runtime.get_available()
    if args.strip():
        try:
            match = resolve_model_pattern(available, args.strip())
        except ModelResolutionError as error:
            shell.notice("error", str(error))
            return
        await session.set_model(match.model)
        if match.thinking_level is not None:
            session.set_thinking_level(match.thinking_level)
        shell.notice("success", f"Model: {_describe(match.model)}")
        return
    if not available:
        shell.notice("warning", "No model has credentials. Store an API key with /login <provider>.")
        return
    current = session.model
    saved: list[Mapping[str, object]] = []
    context = shell.context

    settings = session.settings
    default_provider, default_id = settings.get("defaultProvider"), settings.get("defaultModel")
    default = f"{default_provider}/{default_id}" if default_provider and default_id else None
    scoped = [model_key(scoped_model) for scoped_model, _level in session.models.scoped]

    def build(done: Callable[[Mapping[str, object] | None], None]) -> Overlay:
        return ModelSelector(
            available, context, current=model_key(current) if current is not None else None, default=default,
            scoped=scoped, on_select=done, on_save_default=saved.append, on_cancel=lambda: done(None),
        )  # fmt: skip

    chosen = await shell.ask(build)
    if chosen is None:
        return
    await session.set_model(cast(Model, dict(chosen)))
    text = f"Model: {_describe(chosen)}"
    if saved:
        session.settings.set("defaultProvider", chosen.get("provider"))
        session.settings.set("defaultModel", chosen.get("id"))
        text += " (saved as the default for new sessions)"
    shell.notice("success", text)


async def scoped_models(mode: ModeContext, args: str) -> None:
    shell = mode.shell
    session = mode.session
    available = session.model_runtime.get_available()
    if not available:
        shell.notice("warning", "No model has credentials. Store an API key with /login <provider>.")
        return
    enabled = [model_key(model) for model, _level in session.models.scoped]
    context = shell.context
    by_key = {model_key(model): model for model in available}

    def apply(keys: ScopeKeys) -> None:  # each change, for this session (Pi's onChange)
        session.set_scoped_models([(by_key[key], None) for key in keys if key in by_key])
        shell.refresh()

    def save(keys: ScopeKeys) -> None:  # the view stays open (Pi's onPersist)
        session.settings.set("enabledModels", keys or None)
        shell.notice("dim", "Model selection saved to settings")

    def build(done: Callable[[None], None]) -> ScopedModelsView:
        return ScopedModelsView(available, enabled, context, on_change=apply, on_save=save, on_done=done)

    await shell.ask(build)


async def thinking(mode: ModeContext, args: str) -> None:
    """``/thinking [level]``: set the level, or choose it in the selector, where
    ``app.thinking.save`` also keeps it as ``defaultThinkingLevel``."""
    shell = mode.shell
    session = mode.session
    levels = session.get_available_thinking_levels()
    wanted = args.strip()
    if wanted:
        # Any known level; the session clamps it to the model's (ours: Pi refuses a level the model lacks).
        level = next((known for known in THINKING_LEVELS if known == wanted.lower()), None)
        if level is None:
            shell.notice("error", f"Unknown thinking level {wanted!r}; use one of {', '.join(levels)}")
            return
        choice: ThinkingChoice | None = ThinkingChoice(level, as_default=False)
    else:
        context = shell.context
        default_level = session.settings.values.default_thinking_level

        def build(done: Callable[[ThinkingChoice | None], None]) -> Overlay:
            return ThinkingSelector(
                levels, context, current=session.thinking_level, default_level=default_level, on_done=done
            )

        choice = await shell.ask(build)
    if choice is None:
        return
    session.set_thinking_level(choice.level)
    if not choice.as_default:
        shell.notice("success", f"Thinking level: {session.thinking_level}")
        return
    try:
        session.settings.set("defaultThinkingLevel", choice.level)
    except (OSError, RuntimeError) as error:
        shell.notice("error", f"Could not save the default thinking level: {error}")
        return
    shell.notice("success", f"Default thinking level: {choice.level}")


def _model_arguments(mode: ModeContext, prefix: str) -> list[CompletionItem]:
    keys = [_describe(m) for m in mode.session.model_runtime.get_available()]
    lowered = prefix.lower()
    return [CompletionItem(key, key) for key in keys if lowered in key.lower()][:50]


def _level_arguments(mode: ModeContext, prefix: str) -> list[CompletionItem]:
    return complete_from(mode.session.get_available_thinking_levels(), prefix)


def _provider_arguments(mode: ModeContext, prefix: str) -> list[CompletionItem]:
    return complete_from(sorted(mode.session.model_runtime.get_providers()), prefix)


def _stored_arguments(mode: ModeContext, prefix: str) -> list[CompletionItem]:
    return complete_from(sorted(mode.session.model_runtime.auth.read_all()), prefix)


COMMANDS = [
    Builtin("model", "Choose the model", model, arguments=_model_arguments),
    Builtin("scoped-models", "Choose the models Ctrl+P cycles through", scoped_models),
    Builtin("thinking", "Set the thinking level", thinking, arguments=_level_arguments),
    Builtin("login", "Sign in to a provider or store its API key", login, arguments=_provider_arguments),
    Builtin("logout", "Remove a provider's stored credentials", logout, arguments=_stored_arguments),
]
