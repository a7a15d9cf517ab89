"""Running one script: a worker slot, a worker process, tool calls back through the session.

Tool requests from the sandbox run as asyncio tasks through ``ctx.execute_tool`` (the session's
validation and ``tool_call``/``tool_result`` hooks, with this call as ``parentToolCallId``), so
``Promise.all`` in a script runs its calls in parallel. The deadline (``timeout_ms``) covers the
wait for a worker too; the worker enforces it inside the VM, and the host kills the worker when
it passes (or on abort), so no script outlives its call.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from asyncio import FIRST_COMPLETED
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.json_values import JsonObject
from pi_harness.extensions_builtin.codemode.output import arrange, finish
from pi_harness.extensions_builtin.codemode.pool import POOL, WORKER_WAIT_S
from pi_harness.extensions_builtin.codemode.source import OptionsError, parse_source

VM_MEMORY = 256 * 1024 * 1024
WORKER = Path(__file__).with_name("worker.py")
STREAM_LIMIT = 64 * 1024 * 1024  # one line may carry a large output item or result
KILL_GRACE_S = 0.5

Caller = Callable[[str, str, JsonObject], Awaitable[tuple[bool, object]]]


@dataclass
class Run:
    """What one script may reach, as the extension prepares it."""

    tools: list[tuple[str, str]]  # (identifier, tool name)
    catalog: list[dict[str, str]]
    store: dict[str, object]
    call: Caller  # (op, name or payload, args) -> (ok, value or error text)
    calls: list[tuple[str, str]] = field(default_factory=list)  # (name, status)


@dataclass
class Outcome:
    ok: bool
    content: list[JsonObject]
    writes: JsonObject | None
    details: JsonObject


def _header(ok: bool, started: float) -> JsonObject:
    title = "Script completed" if ok else "Script failed"
    return {"type": "text", "text": f"{title}\nWall time {time.monotonic() - started:.1f} seconds\nOutput:\n"}


def _summary(calls: list[tuple[str, str]]) -> str:
    if not calls:
        return "No tool calls were made."
    made = ", ".join(f"{name} ({status})" for name, status in calls)
    return f"Tool calls made before the failure (they are not undone): {made}"


def _failure(error: Mapping[str, object] | None, timeout_ms: int | None, calls: list[tuple[str, str]]) -> str:
    kind = error.get("kind") if error else "sandbox"
    text = str(error.get("text", "")) if error else "the worker ended without a result"
    if kind == "timeout":
        head = f"Script timed out: Execution timed out after {timeout_ms} ms"
    elif kind == "aborted":
        head = "Script aborted: the call was cancelled"
    elif kind == "sandbox":
        head = f"Script sandbox failed: {text}"
    else:
        head = text
    return f"{head}\n\n{_summary(calls)}"


async def execute_script(code: str, run: Run, signal: AbortSignal | None) -> Outcome:
    started = time.monotonic()
    try:
        source = parse_source(code)
    except OptionsError as exc:
        return Outcome(False, [_header(False, started), {"type": "text", "text": f"Script error:\n{exc}"}], None, {})
    deadline = started + source.timeout_ms / 1000 if source.timeout_ms is not None else None
    wait_s = WORKER_WAIT_S if deadline is None else min(WORKER_WAIT_S, max(0.0, deadline - time.monotonic()))
    if not await POOL.acquire(wait_s):
        reason = (
            f"Script timed out: Execution timed out after {source.timeout_ms} ms"
            " while waiting for a free codemode worker"
            if deadline is not None and time.monotonic() >= deadline
            else f"No codemode worker became free within {WORKER_WAIT_S:.0f} seconds"
        )
        text = f"Script error:\n{reason}\n\nThe script did not start."
        return Outcome(False, [_header(False, started), {"type": "text", "text": text}], None, {})
    try:
        return await _run_in_worker(
            source.code, source.max_output_tokens, source.timeout_ms, deadline, run, signal, started
        )
    finally:
        POOL.release()


async def _run_in_worker(
    code: str,
    max_output_tokens: int,
    timeout_ms: int | None,
    deadline: float | None,
    run: Run,
    signal: AbortSignal | None,
    started: float,
) -> Outcome:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-I",
        str(WORKER),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        limit=STREAM_LIMIT,
    )
    assert process.stdin is not None and process.stdout is not None
    items: list[JsonObject] = []
    tasks: set[asyncio.Task[None]] = set()
    done: Mapping[str, object] | None = None
    aborted = asyncio.Event()
    if signal is not None:
        if signal.aborted:
            aborted.set()
        signal.add_listener(lambda *_args: aborted.set())
    left = None if deadline is None else max(0.001, deadline - time.monotonic())
    init = {
        "code": code,
        "memory": VM_MEMORY,
        "timeout_s": left,
        "store": run.store,
        "tools": run.tools,
        "catalog": run.catalog,
    }
    process.stdin.write((json.dumps(init) + "\n").encode())

    async def answer(request: Mapping[str, object]) -> None:
        payload = json.loads(str(request.get("payload") or "null"))
        op = str(request.get("op"))
        index = -1
        if op == "call" and isinstance(payload, dict):
            run.calls.append((str(payload.get("name")), "running"))
            index = len(run.calls) - 1
        try:
            ok, value = await run.call(op, json.dumps(payload), payload if isinstance(payload, dict) else {})
        except Exception as exc:  # a failing host side rejects the script's promise, never hangs it
            ok, value = False, str(exc) or type(exc).__name__
        if index >= 0:
            run.calls[index] = (run.calls[index][0], "ok" if ok else "failed")
        text = (json.dumps(value) if value is not None else "") if ok else str(value)
        with contextlib.suppress(ConnectionError, RuntimeError):
            assert process.stdin is not None
            process.stdin.write((json.dumps({"id": request.get("id"), "ok": ok, "value": text}) + "\n").encode())
            await process.stdin.drain()

    stop = asyncio.ensure_future(aborted.wait())
    try:
        while done is None:
            timeout = None if deadline is None else deadline - time.monotonic() + KILL_GRACE_S
            if timeout is not None and timeout <= 0:
                done = {"type": "done", "ok": False, "error": {"kind": "timeout"}}
                break
            reading = asyncio.ensure_future(process.stdout.readline())
            finished, _pending = await asyncio.wait({reading, stop}, timeout=timeout, return_when=FIRST_COMPLETED)
            if reading not in finished:
                reading.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await reading
                if stop in finished:
                    done = {"type": "done", "ok": False, "error": {"kind": "aborted"}}
                continue
            try:
                line = reading.result()
                if not line:
                    done = {"type": "done", "ok": False, "error": {"kind": "sandbox", "text": "the worker exited"}}
                    break
                message = json.loads(line)
            except (ValueError, asyncio.LimitOverrunError) as exc:
                done = {
                    "type": "done",
                    "ok": False,
                    "error": {"kind": "sandbox", "text": f"unreadable worker output: {exc}"},
                }
                break
            if not isinstance(message, dict):
                done = {"type": "done", "ok": False, "error": {"kind": "sandbox", "text": "the worker exited"}}
                break
            if message.get("type") == "output":
                items.extend(message.get("items") or [])
                for request in message.get("requests") or []:
                    task = asyncio.ensure_future(answer(request))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
            elif message.get("type") == "done":
                done = message
    finally:
        stop.cancel()
        for task in list(tasks):
            task.cancel()
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        await process.wait()
    run.calls[:] = [(name, "cancelled" if status == "running" else status) for name, status in run.calls]
    ok = bool(done.get("ok"))
    if ok and done.get("value") is not None:
        items.append({"type": "text", "text": str(done.get("value"))})
    error_value = done.get("error")
    error = None if ok else _failure(error_value if isinstance(error_value, Mapping) else None, timeout_ms, run.calls)
    content, full_path = finish(arrange(items, error), max_output_tokens)
    details: JsonObject = {"toolCalls": [{"name": n, "status": s} for n, s in run.calls]}
    if full_path:
        details["fullOutputPath"] = full_path
    writes = done.get("writes") if ok else None
    return Outcome(ok, [_header(ok, started), *content], writes if isinstance(writes, dict) else None, details)
