"""The RPC commands (listed in ``docs/rpc.md``): each maps a request to the session's API.

A handler returns the response ``data`` (``NO_DATA`` when the command returns nothing) or raises;
the exception text becomes ``{"success": false, "error": ...}``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_harness.agent.options import QueueMode
    from pi_harness.ai.types import ImageContent
    from pi_harness.coding.agent_session.agent_session import AgentSession
    from pi_harness.coding.session_runtime.runtime import AgentSessionRuntime

NO_DATA = object()

# A request as read from stdin: JSON, only read here.
Request = Mapping[str, object]
# A handler's response ``data`` is serialised as it is, never looked into.
Handler = Callable[["CommandContext", Request], Awaitable[object]]


class CommandError(Exception):
    pass


class CommandContext:
    def __init__(self, runtime: AgentSessionRuntime, request_id: str | None) -> None:
        self.runtime = runtime
        self.request_id = request_id

    @property
    def session(self) -> AgentSession:
        return self.runtime.session


def _text(command: Request, key: str = "message") -> str:
    value = command.get(key)
    if not isinstance(value, str):
        raise CommandError(f'"{key}" must be a string')
    return value


def _optional_text(command: Request, key: str) -> str | None:
    value = command.get(key)
    if value is not None and not isinstance(value, str):
        raise CommandError(f'"{key}" must be a string')
    return value


def _images(command: Request) -> list[ImageContent] | None:
    images = command.get("images")
    if images is None:
        return None
    # Checked here: a malformed image accepted into the session would break every later request.
    if not isinstance(images, list) or not all(_is_image(i) for i in images):
        raise CommandError('"images" must be an array of image content objects')
    return images


def _is_image(value: object) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") == "image"
        and isinstance(value.get("data"), str)
        and isinstance(value.get("mimeType"), str)
    )


async def prompt(ctx: CommandContext, command: Request) -> object:
    behaviour = command.get("streamingBehavior")
    if behaviour not in (None, "steer", "followUp"):
        raise CommandError('"streamingBehavior" must be "steer" or "followUp"')
    disposition = await ctx.session.start_prompt(
        _text(command), images=_images(command), streaming_behavior=behaviour, source="rpc"
    )
    return {"disposition": disposition}


async def steer(ctx: CommandContext, command: Request) -> object:
    # "queued", or "handled" when an extension's input handler took the text.
    return {"disposition": await ctx.session.steer(_text(command), _images(command), source="rpc")}


async def follow_up(ctx: CommandContext, command: Request) -> object:
    return {"disposition": await ctx.session.follow_up(_text(command), _images(command), source="rpc")}


async def abort(ctx: CommandContext, command: Request) -> object:
    await ctx.session.abort()
    return NO_DATA


async def clear_queue(ctx: CommandContext, command: Request) -> object:
    return ctx.session.clear_queue()


async def new_session(ctx: CommandContext, command: Request) -> object:
    return await ctx.runtime.new_session(_optional_text(command, "parentSession"))


async def get_state(ctx: CommandContext, command: Request) -> object:
    return ctx.session.get_state()


async def get_messages(ctx: CommandContext, command: Request) -> object:
    return {"messages": ctx.session.get_messages()}


async def set_model(ctx: CommandContext, command: Request) -> object:
    provider, model_id = command.get("provider"), command.get("modelId")
    model = next(
        (m for m in ctx.session.model_runtime.get_available() if m["provider"] == provider and m["id"] == model_id),
        None,
    )
    if model is None:
        raise CommandError(f"Model not found: {provider}/{model_id}")
    await ctx.session.set_model(model)
    return ctx.session.model


async def cycle_model(ctx: CommandContext, command: Request) -> object:
    return await ctx.session.cycle_model()


async def get_available_models(ctx: CommandContext, command: Request) -> object:
    return {"models": ctx.session.model_runtime.get_available()}


async def set_thinking_level(ctx: CommandContext, command: Request) -> object:
    ctx.session.set_thinking_level(_text(command, "level"))
    return NO_DATA


async def cycle_thinking_level(ctx: CommandContext, command: Request) -> object:
    level = ctx.session.cycle_thinking_level()
    return None if level is None else {"level": level}


async def get_available_thinking_levels(ctx: CommandContext, command: Request) -> object:
    return {"levels": ctx.session.get_available_thinking_levels()}


def _mode(command: Request) -> QueueMode:
    mode = command.get("mode")
    if mode == "all":
        return "all"
    if mode == "one-at-a-time":
        return "one-at-a-time"
    raise CommandError('"mode" must be "all" or "one-at-a-time"')


async def set_steering_mode(ctx: CommandContext, command: Request) -> object:
    ctx.session.set_steering_mode(_mode(command))
    return NO_DATA


async def set_follow_up_mode(ctx: CommandContext, command: Request) -> object:
    ctx.session.set_follow_up_mode(_mode(command))
    return NO_DATA


async def compact(ctx: CommandContext, command: Request) -> object:
    return await ctx.session.compact(_optional_text(command, "customInstructions"))


def _flag(command: Request, key: str = "enabled") -> bool:
    value = command.get(key)
    if not isinstance(value, bool):
        raise CommandError(f'"{key}" must be a boolean')
    return value


async def set_auto_compaction(ctx: CommandContext, command: Request) -> object:
    ctx.session.set_auto_compaction(_flag(command))
    return NO_DATA


async def set_auto_retry(ctx: CommandContext, command: Request) -> object:
    ctx.session.set_auto_retry(_flag(command))
    return NO_DATA


async def abort_retry(ctx: CommandContext, command: Request) -> object:
    ctx.session.abort_retry()
    return NO_DATA


async def bash(ctx: CommandContext, command: Request) -> object:
    return await ctx.session.run_bash(
        _text(command, "command"),
        exclude_from_context=bool(command.get("excludeFromContext", False)),
        request_id=ctx.request_id,
    )


async def abort_bash(ctx: CommandContext, command: Request) -> object:
    ctx.session.abort_bash()
    return NO_DATA


async def get_session_stats(ctx: CommandContext, command: Request) -> object:
    return ctx.session.get_session_stats()


async def export_html(ctx: CommandContext, command: Request) -> object:
    from pi_harness.cli.export import export_session_html

    path = export_session_html(ctx.session, _optional_text(command, "outputPath"))
    return {"path": str(path)}


async def switch_session(ctx: CommandContext, command: Request) -> object:
    return await ctx.runtime.switch_session(_text(command, "sessionPath"))


async def fork(ctx: CommandContext, command: Request) -> object:
    return await ctx.runtime.fork(_text(command, "entryId"))


async def clone(ctx: CommandContext, command: Request) -> object:
    return await ctx.runtime.clone()


async def get_fork_messages(ctx: CommandContext, command: Request) -> object:
    return {"messages": ctx.session.get_fork_messages()}


async def get_entries(ctx: CommandContext, command: Request) -> object:
    return ctx.session.get_entries(_optional_text(command, "since"))


async def get_tree(ctx: CommandContext, command: Request) -> object:
    return {"tree": ctx.session.get_tree(), "leafId": ctx.session.session_manager.get_leaf_id()}


async def get_last_assistant_text(ctx: CommandContext, command: Request) -> object:
    return {"text": ctx.session.get_last_assistant_text()}


async def set_session_name(ctx: CommandContext, command: Request) -> object:
    name = command.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CommandError("Session name cannot be empty")
    ctx.session.set_session_name(name)
    return NO_DATA


async def get_commands(ctx: CommandContext, command: Request) -> object:
    return {"commands": ctx.session.get_commands()}


COMMANDS: dict[str, Handler] = {
    "prompt": prompt,
    "steer": steer,
    "follow_up": follow_up,
    "abort": abort,
    "clear_queue": clear_queue,
    "new_session": new_session,
    "get_state": get_state,
    "get_messages": get_messages,
    "set_model": set_model,
    "cycle_model": cycle_model,
    "get_available_models": get_available_models,
    "set_thinking_level": set_thinking_level,
    "cycle_thinking_level": cycle_thinking_level,
    "get_available_thinking_levels": get_available_thinking_levels,
    "set_steering_mode": set_steering_mode,
    "set_follow_up_mode": set_follow_up_mode,
    "compact": compact,
    "set_auto_compaction": set_auto_compaction,
    "set_auto_retry": set_auto_retry,
    "abort_retry": abort_retry,
    "bash": bash,
    "abort_bash": abort_bash,
    "get_session_stats": get_session_stats,
    "export_html": export_html,
    "switch_session": switch_session,
    "fork": fork,
    "clone": clone,
    "get_fork_messages": get_fork_messages,
    "get_entries": get_entries,
    "get_tree": get_tree,
    "get_last_assistant_text": get_last_assistant_text,
    "set_session_name": set_session_name,
    "get_commands": get_commands,
}

# Commands whose relative order matters: they are accepted one after another.
ORDERED = frozenset({"prompt", "steer", "follow_up", "abort", "clear_queue"})
# Commands that replace the session run one at a time: two at once would both dispose the same
# session, and the second would replace the first's new session without disposing it (its run's
# last events and its ``session_shutdown`` lost).
REPLACING = frozenset({"new_session", "switch_session", "fork", "clone"})
