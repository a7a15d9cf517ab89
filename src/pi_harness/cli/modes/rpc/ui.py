"""``ctx.ui`` over RPC (the ``extension_ui_request`` records of ``docs/rpc.md``).

Dialogs become ``extension_ui_request`` records answered by the client with
``extension_ui_response``; timeouts and abort signals are resolved on our side, so a client that
never answers cannot hang an extension beyond its timeout. Fire-and-forget requests (notify,
status, widget, title, editor text) need no answer; TUI-only features degrade to no-ops.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Mapping

from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.extensions.ui import HeadlessUI

# The client's ``extension_ui_response`` record, or none (cancelled, timed out, aborted, closed).
Answer = Mapping[str, object] | None


class RpcExtensionUI(HeadlessUI):
    """Dialogs and notices over the protocol; what RPC cannot show falls back to ``HeadlessUI``."""

    def __init__(self, send: Callable[[Mapping[str, object]], None]) -> None:
        self._send = send
        self._pending: dict[str, asyncio.Future[Mapping[str, object]]] = {}
        self._closed = False

    def handle_response(self, record: Mapping[str, object]) -> None:
        """An ``extension_ui_response`` from the client; unknown ids are ignored."""
        future = self._pending.pop(str(record.get("id")), None)
        if future is not None and not future.done():
            future.set_result(record)

    def close(self) -> None:
        """The client is gone (stdin ended, or a signal): open dialogs and later ones resolve
        with their defaults at once, so a handler waiting for an answer cannot hold up shutdown."""
        self._closed = True
        for future in self._pending.values():
            if not future.done():
                future.set_result({"cancelled": True})
        self._pending.clear()

    async def _ask(
        self, method: str, fields: Mapping[str, object], signal: AbortSignal | None, timeout: float | None
    ) -> Answer:
        if self._closed or (signal is not None and signal.aborted):
            return None
        request_id = str(uuid.uuid4())
        future: asyncio.Future[Mapping[str, object]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        record: dict[str, object] = {"type": "extension_ui_request", "id": request_id, "method": method, **fields}
        if timeout is not None:
            record["timeout"] = int(timeout * 1000)  # the protocol speaks milliseconds
        self._send(record)
        waiters: set[asyncio.Future[Mapping[str, object]] | asyncio.Future[None]] = {future}
        abort_waiter: asyncio.Future[None] | None = None
        if signal is not None:
            abort_waiter = asyncio.ensure_future(signal.wait())
            waiters.add(abort_waiter)
        try:
            done, _ = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if abort_waiter is not None:
                abort_waiter.cancel()
            self._pending.pop(request_id, None)
        if future in done:
            answer = future.result()
            return None if answer.get("cancelled") else answer
        return None

    async def _ask_text(self, method: str, fields: Mapping[str, object], signal: AbortSignal | None = None,
                        timeout: float | None = None) -> str | None:  # fmt: skip
        """A dialog whose answer is the client's ``value`` string."""
        answer = await self._ask(method, fields, signal, timeout)
        value = None if answer is None else answer.get("value")
        return value if isinstance(value, str) else None

    async def select(
        self, title: str, options: list[str], *, signal: AbortSignal | None = None, timeout: float | None = None
    ) -> str | None:
        return await self._ask_text("select", {"title": title, "options": list(options)}, signal, timeout)

    async def confirm(
        self, title: str, message: str = "", *, signal: AbortSignal | None = None, timeout: float | None = None
    ) -> bool:
        answer = await self._ask("confirm", {"title": title, "message": message}, signal, timeout)
        return answer is not None and answer.get("confirmed") is True

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,
    ) -> str | None:
        fields: dict[str, object] = {"title": title}
        if placeholder is not None:
            fields["placeholder"] = placeholder
        return await self._ask_text("input", fields, signal, timeout)

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        fields: dict[str, object] = {"title": title}
        if prefill is not None:
            fields["prefill"] = prefill
        return await self._ask_text("editor", fields)

    def notify(self, message: str, type: str = "info") -> None:
        self._send(
            {
                "type": "extension_ui_request",
                "id": str(uuid.uuid4()),
                "method": "notify",
                "message": message,
                "notifyType": type,
            }
        )

    def set_status(self, key: str, text: str | None) -> None:
        record: dict[str, object] = {
            "type": "extension_ui_request",
            "id": str(uuid.uuid4()),
            "method": "setStatus",
            "statusKey": key,
        }
        if text is not None:
            record["statusText"] = text
        self._send(record)

    def set_widget(self, key: str, lines: object, *, placement: str = "aboveEditor") -> None:
        record: dict[str, object] = {
            "type": "extension_ui_request",
            "id": str(uuid.uuid4()),
            "method": "setWidget",
            "widgetKey": key,
            "widgetPlacement": placement,
        }
        if isinstance(lines, list) and all(isinstance(line, str) for line in lines):
            record["widgetLines"] = lines
        elif lines is not None:
            return  # component factories cannot cross the protocol
        self._send(record)

    def set_title(self, title: str) -> None:
        self._send({"type": "extension_ui_request", "id": str(uuid.uuid4()), "method": "setTitle", "title": title})

    def set_editor_text(self, text: str) -> None:
        self._send({"type": "extension_ui_request", "id": str(uuid.uuid4()), "method": "set_editor_text", "text": text})

    def paste_to_editor(self, text: str) -> None:
        self.set_editor_text(text)

    def set_theme(self, theme: object) -> dict[str, object]:
        return {"success": False, "error": "Theme switching not supported in RPC mode"}
