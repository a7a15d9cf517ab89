"""Shutdown wins over every extension handler: a hung ``await``, a synchronous ``time.sleep``.

Each test starts the real ``pi``, waits until the handler is stuck, asks pi to stop and checks the
exit code, that it came within ``EXIT_WITHIN_S`` (generous; the design bound is about 4 s) and
that the session file is whole.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable

import pytest
from _faults import EXIT_WITHIN_S, check_session, fault_extension, marks, wait_exit, wait_for_mark
from _pi_env import PiEnv
from _rpc_client import RpcClient

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep, ToolCallStep

StartRpc = Callable[..., RpcClient]
MODES = {"print": ["-p"], "json": ["--mode", "json"]}


def check_sessions(pi_env: PiEnv) -> None:
    for path in pi_env.sessions():
        check_session(path)


# A synchronous sleep costs ``BLOCKED_LOOP_EXIT_S`` per test: it is checked once per way to stop.
@pytest.mark.parametrize(
    ("mode", "signum", "code", "fault"),
    [
        ("print", signal.SIGTERM, 143, "hang"),
        ("print", signal.SIGINT, 130, "hang"),
        ("json", signal.SIGHUP, 129, "hang"),
        ("print", signal.SIGTERM, 143, "sleep"),
    ],
)
def test_signal_ends_print_and_json_despite_a_stuck_context_handler(
    pi_env: PiEnv, mode: str, signum: signal.Signals, code: int, fault: str
) -> None:
    extension, mark_file = fault_extension(pi_env.cwd, {"context": fault, "session_shutdown": "log"})
    pi_env.server.push(ScriptedResponse(steps=[TextStep("never")]))
    process = pi_env.popen("-e", str(extension), *MODES[mode], "go", stdin=subprocess.DEVNULL)
    try:
        wait_for_mark(mark_file, "context")
        process.send_signal(signum)
        assert wait_exit(process) == code
        if fault == "hang":  # the loop ran on: the graceful path, session_shutdown included
            assert "session_shutdown" in marks(mark_file)
        check_sessions(pi_env)
    finally:
        if process.poll() is None:
            process.kill()


@pytest.mark.parametrize(
    ("stop", "fault"),
    [
        ("SIGTERM", "hang"),
        ("SIGINT", "hang"),
        ("EOF", "hang"),
        ("SIGTERM", "sleep"),
        ("EOF", "sleep"),
        ("SIGTERM", "stubborn"),  # swallows its cancellation: ended by SHUTDOWN_EXIT_S
    ],
)
def test_rpc_ends_despite_a_stuck_context_handler(pi_env: PiEnv, start_rpc: StartRpc, stop: str, fault: str) -> None:
    extension, mark_file = fault_extension(pi_env.cwd, {"context": fault, "session_shutdown": "log"})
    pi_env.server.push(ScriptedResponse(steps=[TextStep("never")]))
    client = start_rpc("-e", str(extension))
    assert client.request("prompt", message="go")["success"] is True
    wait_for_mark(mark_file, "context")
    started = time.monotonic()
    if stop == "EOF":
        client.close_stdin()
    else:
        client.signal(signal.Signals[stop])
    expected = {"SIGTERM": 143, "SIGINT": 130, "EOF": 0}[stop]
    assert client.wait_exit(timeout=EXIT_WITHIN_S) == expected
    assert time.monotonic() - started < EXIT_WITHIN_S
    if fault == "hang":
        assert "session_shutdown" in marks(mark_file)
    check_sessions(pi_env)  # a stubborn handler ends in a forced exit before the LLM call: whole too


def test_hung_tool_call_handler_leaves_a_result_for_the_call(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    extension, mark_file = fault_extension(pi_env.cwd, {"tool_call": "hang", "session_shutdown": "hang"})
    command = {"command": "echo effect > effect.txt"}
    pi_env.server.push(ScriptedResponse(steps=[ToolCallStep("bash", command, id="call_1")]))
    pi_env.server.push(ScriptedResponse(steps=[TextStep("done")]))
    client = start_rpc("-e", str(extension))
    assert client.request("prompt", message="go")["success"] is True
    wait_for_mark(mark_file, "tool_call")
    client.signal(signal.SIGTERM)
    assert client.wait_exit(timeout=EXIT_WITHIN_S) == 143
    assert "session_shutdown" in marks(mark_file)  # ran, hung too, and was cut short as well
    assert not (pi_env.cwd / "effect.txt").exists()  # fail closed
    (session,) = pi_env.sessions()
    check_session(session)
