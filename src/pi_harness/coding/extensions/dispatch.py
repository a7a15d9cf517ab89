"""Running an event's handlers: how one handler is called, and the loop over all of them.

Handlers run one after another, in extension load order and within one extension in
registration order. What their results mean is the business of a ``Combiner`` (``combine.py``);
what a raising handler means is the ``on_error`` policy: ``"report"`` sends the error to the
error channel and goes on as if the handler had returned nothing, ``"raise"`` lets it propagate
(the gates ``tool_call`` and ``user_bash`` fail closed: the tool call or command is blocked).
``handler_timeout_ms`` (beyond Pi, off by default) cancels a slow handler, which then counts as
having raised ``HandlerTimeout``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Iterable
from typing import Literal, Protocol, TypeVar

from pi_harness.coding.extensions.context import ExtensionContext
from pi_harness.coding.extensions.events import ExtensionEvent, normalize_result
from pi_harness.coding.extensions.registry import EventHandler

OnError = Literal["report", "raise"]


class HandlerTimeout(Exception):
    pass


class Combiner(Protocol):
    """Folds the results of one event's handlers into the event's outcome."""

    @property
    def event_type(self) -> str: ...

    def next_event(self) -> ExtensionEvent:
        """The event the next handler receives."""
        ...

    def take(self, result: object, extension_path: str) -> bool:
        """Fold in one handler's (normalised) result; True stops the remaining handlers."""
        ...


C = TypeVar("C", bound=Combiner)


class HandlerCaller:
    """Calls one handler with the arguments it accepts and waits for it (within the timeout)."""

    def __init__(
        self, make_context: Callable[[], ExtensionContext | None], timeout_ms: Callable[[], int | None]
    ) -> None:
        self._make_context = make_context
        self._timeout_ms = timeout_ms  # read at every call: the host may change it

    async def __call__(self, handler: EventHandler, event: ExtensionEvent, *, with_ctx: bool) -> object:
        # Handlers may be written ``(event)`` or ``(event, ctx)``; ctx is None where none exists
        # (``session_directory``, ``project_trust``, before binding).
        if _positional_arity(handler) < 2:
            result = handler(event)
        else:
            result = handler(event, self._make_context() if with_ctx else None)
        if inspect.isawaitable(result):
            result = await self._wait(result, event.type)
        return normalize_result(result)

    async def _wait(self, awaitable: Awaitable[object], event_type: str) -> object:
        timeout_ms = self._timeout_ms()
        if not timeout_ms:
            return await awaitable
        try:
            return await asyncio.wait_for(_as_coroutine(awaitable), timeout_ms / 1000)
        except TimeoutError as exc:
            raise HandlerTimeout(f"Extension handler for {event_type} timed out after {timeout_ms} ms") from exc


async def dispatch(
    handlers: Iterable[tuple[str, EventHandler]],
    combiner: C,
    call: HandlerCaller,
    report: Callable[[str, str, BaseException], None],
    *,
    on_error: OnError = "report",
    with_ctx: bool = True,
) -> C:
    """Run ``handlers`` (``(extension path, handler)`` pairs) into ``combiner``, which is returned."""
    for extension_path, handler in handlers:
        event = combiner.next_event()
        if on_error == "raise":
            result = await call(handler, event, with_ctx=with_ctx)
        else:
            try:
                result = await call(handler, event, with_ctx=with_ctx)
            except Exception as exc:
                report(extension_path, event.type, exc)
                continue
        if combiner.take(result, extension_path):
            break
    return combiner


_ARITY_CACHE: dict[object, int] = {}


def _positional_arity(handler: EventHandler) -> int:
    """How many positional arguments ``handler`` accepts (``*args`` counts as many)."""
    key = getattr(handler, "__func__", handler)
    cached = _ARITY_CACHE.get(key)
    if cached is not None:
        return cached
    try:
        params = inspect.signature(handler).parameters.values()
    except (TypeError, ValueError):
        return 2
    count = 0
    for param in params:
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            count = 99
            break
        if param.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            count += 1
    try:
        _ARITY_CACHE[key] = count
    except TypeError:
        pass
    return count


async def _as_coroutine(awaitable: Awaitable[object]) -> object:
    return await awaitable
