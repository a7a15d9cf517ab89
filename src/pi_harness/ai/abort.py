"""A small ``AbortController``/``AbortSignal`` pair shared by ai, agent and tools.

Task cancellation alone is not enough: a tool must be able to finish a file operation before it
honours the signal, so the signal is an explicit object that code checks or listens to.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable

# Called with the abort reason: whatever ``abort(reason)`` was given (a message string by default).
Listener = Callable[[object], None]


class AbortError(Exception):
    """Raised by code that gives up because its signal fired."""

    def __init__(self, message: str = "Operation aborted") -> None:
        super().__init__(message)


class AbortSignal:
    __slots__ = ("_aborted", "_listeners", "_reason", "_waiters")

    def __init__(self) -> None:
        self._aborted = False
        self._reason: object = None
        self._listeners: list[Listener] = []
        self._waiters: list[asyncio.Future[None]] = []

    @property
    def aborted(self) -> bool:
        return self._aborted

    @property
    def reason(self) -> object:
        return self._reason

    def add_listener(self, listener: Listener) -> None:
        """Call ``listener(reason)`` when the signal fires (at once if it already has)."""
        if self._aborted:
            listener(self._reason)
        else:
            self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        try:
            self._listeners.remove(listener)
        except ValueError:
            pass

    def throw_if_aborted(self) -> None:
        if self._aborted:
            raise AbortError(str(self._reason) if isinstance(self._reason, str) else "Operation aborted")

    async def wait(self) -> None:
        """Return once the signal has fired."""
        if self._aborted:
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        try:
            await fut
        finally:
            if fut in self._waiters:
                self._waiters.remove(fut)

    async def sleep(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; return ``False`` early if the signal fires."""
        if self._aborted:
            return False
        waiter = asyncio.ensure_future(self.wait())
        try:
            done, _ = await asyncio.wait({waiter}, timeout=max(0.0, seconds))
        finally:
            waiter.cancel()
        return not done

    def _fire(self, reason: object) -> None:
        if self._aborted:
            return
        self._aborted = True
        self._reason = reason
        listeners, self._listeners = self._listeners, []
        for listener in listeners:
            try:
                listener(reason)
            except Exception:  # a listener's failure must not stop the others
                pass
        for fut in self._waiters:
            if not fut.done():
                try:
                    fut.get_loop().call_soon_threadsafe(_resolve, fut)
                except RuntimeError:  # that waiter's event loop is already closed
                    pass

    @staticmethod
    def any(signals: Iterable[AbortSignal | None]) -> AbortSignal:
        """A signal that fires when any of ``signals`` fires."""
        controller = AbortController()
        for signal in signals:
            if signal is not None:
                signal.add_listener(controller.abort)
        return controller.signal

    @staticmethod
    def aborted_signal(reason: object = "Operation aborted") -> AbortSignal:
        controller = AbortController()
        controller.abort(reason)
        return controller.signal


def _resolve(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


class AbortController:
    __slots__ = ("signal",)

    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: object = "Operation aborted") -> None:
        self.signal._fire(reason)
