"""User shell commands in a live session: ``!cmd``, ``!!cmd`` and RPC ``bash``.

Running the command itself is ``pi_harness.coding.tools.user_bash`` (the bash tool's process
handling); this part decides who runs it and where the result goes. The extension event
``user_bash {command, excludeFromContext, cwd}`` goes first: a handler may return ``{result}``
(the command is handled) or ``{operations}`` (a custom executor); a raising handler blocks the
command (1.4.0: no fallback to local execution). Otherwise the bash tool's runner executes it
with the session's shell settings and environment. Output streams as
``bash_execution_update {id?, delta}``.

Secrets in the output are masked (``security.maskSecrets``): in every streamed chunk and in the
result, whoever ran the command. The result is stored as a ``bashExecution`` message (``!!`` ⇒
``excludeFromContext``), so the model sees it with the next prompt. While a run is active the
message is held and appended when the run settles, because inserting it between a tool call and
its result breaks providers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from pi_harness.agent.types import BashExecutionMessage
from pi_harness.ai.abort import AbortController
from pi_harness.coding.agent_session.session_errors import SessionError
from pi_harness.coding.agent_session.session_events import BashExecutionUpdateEvent
from pi_harness.coding.agent_session.session_state import RUNTIME_PATH, SessionState

if TYPE_CHECKING:  # the bash runner loads on the first ``!command`` (startup does not need it)
    from pi_harness.coding.tools import BashExecutionResult, BashOperations, ToolOptions


def shell_environment(state: SessionState) -> dict[str, str]:
    """What every shell command of the session (the bash tool's and the user's) finds in its
    environment: the session and the model it runs under."""
    model = state.model
    session_file = state.manager.get_session_file()
    return {
        "PI_SESSION_ID": state.manager.get_session_id(),
        "PI_SESSION_FILE": str(session_file) if session_file is not None else "",
        "PI_PROVIDER": model["provider"] if model is not None else "",
        "PI_MODEL": model["id"] if model is not None else "",
        "PI_REASONING_LEVEL": state.thinking_level,
    }


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


def execution_result(message: BashExecutionMessage) -> BashExecutionResult:
    """What ``run_bash`` answers: the record's data without its role, command and timestamp."""
    result: BashExecutionResult = {
        "output": message["output"],
        "exitCode": message["exitCode"],
        "cancelled": message["cancelled"],
        "truncated": message["truncated"],
    }
    if "fullOutputPath" in message:
        result["fullOutputPath"] = message["fullOutputPath"]
    return result


class UserShell:
    def __init__(self, state: SessionState, tool_options: ToolOptions) -> None:
        self._state = state
        self._tool_options = tool_options
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
    ) -> dict[str, object]:
        """Run ``command`` (or let a ``user_bash`` handler) and store the result; returns
        ``{output, exitCode, cancelled, truncated, fullOutputPath?}``."""
        state = self._state
        operations: BashOperations | None = None
        result: BashExecutionResult | None = None
        extensions = state.extensions
        if extensions.has_handlers("user_bash"):
            payload: dict[str, object] = {
                "command": command,
                "excludeFromContext": exclude_from_context,
                "cwd": state.cwd,
            }
            try:
                answer = await extensions.emit_user_bash(payload)
            except Exception as error:
                extensions.report(RUNTIME_PATH, "user_bash", error)
                raise SessionError(f"Command blocked by an extension: {error}") from error
            if answer:
                if isinstance(answer.get("result"), dict):
                    result = cast("BashExecutionResult", dict(answer["result"]))
                elif answer.get("operations") is not None:
                    operations = cast("BashOperations", answer["operations"])
        masker = state.masker.snapshot()
        if result is None:
            result = await self._execute(command, operations, on_delta, request_id, masker.text)
        result = masker.value(result)
        message = bash_message(command, result, exclude_from_context)
        if state.busy:
            self.buffered.append(message)
        else:
            await self._append(message)
        return dict(execution_result(message))

    async def _execute(
        self,
        command: str,
        operations: BashOperations | None,
        on_delta: Callable[[str], None] | None,
        request_id: str | None,
        mask: Callable[[str], str],
    ) -> BashExecutionResult:
        state = self._state

        def on_data(text: str) -> None:
            text = mask(text)
            event: BashExecutionUpdateEvent = {"type": "bash_execution_update", "delta": text}
            if request_id is not None:
                event["id"] = request_id
            state.events.emit_soon(event)
            if on_delta is not None:
                on_delta(text)

        from pi_harness.coding.tools.user_bash import execute_bash

        controller = self._controller = AbortController()
        try:
            return await execute_bash(
                command,
                state.cwd,
                signal=controller.signal,
                on_data=on_data,
                options=self._tool_options,
                operations=operations,
            )
        finally:
            self._controller = None

    async def _append(self, message: BashExecutionMessage) -> None:
        state = self._state
        state.manager.append_message(message)
        state.agent.append_message(message)

    async def flush(self) -> None:
        """Append the results held while a run was active."""
        held, self.buffered = self.buffered, []
        for message in held:
            await self._append(message)

    def abort(self) -> None:
        if self._controller is not None:
            self._controller.abort()


__all__ = ["UserShell", "bash_message", "execution_result", "shell_environment"]
