"""``ui_prompt_start``/``ui_prompt_end``: extensions hear when a dialog waits for the user.

The wrapper goes around a real user interface (not ``HeadlessUI``, whose dialogs answer at
once). Its five blocking dialogs (``select``, ``confirm``, ``input``, ``editor``, ``custom``)
emit ``{reason: "ui_prompt", kind, title?}`` before and after; a dialog opened while another is
open (a handler of the start event asking something itself) is part of the outer one and emits
nothing. Every other member is the wrapped UI's own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar, cast

from pi_harness.ai.abort import AbortSignal

if TYPE_CHECKING:
    from pi_harness.coding.extensions.ui import ExtensionUI

Emit = Callable[[str, dict[str, object]], Awaitable[None]]
R = TypeVar("R")


class PromptReportingUI:
    def __init__(self, inner: ExtensionUI, emit: Emit) -> None:
        self.inner = inner
        self._emit = emit
        self._depth = 0

    @staticmethod
    def around(inner: ExtensionUI, emit: Emit) -> ExtensionUI:
        # The wrapper has the protocol's members (the dialogs here, the rest via __getattr__).
        return cast("ExtensionUI", PromptReportingUI(inner, emit))

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    async def _prompt(self, kind: str, title: str | None, run: Callable[[], Awaitable[R]]) -> R:
        outer = self._depth == 0
        self._depth += 1
        payload: dict[str, object] = {"reason": "ui_prompt", "kind": kind}
        if title:
            payload["title"] = title
        try:
            if outer:
                await self._emit("ui_prompt_start", dict(payload))
            return await run()
        finally:
            self._depth -= 1
            if outer:
                await self._emit("ui_prompt_end", dict(payload))

    async def select(
        self, title: str, options: list[str], *, signal: AbortSignal | None = None, timeout: float | None = None
    ) -> str | None:
        return await self._prompt(
            "select", title, lambda: self.inner.select(title, options, signal=signal, timeout=timeout)
        )

    async def confirm(
        self, title: str, message: str = "", *, signal: AbortSignal | None = None, timeout: float | None = None
    ) -> bool:
        return await self._prompt(
            "confirm", title, lambda: self.inner.confirm(title, message, signal=signal, timeout=timeout)
        )

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,
    ) -> str | None:
        return await self._prompt(
            "input", title, lambda: self.inner.input(title, placeholder, signal=signal, timeout=timeout)
        )

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        return await self._prompt("editor", title, lambda: self.inner.editor(title, prefill))

    async def custom(
        self,
        factory: Callable[..., object],
        *,
        overlay: bool = False,
        overlay_options: object = None,
        on_handle: Callable[[object], None] | None = None,
    ) -> object:
        return await self._prompt(
            "custom",
            None,
            lambda: self.inner.custom(factory, overlay=overlay, overlay_options=overlay_options, on_handle=on_handle),
        )
