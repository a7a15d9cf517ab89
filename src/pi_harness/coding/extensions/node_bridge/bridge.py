"""One Node sidecar per extension runner: requests to it, messages from it, restarts.

Requests (an event for a handler, a tool call, a command) carry the session snapshot and wait
for their ``res``. If the process dies, every waiting request fails with ``SidecarDied`` (a tool
call then gets an ``isError`` result) and the next request starts a new process, which loads
the same extensions again under the same ids; registrations already known are not repeated.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
import weakref
from collections.abc import Callable
from dataclasses import dataclass

from pi_harness.agent.types import ToolUpdateCallback
from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.bus import EventBus
from pi_harness.coding.extensions.context import ExtensionContext
from pi_harness.coding.extensions.node_bridge import host_calls, proxies
from pi_harness.coding.extensions.node_bridge.protocol import (
    BridgedExtension,
    NodeExtensionError,
    SidecarDied,
    as_tool_result,
)
from pi_harness.coding.extensions.node_bridge.sidecar import Message, Sidecar
from pi_harness.coding.extensions.node_bridge.snapshot import SnapshotTracker


@dataclass
class _Waiting:
    future: asyncio.Future[Message]
    ctx: ExtensionContext | None
    on_update: ToolUpdateCallback | None


class _ProcessHolder:
    """Owns the current process; closed when its runner's bus is collected (no reference back)."""

    def __init__(self) -> None:
        self.sidecar: Sidecar | None = None

    def close(self) -> None:
        if self.sidecar is not None:
            self.sidecar.close()
            self.sidecar = None


class NodeBridge:
    def __init__(self, node: str) -> None:
        self.node = node
        self.extensions: dict[str, BridgedExtension] = {}
        self.holder = _ProcessHolder()
        self.last_ctx: ExtensionContext | None = None
        self.notices: list[str] = []
        self._ids = itertools.count(1)
        self._ext_ids = itertools.count(1)
        self._waiting: dict[int, _Waiting] = {}
        self._host_tasks: dict[int, asyncio.Task[None]] = {}
        self._snapshot = SnapshotTracker()
        self._starting: asyncio.Future[None] | None = None

    # -- process ---------------------------------------------------------------------------------

    async def _ensure(self) -> Sidecar:
        sidecar = self.holder.sidecar
        if sidecar is not None and sidecar.alive and self._starting is None:
            return sidecar
        if self._starting is not None:
            await asyncio.shield(self._starting)
            assert self.holder.sidecar is not None
            return self.holder.sidecar
        loop = asyncio.get_running_loop()
        self._starting = loop.create_future()
        try:
            self._snapshot.reset()
            me = weakref.ref(self)
            sidecar = Sidecar(
                self.node,
                loop,
                lambda message: _call(me, lambda b: b._on_message(message)),
                lambda: _call(me, lambda b: b._on_exit()),
            )
            self.holder.sidecar = sidecar
            await sidecar.ready
            # A restart: load every extension again (their ids and handler numbers are the same).
            for record in list(self.extensions.values()):
                if record.registered:
                    await self._send_load(sidecar, record)
            self._starting.set_result(None)
        except BaseException as exc:
            self._starting.set_exception(exc)
            self._starting.exception()  # retrieved here: the waiters get it through shield
            raise
        finally:
            self._starting = None
        return sidecar

    async def _send_load(self, sidecar: Sidecar, record: BridgedExtension) -> None:
        request_id = next(self._ids)
        future = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = _Waiting(future, None, None)
        sidecar.send({"t": "load", "id": request_id, "ext": record.id, "path": record.path})
        self._result(await future)

    # -- requests --------------------------------------------------------------------------------

    async def load(self, path: str, api: ExtensionAPI) -> BridgedExtension:
        record = BridgedExtension(f"e{next(self._ext_ids)}", path, api)
        self.extensions[record.id] = record
        try:
            sidecar = await self._ensure()
            await self._send_load(sidecar, record)
        except BaseException:
            self.extensions.pop(record.id, None)
            raise
        record.registered.add(("loaded", ""))
        return record

    async def request(
        self,
        record: BridgedExtension,
        message: Message,
        ctx: ExtensionContext | None,
        *,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> Message:
        """Send ``message`` and return the sidecar's answer (raises ``NodeExtensionError``)."""
        sidecar = await self._ensure()
        if ctx is not None:
            self.last_ctx = ctx
        request_id = next(self._ids)
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = _Waiting(future, ctx, on_update)
        state = self._snapshot.build(ctx, record.api, record.flags)
        listener: Callable[[object], None] | None = None
        try:
            sidecar.send({**message, "id": request_id, "ext": record.id, "ctxState": state})
            if signal is not None:
                listener = lambda _reason: self._abort_remote(request_id)  # noqa: E731
                signal.add_listener(listener)  # called at once if already aborted
            return self._result(await future)
        except asyncio.CancelledError:
            self._abort_remote(request_id)
            raise
        except BrokenPipeError as exc:
            raise SidecarDied(str(exc)) from exc
        finally:
            self._waiting.pop(request_id, None)
            if signal is not None and listener is not None:
                signal.remove_listener(listener)

    def _abort_remote(self, request_id: int) -> None:
        sidecar = self.holder.sidecar
        if sidecar is not None and sidecar.alive:
            try:
                sidecar.send({"t": "abort", "id": request_id})
            except BrokenPipeError:
                pass

    @staticmethod
    def _result(message: Message) -> Message:
        if message.get("ok"):
            return message
        stack = message.get("stack")
        raise NodeExtensionError(str(message.get("error") or "error"), stack if isinstance(stack, str) else None)

    def context_for(self, request_id: object) -> ExtensionContext | None:
        waiting = self._waiting.get(request_id) if isinstance(request_id, int) else None
        if waiting is not None and waiting.ctx is not None:
            return waiting.ctx
        return self.last_ctx

    # -- messages from the sidecar -----------------------------------------------------------------

    def _on_message(self, message: Message) -> None:
        kind = message.get("t")
        if kind == "res":
            waiting = self._waiting.get(_id(message))
            if waiting is not None and not waiting.future.done():
                waiting.future.set_result(message)
        elif kind == "update":
            waiting = self._waiting.get(_id(message))
            value = message.get("value")
            if waiting is not None and waiting.on_update is not None and isinstance(value, dict):
                waiting.on_update(as_tool_result(value))
        elif kind == "reg":
            record = self.extensions.get(str(message.get("ext")))
            if record is not None:
                proxies.register(self, record, message)
        elif kind == "call":
            host_calls.handle(self, message)
        elif kind == "abort":
            task = self._host_tasks.get(_id(message))
            if task is not None:
                task.cancel()
        elif kind == "notice":
            self.notice(str(message.get("message")))

    def notice(self, text: str) -> None:
        """A one-line warning about something the bridge cannot do (each text once): through the
        session's UI when there is one (stderr would tear an interactive screen), else stderr."""
        if text in self.notices:
            return
        self.notices.append(text)
        ctx = self.last_ctx
        try:
            if ctx is not None and ctx.has_ui:
                ctx.ui.notify(text, "warning")
                return
        except Exception:
            pass  # a stale context: fall back to stderr
        print(f"Warning: {text}", file=sys.stderr)

    def track(self, request_id: int, task: asyncio.Task[None]) -> None:
        self._host_tasks[request_id] = task
        task.add_done_callback(lambda _t: self._host_tasks.pop(request_id, None))

    def reply(self, request_id: object, ok: bool, value: object = None, error: str | None = None) -> None:
        if request_id is None:
            if not ok:
                print(f"Warning: Node extension call failed: {error}", file=sys.stderr)
            return
        sidecar = self.holder.sidecar
        if sidecar is None or not sidecar.alive:
            return
        try:
            sidecar.send({"t": "res", "id": request_id, "ok": ok, "value": value, "error": error})
        except BrokenPipeError:
            pass

    def _on_exit(self) -> None:
        for waiting in list(self._waiting.values()):
            if not waiting.future.done():
                waiting.future.set_exception(SidecarDied("the Node extension host stopped"))
        for task in list(self._host_tasks.values()):
            task.cancel()


def _id(message: Message) -> int:
    value = message.get("id")
    return value if isinstance(value, int) else -1


def _call(ref: weakref.ref[NodeBridge], action: Callable[[NodeBridge], None]) -> None:
    bridge = ref()
    if bridge is not None:
        action(bridge)


_bridges: weakref.WeakKeyDictionary[EventBus, NodeBridge] = weakref.WeakKeyDictionary()


def bridge_for(api: ExtensionAPI, node: str) -> NodeBridge:
    """The bridge of ``api``'s runner (its event bus stands for it), started on first use."""
    bus = api.events
    bridge = _bridges.get(bus)
    if bridge is None:
        bridge = NodeBridge(node)
        _bridges[bus] = bridge
        weakref.finalize(bus, bridge.holder.close)
    return bridge


__all__ = ["NodeBridge", "bridge_for"]
