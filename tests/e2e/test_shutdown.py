"""Shutdown of the non-interactive modes: stdin EOF, SIGTERM/SIGHUP, ``ctx.shutdown()`` (8.8, 2)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from _pi_env import PiEnv
from _rpc_client import RpcClient

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep, ToolCallStep

StartRpc = Callable[..., RpcClient]

SHUTDOWN_EXTENSION = """
LOG = {log!r}


def extension(pi):
    async def on_shutdown(event, ctx):
        with open(LOG, "a") as log:
            log.write("session_shutdown\\n")

    pi.on("session_shutdown", on_shutdown)

    @pi.command("quit")
    async def quit_command(args, ctx):
        ctx.shutdown()
"""


def shutdown_extension(pi_env: PiEnv) -> tuple[Path, Path]:
    log = pi_env.cwd / "shutdown.log"
    extension = pi_env.cwd / "shutdown_ext.py"
    extension.write_text(SHUTDOWN_EXTENSION.format(log=str(log)))
    return extension, log


def gated_child(pi_env: PiEnv) -> tuple[ScriptedResponse, Path]:
    """A bash call that records its pid and waits forever (until it is killed)."""
    pid_file = pi_env.cwd / "child.pid"
    command = f"echo $$ > {pid_file}; while true; do sleep 0.05; done"
    return ScriptedResponse(steps=[ToolCallStep("bash", {"command": command}, id="call_forever")]), pid_file


def wait_for_file(path: Path, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text()
        time.sleep(0.01)
    raise AssertionError(f"{path} never appeared")


def process_gone(pid: int, timeout: float = 5) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.02)
    return False


def test_stdin_eof_shuts_down_in_order(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    extension, log = shutdown_extension(pi_env)
    client = start_rpc("-e", str(extension))
    assert client.request("get_state")["success"] is True
    client.close_stdin()
    assert client.wait_exit() == 0
    assert log.read_text() == "session_shutdown\n"


def test_stdin_eof_during_a_run_aborts_it(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    extension, log = shutdown_extension(pi_env)
    response, pid_file = gated_child(pi_env)
    pi_env.server.push(response)
    client = start_rpc("-e", str(extension))
    start = client.mark()
    client.request("prompt", message="run forever")
    child = int(wait_for_file(pid_file))
    client.close_stdin()
    assert client.wait_exit() == 0
    assert log.read_text() == "session_shutdown\n"
    assert process_gone(child)
    assert client.wait_event("agent_settled", start=start)["aborted"] is True


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_rpc_signals(pi_env: PiEnv, start_rpc: StartRpc, signum: signal.Signals, code: int) -> None:
    extension, log = shutdown_extension(pi_env)
    response, pid_file = gated_child(pi_env)
    pi_env.server.push(response)
    client = start_rpc("-e", str(extension))
    client.request("prompt", message="run forever")
    child = int(wait_for_file(pid_file))
    client.signal(signum)
    assert client.wait_exit() == code
    assert log.read_text() == "session_shutdown\n"
    assert process_gone(child)


@pytest.mark.parametrize("mode", [["-p"], ["--mode", "json"]])
def test_print_and_json_sigterm(pi_env: PiEnv, mode: list[str]) -> None:
    extension, log = shutdown_extension(pi_env)
    response, pid_file = gated_child(pi_env)
    pi_env.server.push(response)
    # Piped stdin is read to EOF before the run starts: give it an empty one.
    process = pi_env.popen("-e", str(extension), *mode, "run forever", stdin=subprocess.DEVNULL)
    try:
        child = int(wait_for_file(pid_file))
        process.send_signal(signal.SIGTERM)
        _out, _err = process.communicate(timeout=20)
        assert process.returncode == 143
        assert log.read_text() == "session_shutdown\n"
        assert process_gone(child)
    finally:
        if process.poll() is None:
            process.kill()


def test_extension_requested_shutdown(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    extension, log = shutdown_extension(pi_env)
    client = start_rpc("-e", str(extension))
    response = client.request("prompt", message="/quit")
    assert response["success"] is True
    assert client.wait_exit() == 0
    assert log.read_text() == "session_shutdown\n"


def test_print_mode_emits_session_shutdown(pi_env: PiEnv) -> None:
    extension, log = shutdown_extension(pi_env)
    pi_env.server.push(ScriptedResponse(steps=[TextStep("bye")]))
    result = pi_env.run("-e", str(extension), "-p", "hi")
    assert result.returncode == 0, result.stderr
    assert log.read_text() == "session_shutdown\n"


WAITING_DIALOG_EXTENSION = """
LOG = {log!r}


def extension(pi):
    async def gate(event, ctx):
        confirmed = await ctx.ui.confirm("Run it?", "no timeout: only the client can answer")
        with open(LOG, "a") as log:
            log.write(f"confirmed={{confirmed}}\\n")
        return None if confirmed else {{"block": True, "reason": "not confirmed"}}

    pi.on("tool_call", gate)

    async def on_shutdown(event, ctx):
        with open(LOG, "a") as log:
            log.write("session_shutdown\\n")

    pi.on("session_shutdown", on_shutdown)
"""


def test_stdin_eof_while_a_dialog_waits_for_the_client(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    log = pi_env.cwd / "dialog.log"
    extension = pi_env.cwd / "dialog_ext.py"
    extension.write_text(WAITING_DIALOG_EXTENSION.format(log=str(log)))
    pi_env.server.push(ScriptedResponse(steps=[ToolCallStep("bash", {"command": "echo hi"}, id="call_1")]))
    client = start_rpc("-e", str(extension))
    start = client.mark()
    client.request("prompt", message="run it")
    client.wait_event("extension_ui_request", start=start, method="confirm")
    client.close_stdin()  # nobody will ever answer now
    assert client.wait_exit(timeout=8) == 0
    assert log.read_text() == "confirmed=False\nsession_shutdown\n"
