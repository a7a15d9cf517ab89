"""The codemode worker: one process per script, running it in QuickJS (stdlib + ``quickjs`` only).

Started as ``python worker.py`` (not as a module of pi_harness, so it imports nothing of ours and
starts in ~20 ms). It reads one JSON line (the script and what it may reach), then speaks JSON
lines on stdin/stdout: it reports output and tool requests after every VM entry and waits for
``settle`` lines with the results. A process, not a thread, because the binding cannot interrupt a
VM from outside: a script stuck in a loop without ``timeout_ms`` is ended by killing its worker,
and a crash of the VM cannot take pi down.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

OUT_OF_MEMORY = "InternalError: out of memory"
NEVER_SETTLES = "The script waits on a promise that can never settle: no tool call is pending and there are no timers"


class Timeout(Exception):
    pass


def _send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _error_text(exc: BaseException, memory_hit: bool) -> str:
    text = str(exc).strip()
    if memory_hit or text in ("", "null") or "out of memory" in text:
        return OUT_OF_MEMORY if memory_hit or text in ("", "null") else text
    return text


def _limit_address_space(memory: int) -> None:
    """A backstop under the VM's own allocator limit: the process as a whole stays bounded."""
    try:
        import resource

        cap = memory + (1 << 30)
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY or soft > cap:
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ImportError, ValueError, OSError):
        pass


def run(init: dict[str, Any]) -> None:
    import quickjs  # type: ignore[import-untyped]  # the binding ships no type information

    memory = int(init["memory"])
    _limit_address_space(memory)
    timeout_s = init.get("timeout_s")
    deadline = time.monotonic() + float(timeout_s) if timeout_s is not None else None
    ctx = quickjs.Context()
    ctx.set_memory_limit(memory)

    def enter() -> None:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Timeout
            ctx.set_time_limit(left)

    def check() -> None:
        if deadline is not None and time.monotonic() >= deadline:
            raise Timeout

    seed = {"store": init["store"], "tools": init["tools"], "catalog": init["catalog"]}
    ctx.eval("globalThis.__pi_init = " + json.dumps(seed))
    ctx.eval((Path(__file__).with_name("prelude.js")).read_text(encoding="utf-8"))
    drain = ctx.eval("(() => __pi.drain())")
    settle = ctx.eval("((id, ok, json) => __pi.settle(id, ok, json))")

    def report() -> dict[str, Any]:
        enter()
        raw = drain()
        state: dict[str, Any] = json.loads(raw)
        _send({"type": "output", "items": state["out"], "requests": state["requests"]})
        return state

    try:
        try:
            enter()
            ctx.eval("__pi.run(async function () {\n" + init["code"] + "\n})")
        except quickjs.JSException as exc:
            check()
            _send({"type": "done", "ok": False, "error": {"kind": "script", "text": str(exc).strip()}})
            return
        while True:
            enter()
            while ctx.execute_pending_job():
                check()
                enter()
            check()
            state = report()
            if state["done"]:
                _send(
                    {
                        "type": "done",
                        "ok": state["ok"],
                        "value": state.get("value"),
                        "error": _script_error(state.get("error")),
                        "writes": state["writes"],
                    }
                )
                return
            if state["waiting"] == 0:
                _send({"type": "done", "ok": False, "error": {"kind": "script", "text": NEVER_SETTLES}})
                return
            line = sys.stdin.readline()
            if not line:
                return  # the host went away
            message = json.loads(line)
            enter()
            settle(int(message["id"]), bool(message["ok"]), str(message["value"]))
    except Timeout:
        _send({"type": "done", "ok": False, "error": {"kind": "timeout"}})
    except quickjs.StackOverflow as exc:
        _send({"type": "done", "ok": False, "error": {"kind": "script", "text": str(exc).strip()}})
    except (quickjs.JSException, MemoryError) as exc:
        if deadline is not None and time.monotonic() >= deadline:
            _send({"type": "done", "ok": False, "error": {"kind": "timeout"}})
            return
        used = _memory_used(ctx)
        hit = isinstance(exc, MemoryError) or used >= memory * 0.9 or str(exc).strip() in ("", "null")
        _send({"type": "done", "ok": False, "error": {"kind": "script", "text": _error_text(exc, hit)}})


def _script_error(error: dict[str, Any] | None) -> dict[str, Any] | None:
    if error is None:
        return None
    text = error.get("stack") or f"{error.get('name') or 'Error'}: {error.get('message')}"
    if error.get("message") in (None, "null", "") and error.get("name") in (None, "Error", "InternalError"):
        text = OUT_OF_MEMORY
    return {"kind": "script", "text": str(text).rstrip()}


def _memory_used(ctx: Any) -> int:
    try:
        usage = ctx.memory()
        return int(usage.get("memory_used_size", 0)) if isinstance(usage, dict) else 0
    except Exception:
        return 0


def main() -> None:
    line = sys.stdin.readline()
    if not line:
        return
    try:
        run(json.loads(line))
    except Exception as exc:  # the sandbox itself failed (not the script): say so and exit
        _send({"type": "done", "ok": False, "error": {"kind": "sandbox", "text": f"{type(exc).__name__}: {exc}"}})


if __name__ == "__main__":
    main()
