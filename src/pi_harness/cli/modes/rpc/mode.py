"""The RPC loop (the protocol is described in ``docs/rpc.md``).

stdin is read by a thread (works for pipes, files and terminals alike) and split into records
on LF only. Every command runs in its own task, so several can be in flight and responses are
correlated by ``id``; prompt-family commands are accepted in arrival order. Output goes through
the non-blocking ``RecordWriter``. Shutdown: stdin EOF → abort, ``session_shutdown``, exit 0;
SIGTERM/SIGHUP/SIGINT → the same with 143/129/130 (``ShutdownGuard``: extension handlers are
cut short, a blocked loop ends the process); an extension's ``ctx.shutdown()`` → after the next
command has been answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING

import orjson

from pi_harness.cli.modes.common import ShutdownGuard, interrupt_extensions, kill_child_processes
from pi_harness.cli.modes.rpc.commands import COMMANDS, NO_DATA, ORDERED, REPLACING, CommandContext
from pi_harness.cli.modes.rpc.framing import LineSplitter
from pi_harness.cli.modes.rpc.ui import RpcExtensionUI
from pi_harness.cli.records import wire_event

if TYPE_CHECKING:
    from pi_harness.cli.output import Record, RecordWriter
    from pi_harness.coding.session_runtime.runtime import AgentSessionRuntime


async def stdin_chunks(fd: int = 0, on_eof: Callable[[], None] | None = None) -> AsyncIterator[bytes]:
    """Raw chunks of ``fd`` read by a daemon thread; ends at EOF (``on_eof`` is called from that
    thread at once, even while the event loop is blocked)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes | None] = asyncio.Queue()

    def pump() -> None:
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            if not chunk and on_eof is not None:
                on_eof()
            loop.call_soon_threadsafe(queue.put_nowait, chunk or None)
            if not chunk:
                return

    threading.Thread(target=pump, name="pi-rpc-stdin", daemon=True).start()
    while True:
        item = await queue.get()
        if item is None:
            return
        yield item


class RpcServer:
    def __init__(self, runtime: AgentSessionRuntime, writer: RecordWriter) -> None:
        self.runtime = runtime
        self.writer = writer
        self.ui = RpcExtensionUI(writer.write)
        self._order_lock = asyncio.Lock()
        self._replace_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self._unsubscribe: Callable[[], None] | None = None
        self._shutdown_requested = False
        self._exit = asyncio.Event()
        self._exit_code: list[int] = []
        self.guard = ShutdownGuard(self._on_signal)

    def _on_signal(self, code: int) -> None:
        if not self._exit_code:
            self._exit_code.append(code)
            self._exit.set()

    # -- output --------------------------------------------------------------------------------

    def send(self, record: Record) -> None:
        self.writer.write(record)

    def respond(self, command: str, request_id: object, *, data: object = NO_DATA, error: str | None = None) -> None:
        """The ``response`` record; ``request_id`` is echoed as the client sent it."""
        record: dict[str, object] = {}
        if request_id is not None:
            record["id"] = request_id
        record.update({"type": "response", "command": command, "success": error is None})
        if error is not None:
            record["error"] = error
        elif data is not NO_DATA:
            record["data"] = data
        self.send(record)

    # -- session wiring --------------------------------------------------------------------------

    async def attach(self) -> None:
        """Subscribe to the current session and bind its extensions to the RPC UI."""
        session = self.runtime.session
        if self._unsubscribe is not None:
            with contextlib.suppress(Exception):
                self._unsubscribe()
        self._unsubscribe = session.subscribe(self._on_event)
        session.extensions.on_error(lambda record: self.send({"type": "extension_error", **record.to_dict()}))
        await session.bind_extensions(ui=self.ui, has_ui=True, mode="rpc")

    def _on_event(self, event: Mapping[str, object]) -> None:
        record = wire_event(event)
        if record is not None:
            self.send(record)

    def request_shutdown(self) -> None:
        self._shutdown_requested = True

    # -- commands ---------------------------------------------------------------------------------

    def handle_line(self, line: str) -> None:
        if not line.strip():
            return
        try:
            record = orjson.loads(line)
            if not isinstance(record, dict):
                raise ValueError("expected a JSON object")
        except ValueError as exc:
            self.respond("parse", None, error=f"Failed to parse command: {exc}")
            return
        kind = record.get("type")
        if kind == "extension_ui_response":
            self.ui.handle_response(record)
            return
        request_id = record.get("id")
        if not isinstance(kind, str) or kind not in COMMANDS:
            self.respond(str(kind), request_id, error=f"Unknown command: {kind}")
            return
        task = asyncio.ensure_future(self._run_command(kind, record))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run_command(self, kind: str, record: Mapping[str, object]) -> None:
        request_id = record.get("id")
        handler = COMMANDS[kind]
        context = CommandContext(self.runtime, request_id if isinstance(request_id, str) else None)
        try:
            if kind in ORDERED:
                async with self._order_lock:
                    data = await handler(context, record)
            elif kind in REPLACING:
                async with self._replace_lock:
                    data = await handler(context, record)
            else:
                data = await handler(context, record)
        except Exception as exc:
            self.respond(kind, request_id, error=str(exc) or type(exc).__name__)
        else:
            self.respond(kind, request_id, data=data)
        if self._shutdown_requested or getattr(self.runtime, "shutdown_requested", False):
            await self.runtime.session.wait_for_idle()
            self._exit.set()

    # -- lifecycle ----------------------------------------------------------------------------------

    async def serve(self, chunks: AsyncIterator[bytes]) -> int:
        await self.attach()
        replaced = getattr(self.runtime, "on_session_replaced", None)
        if callable(replaced):
            replaced(lambda *_: asyncio.ensure_future(self.attach()))
        self.guard.install()

        async def read_all() -> None:
            splitter = LineSplitter()
            async for chunk in chunks:
                for line in splitter.feed(chunk):
                    self.handle_line(line)
            for line in splitter.finish():
                self.handle_line(line)

        reader = asyncio.ensure_future(read_all())
        exit_waiter = asyncio.ensure_future(self._exit.wait())
        try:
            try:
                await asyncio.wait({reader, exit_waiter}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                exit_waiter.cancel()
                reader.cancel()
            self.guard.arm(self._exit_code[0] if self._exit_code else 0)
            await self.shutdown()
        finally:
            self.guard.uninstall()
        return self._exit_code[0] if self._exit_code else 0

    async def shutdown(self) -> None:
        """Abort what runs, emit ``session_shutdown`` and flush every record."""
        interrupt_extensions(self.runtime)
        self.ui.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.runtime.session.abort(), 10)
        with contextlib.suppress(Exception):
            await self.runtime.shutdown()
        for task in list(self._tasks):
            task.cancel()
        kill_child_processes()
        self.guard.flushing()
        await self.writer.flush()


async def run_rpc_mode(runtime: AgentSessionRuntime, writer: RecordWriter, stdin_fd: int = 0) -> int:
    server = RpcServer(runtime, writer)
    return await server.serve(stdin_chunks(stdin_fd, on_eof=lambda: server.guard.arm(0)))
