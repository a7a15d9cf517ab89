"""User shell commands: ``!cmd``, ``!!cmd`` and RPC ``bash`` (agent-loop.md 5.4, extensions.md 4.5).

The extension event ``user_bash {command, excludeFromContext, cwd}`` goes first: a handler may
return ``{result}`` (the command is handled) or ``{operations}`` (a custom executor); a raising
handler blocks the command (1.4.0: no fallback to local execution). Otherwise the bash tool's
runner executes it with the session's shell settings and environment. Output streams as
``bash_execution_update {id?, delta}``.

The result is stored as a ``bashExecution`` message (``!!`` ⇒ ``excludeFromContext``), so the
model sees it with the next prompt. While a run is active the message is held and appended when
the run settles, because inserting it between a tool call and its result breaks providers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from pi_harness.agent.types import BashExecutionMessage
from pi_harness.ai.abort import AbortController
from pi_harness.coding.agent_session.errors import SessionError
from pi_harness.coding.tools import BashExecutionResult, BashOperations, execute_bash

if TYPE_CHECKING:
    from pi_harness.coding.agent_session.agent_session import AgentSession


def bash_message(command: str, result: BashExecutionResult, exclude_from_context: bool) -> BashExecutionMessage:
    message: BashExecutionMessage = {
        "role": "bashExecution",
        "command": command,
        "output": result.get("output") or "",
        "exitCode": result.get("exitCode"),
        "cancelled": bool(result.get("cancelled")),
        "truncated": bool(result.get("truncated")),
        "timestamp": int(time.time() * 1000),
    }
    if result.get("fullOutputPath"):
        message["fullOutputPath"] = str(result["fullOutputPath"])
    if exclude_from_context:
        message["excludeFromContext"] = True
    return message


class UserBash:
    def __init__(self, session: AgentSession) -> None:
        self._session = session
        self.buffered: list[BashExecutionMessage] = []
        self._controller: AbortController | None = None

    @property
    def running(self) -> bool:
        return self._controller is not None

    async def run(
        self,
        command: str,
        *,
        exclude_from_context: bool = False,
        on_delta: Callable[[str], None] | None = None,
        request_id: str | None = None,
    ) -> dict[str, Any]:
        session = self._session
        operations: BashOperations | None = None
        result: BashExecutionResult | None = None
        extensions = session.extensions
        if extensions.has_handlers("user_bash"):
            payload = {"command": command, "excludeFromContext": exclude_from_context, "cwd": session.cwd}
            try:
                answer = await extensions.emit_user_bash(payload)
            except Exception as error:
                extensions.report("<runtime>", "user_bash", error)
                raise SessionError(f"Command blocked by an extension: {error}") from error
            if answer:
                if isinstance(answer.get("result"), dict):
                    result = cast(BashExecutionResult, dict(answer["result"]))
                elif answer.get("operations") is not None:
                    operations = cast(BashOperations, answer["operations"])
        if result is None:
            result = await self._execute(command, operations, on_delta, request_id)
        message = bash_message(command, result, exclude_from_context)
        if session.is_streaming:
            self.buffered.append(message)
        else:
            await self._append(message)
        out: dict[str, Any] = {
            "output": message["output"],
            "exitCode": message["exitCode"],
            "cancelled": message["cancelled"],
            "truncated": message["truncated"],
        }
        if "fullOutputPath" in message:
            out["fullOutputPath"] = message["fullOutputPath"]
        return out

    async def _execute(
        self,
        command: str,
        operations: BashOperations | None,
        on_delta: Callable[[str], None] | None,
        request_id: str | None,
    ) -> BashExecutionResult:
        session = self._session

        def on_data(text: str) -> None:
            event: dict[str, Any] = {"type": "bash_execution_update", "delta": text}
            if request_id is not None:
                event["id"] = request_id
            session.listeners.emit_soon(event)
            if on_delta is not None:
                on_delta(text)

        controller = self._controller = AbortController()
        try:
            return await execute_bash(
                command,
                session.cwd,
                signal=controller.signal,
                on_data=on_data,
                options=session.tool_options,
                operations=operations,
            )
        finally:
            self._controller = None

    async def _append(self, message: BashExecutionMessage) -> None:
        session = self._session
        entry_id = session.session_manager.append_message(message)
        session.agent.append_message(message)
        await session.record_entry_async(entry_id)

    async def flush(self) -> None:
        """Append the results held while a run was active."""
        held, self.buffered = self.buffered, []
        for message in held:
            await self._append(message)

    def abort(self) -> None:
        if self._controller is not None:
            self._controller.abort()


__all__ = ["UserBash", "bash_message"]
