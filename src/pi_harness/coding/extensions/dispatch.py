"""Running an event's handlers: how one handler is called, and the loop over all of them.

Handlers run one after another, in extension load order and within one extension in
registration order. What their results mean is the business of a ``Combiner`` (``combine.py``);
what a raising handler means is the ``on_error`` policy: ``"report"`` sends the error to the
error channel and goes on as if the handler had returned nothing, ``"raise"`` lets it propagate
(the gates ``tool_call`` and ``user_bash`` fail closed: the tool call or command is blocked).
``handler_timeout_ms`` (beyond Pi, off by default) cancels a slow handler, which then counts as
having raised ``HandlerTimeout``.

A handler is foreign code, so whatever it raises is its error, ``BaseException`` included: a
``SystemExit`` or a ``CancelledError`` of its own making is reported (or, for the gates, blocks)
like any other error. Only a cancellation of the task running the handlers (a real abort) and a
``KeyboardInterrupt`` propagate. Shutdown must win over every handler: ``interrupt()`` cancels
the handlers in flight (after a short grace) and bounds every later one (``session_shutdown``
included).
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


# Shutdown's bounds on extension handlers (see ``HandlerCaller.interrupt``).
CUT_AFTER_S = 0.5
LATE_HANDLER_S = 1.0
ALL_HANDLERS_S = 3.0


class HandlerTimeout(Exception):
    pass


class HandlerInterrupted(Exception):
    """The handler was still running when shutdown began, or ran past the shutdown deadline."""


class HandlerEscape(Exception):
    """A handler raised a ``BaseException`` that is not an abort (``SystemExit``, a stray
    ``CancelledError``); it stands in for it so the error policy applies."""


def as_handler_error(error: BaseException) -> Exception | None:
    """The error to apply the policy to, or None when ``error`` must propagate (a real abort)."""
    if isinstance(error, Exception):
        return error
    if isinstance(error, asyncio.CancelledError):
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            return None  # the run itself is being cancelled: not the handler's doing
    elif isinstance(error, (KeyboardInterrupt, GeneratorExit)):
        return None
    detail = str(error)
    escaped = HandlerEscape(f"{type(error).__name__}({detail})" if detail else type(error).__name__)
    escaped.__cause__ = error
    escaped.__traceback__ = error.__traceback__
    return escaped


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
        self._scopes: set[asyncio.Timeout] = set()  # the handlers being awaited
        self._cut: set[asyncio.Timeout] = set()
        self._deadline: float | None = None  # loop time; set by ``interrupt``

    def interrupt(self) -> None:
        """Shutdown has begun: the handlers awaited now get ``CUT_AFTER_S`` more (a dialog that
        shutdown has just answered can still finish), each later one ``LATE_HANDLER_S``, and all
        of them end within ``ALL_HANDLERS_S``."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        if self._deadline is None:
            self._deadline = now + ALL_HANDLERS_S
        for scope in list(self._scopes):
            self._cut.add(scope)
            when = scope.when()
            scope.reschedule(now + CUT_AFTER_S if when is None else min(when, now + CUT_AFTER_S))

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
        # The handler is awaited in the caller's task (the run task: code that asks "am I the
        # run?" must keep getting yes) under a timeout scope that ``interrupt`` can expire.
        loop = asyncio.get_running_loop()
        timeout_ms = self._timeout_ms()
        when = loop.time() + timeout_ms / 1000 if timeout_ms else None
        shutdown_limit = None
        if self._deadline is not None:
            shutdown_limit = min(self._deadline, loop.time() + LATE_HANDLER_S)
            when = shutdown_limit if when is None else min(when, shutdown_limit)
        scope = asyncio.timeout_at(when)
        try:
            async with scope:
                self._scopes.add(scope)
                try:
                    return await awaitable
                finally:
                    self._scopes.discard(scope)
        except TimeoutError as exc:
            if not scope.expired():
                raise  # the handler's own TimeoutError
            if scope in self._cut or (shutdown_limit is not None and when == shutdown_limit):
                raise HandlerInterrupted(f"Extension handler for {event_type} cut short by shutdown") from exc
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
        try:
            result = await call(handler, event, with_ctx=with_ctx)
        except BaseException as raised:
            error = as_handler_error(raised)
            if error is None:
                raise
            if on_error == "raise":
                if error is raised:
                    raise
                raise error from raised
            report(extension_path, event.type, error)
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
