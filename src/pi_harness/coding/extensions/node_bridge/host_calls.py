"""What a JavaScript extension asks of the host: ``pi`` actions and ``ctx``/``ctx.ui`` calls.

A call with an id is answered with ``res``; one without (``notify`` from the JS side) is done in
order with the other messages and never answered. Calls that wait (dialogs, sending messages)
run as tasks, cancelled when the JS side aborts them (``abort`` with the call's id).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping
from typing import Literal, cast

from pi_harness.ai.types import Context, Model, UserContent
from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionCommandContext, ExtensionContext
from pi_harness.coding.extensions.node_bridge.protocol import Bridge, Message
from pi_harness.coding.extensions.ui import ExtensionUI, HeadlessUI

Args = list[object]
Call = Callable[[ExtensionAPI | None, ExtensionContext | None, Args], object]


def _arg(args: Args, index: int) -> object:
    return args[index] if index < len(args) else None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _names(value: object) -> list[str]:
    return [str(n) for n in value] if isinstance(value, list) else []


def _options(args: Args, index: int) -> Mapping[str, object]:
    value = _arg(args, index)
    return value if isinstance(value, dict) else {}


def _seconds(options: Mapping[str, object]) -> float | None:
    timeout = options.get("timeout")
    return timeout / 1000 if isinstance(timeout, int | float) else None


def _ui(ctx: ExtensionContext | None) -> ExtensionUI:
    return ctx.ui if ctx is not None else HeadlessUI()


def _need_api(api: ExtensionAPI | None) -> ExtensionAPI:
    if api is None:
        raise RuntimeError("this call needs an extension")
    return api


def _need_ctx(ctx: ExtensionContext | None) -> ExtensionContext:
    if ctx is None:
        raise RuntimeError("no session context is available for this call")
    return ctx


def _command_ctx(ctx: ExtensionContext | None) -> ExtensionCommandContext:
    if not isinstance(ctx, ExtensionCommandContext):
        raise RuntimeError("only command handlers may control the session")
    return ctx


def _deliver(options: Mapping[str, object]) -> Literal["steer", "followUp", "nextTurn"] | None:
    value = options.get("deliverAs")
    return value if value in ("steer", "followUp", "nextTurn") else None


async def _send_message(api: ExtensionAPI | None, _ctx: ExtensionContext | None, args: Args) -> None:
    options = _options(args, 1)
    message = _arg(args, 0)
    await _need_api(api).send_message(
        dict(message) if isinstance(message, dict) else {},
        trigger_turn=bool(options.get("triggerTurn")),
        deliver_as=_deliver(options),
    )


async def _send_user_message(api: ExtensionAPI | None, _ctx: ExtensionContext | None, args: Args) -> None:
    content = _arg(args, 0)
    deliver = _deliver(_options(args, 1))
    text: str | list[UserContent] = cast("list[UserContent]", content) if isinstance(content, list) else str(content)
    await _need_api(api).send_user_message(text, deliver_as=deliver if deliver != "nextTurn" else None)


async def _set_model(api: ExtensionAPI | None, ctx: ExtensionContext | None, args: Args) -> bool:
    wanted = _options(args, 0)
    found = _need_ctx(ctx).model_runtime.find(str(wanted.get("provider")), str(wanted.get("id")))
    model = found if found is not None else cast(Model, dict(wanted))
    return await _need_api(api).set_model(model)


async def _select(_api: ExtensionAPI | None, ctx: ExtensionContext | None, args: Args) -> object:
    options = _arg(args, 1)
    labels = [str(o) for o in options] if isinstance(options, list) else []
    return await _ui(ctx).select(str(_arg(args, 0)), labels, timeout=_seconds(_options(args, 2)))


async def _confirm(_api: ExtensionAPI | None, ctx: ExtensionContext | None, args: Args) -> object:
    return await _ui(ctx).confirm(str(_arg(args, 0)), str(_arg(args, 1) or ""), timeout=_seconds(_options(args, 2)))


async def _input(_api: ExtensionAPI | None, ctx: ExtensionContext | None, args: Args) -> object:
    return await _ui(ctx).input(str(_arg(args, 0)), _str(_arg(args, 1)), timeout=_seconds(_options(args, 2)))


async def _editor(_api: ExtensionAPI | None, ctx: ExtensionContext | None, args: Args) -> object:
    return await _ui(ctx).editor(str(_arg(args, 0)), _str(_arg(args, 1)))


def _compact(_api: ExtensionAPI | None, ctx: ExtensionContext | None, args: Args) -> None:
    _need_ctx(ctx).compact(_str(_arg(args, 0)))


async def _complete(_api: ExtensionAPI | None, ctx: ExtensionContext | None, args: Args) -> object:
    # ``ctx.modelRegistry.complete(model, context, options)``: one completion with the
    # session's credentials for that model; cancelled when the JS side aborts the call.
    from pi_harness.ai.api import complete_simple
    from pi_harness.ai.options import SimpleStreamOptions

    runtime = _need_ctx(ctx).model_runtime
    wanted = _options(args, 0)
    found = runtime.find(str(wanted.get("provider")), str(wanted.get("id")))
    model = found if found is not None else cast(Model, dict(wanted))
    options = _options(args, 2)
    max_tokens = options.get("maxTokens")
    stream_options = SimpleStreamOptions(
        api_key=runtime.get_api_key(model["provider"]),
        headers=runtime.get_request_headers(model) or None,
        max_tokens=max_tokens if isinstance(max_tokens, int) else None,
    )
    return await complete_simple(model, cast(Context, dict(_options(args, 1))), stream_options)


def _api_key(_api: ExtensionAPI | None, ctx: ExtensionContext | None, args: Args) -> object:
    model = _options(args, 0)
    return _need_ctx(ctx).model_runtime.get_api_key(str(model.get("provider")))


CALLS: dict[str, Call] = {
    "sendMessage": _send_message,
    "sendUserMessage": _send_user_message,
    "appendEntry": lambda api, _c, a: _need_api(api).append_entry(str(_arg(a, 0)), _arg(a, 1)),
    "setSessionName": lambda api, _c, a: _need_api(api).set_session_name(str(_arg(a, 0))),
    "setLabel": lambda api, _c, a: _need_api(api).set_label(str(_arg(a, 0)), _str(_arg(a, 1))),
    "setActiveTools": lambda api, _c, a: _need_api(api).set_active_tools(_names(_arg(a, 0))),
    "setThinkingLevel": lambda api, _c, a: _need_api(api).set_thinking_level(str(_arg(a, 0))),
    "setModel": _set_model,
    "models.getApiKey": _api_key,
    "models.complete": _complete,
    "models.getApiKeyAndHeaders": lambda api, c, a: {"apiKey": _api_key(api, c, a), "headers": {}},
    "ui.select": _select,
    "ui.confirm": _confirm,
    "ui.input": _input,
    "ui.editor": _editor,
    "ui.notify": lambda _a, c, a: _ui(c).notify(str(_arg(a, 0)), str(_arg(a, 1) or "info")),
    "ui.setStatus": lambda _a, c, a: _ui(c).set_status(str(_arg(a, 0)), _str(_arg(a, 1))),
    "ui.setWidget": lambda _a, c, a: _ui(c).set_widget(
        str(_arg(a, 0)), _arg(a, 1), placement=str(_arg(a, 2) or "aboveEditor")
    ),
    "ui.setWorkingMessage": lambda _a, c, a: _ui(c).set_working_message(_str(_arg(a, 0))),
    "ui.setTitle": lambda _a, c, a: _ui(c).set_title(str(_arg(a, 0))),
    "ui.setEditorText": lambda _a, c, a: _ui(c).set_editor_text(str(_arg(a, 0))),
    "ui.pasteToEditor": lambda _a, c, a: _ui(c).paste_to_editor(str(_arg(a, 0))),
    "abort": lambda _a, c, _args: _need_ctx(c).abort(),
    "shutdown": lambda _a, c, _args: _need_ctx(c).shutdown(),
    "compact": _compact,
    "waitForIdle": lambda _a, c, _args: _command_ctx(c).wait_for_idle(),
    "newSession": lambda _a, c, a: _command_ctx(c).new_session(_str(_arg(a, 0))),
    "fork": lambda _a, c, a: _command_ctx(c).fork(str(_arg(a, 0))),
    "navigateTree": lambda _a, c, a: _command_ctx(c).navigate_tree(str(_arg(a, 0)), **_options(a, 1)),
    "switchSession": lambda _a, c, a: _command_ctx(c).switch_session(str(_arg(a, 0))),
    "reload": lambda _a, c, _args: _command_ctx(c).reload(),
}


def handle(bridge: Bridge, message: Message) -> None:
    request_id = message.get("id")
    method = str(message.get("method"))
    raw_args = message.get("args")
    args: Args = list(raw_args) if isinstance(raw_args, list) else []
    record = bridge.extensions.get(str(message.get("ext")))
    api = record.api if record is not None else None
    ctx = bridge.context_for(message.get("ctx"))
    call = CALLS.get(method)
    if call is None:
        bridge.reply(request_id, False, error=f"unknown host call {method}")
        return
    try:
        result = call(api, ctx, args)
    except Exception as exc:
        bridge.reply(request_id, False, error=str(exc) or type(exc).__name__)
        return
    if not inspect.isawaitable(result):
        bridge.reply(request_id, True, _plain(result))
        return
    awaitable = result

    async def finish() -> None:
        try:
            value = await awaitable
        except asyncio.CancelledError:
            bridge.reply(request_id, False, error="aborted")
            raise
        except Exception as exc:
            bridge.reply(request_id, False, error=str(exc) or type(exc).__name__)
            return
        bridge.reply(request_id, True, _plain(value))

    task = asyncio.ensure_future(finish())
    if isinstance(request_id, int):
        bridge.track(request_id, task)


def _plain(value: object) -> object:
    if isinstance(value, Mapping):
        return dict(value)
    return value
