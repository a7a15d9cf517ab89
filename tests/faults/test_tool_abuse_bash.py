"""Bash calls that try to outlive or leak past the harness (real ``pi`` against the fake LLM)."""

from __future__ import annotations

import stat
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from _faults import Procs, check_session
from _pi_env import PiEnv, pi_executable
from _rpc_client import RpcClient
from _tool_runs import run_tool

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep, ToolCallStep

StartRpc = Callable[..., RpcClient]


def test_reap_orphans_kills_a_process_with_a_cleared_environment(
    pi_env: PiEnv, start_rpc: StartRpc, procs: Procs
) -> None:
    # ``env -i`` drops the marker variable and ``setsid`` leaves the process group: only the pid
    # recorded while the call ran still identifies the process.
    pi_env.configure(settings={"tools": {"reapOrphans": True}})
    arg = procs.new_arg()
    command = f"env -i setsid sleep {arg} >/dev/null 2>&1 & echo started; wait"
    pi_env.server.push(ScriptedResponse(steps=[ToolCallStep("bash", {"command": command}, id="call_1")]))
    pi_env.server.push(ScriptedResponse(steps=[TextStep("done")]))
    client = start_rpc()
    start = client.mark()
    assert client.request("prompt", message="escape")["success"] is True
    procs.wait_for(arg)
    assert client.request("abort")["success"] is True
    client.wait_event("agent_settled", start=start)
    assert procs.gone(arg), "the escaped sleep survived the abort"
    client.close_stdin()
    assert client.wait_exit() == 0


def test_full_bash_output_log_is_owner_only(pi_env: PiEnv, tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**pi_env.env, "TMPDIR": str(temp)}
    command = "head -c 200000 /dev/zero | tr '\\\\0' x; echo"
    pi_env.server.push(ScriptedResponse(steps=[ToolCallStep("bash", {"command": command}, id="call_1")]))
    pi_env.server.push(ScriptedResponse(steps=[TextStep("done")]))

    result = subprocess.run(
        [pi_executable(), "-p", "big output"],
        input="",
        capture_output=True,
        text=True,
        cwd=pi_env.cwd,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    logs = list(temp.glob("pi-bash-*.log"))
    assert len(logs) == 1, logs
    assert stat.S_IMODE(logs[0].stat().st_mode) == 0o600
    assert logs[0].stat().st_size > 200000
    check_session(pi_env.sessions()[0])


BIG_OUTPUT_BYTES = 200 * 1024 * 1024
BASH_MEMORY_BOUND_KB = 100 * 1024


@pytest.mark.timeout(90)
@pytest.mark.parametrize("shape", ["lines", "one_line"])
def test_200_mb_of_output_is_bounded_truncated_and_logged_in_full(
    pi_env: PiEnv, start_rpc: StartRpc, tmp_path: Path, shape: str
) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    pi_env.env["TMPDIR"] = str(temp)
    # 200 MB as 20-byte lines, or as a single line without a newline until the very end.
    produce = "yes 0123456789abcdefghi" if shape == "lines" else "tr '\\\\000' x < /dev/zero"
    command = f"{produce} | head -c {BIG_OUTPUT_BYTES}; echo; echo THE-END"
    run = run_tool(pi_env, start_rpc, "bash", {"command": command}, timeout=80)
    assert not run.is_error, run.text[-500:]
    assert run.peak_growth_kb < BASH_MEMORY_BOUND_KB, f"peak RSS grew by {run.peak_growth_kb} kB"
    assert len(run.text.encode()) < 60 * 1024  # the tail the model gets: 50 KB and a notice
    assert "THE-END" in run.text
    (log,) = temp.glob("pi-bash-*.log")
    assert run.result["details"]["fullOutputPath"] == str(log)
    assert f"Full output: {log}" in run.text
    assert log.stat().st_size == BIG_OUTPUT_BYTES + len("\nTHE-END\n")
    with log.open("rb") as handle:
        handle.seek(-9, 2)
        assert handle.read() == b"\nTHE-END\n"
    run.client.close_stdin()
    assert run.client.wait_exit() == 0
    (session,) = pi_env.sessions()
    check_session(session)
    assert session.stat().st_size < 1024 * 1024  # the session holds the truncated result only


@pytest.mark.parametrize("reap", [False, True], ids=["default", "reap_orphans"])
def test_a_detached_child_holding_the_output_does_not_hang_the_call(
    pi_env: PiEnv, start_rpc: StartRpc, procs: Procs, reap: bool
) -> None:
    # ``setsid ... &`` leaves the process group and keeps the call's stdout open. The call ends
    # when the shell exits either way; the child survives it unless ``tools.reapOrphans`` is on.
    pi_env.configure(settings={"tools": {"reapOrphans": reap}})
    arg = procs.new_arg()
    command = f"setsid sleep {arg} & echo started"
    run = run_tool(pi_env, start_rpc, "bash", {"command": command}, timeout=30)
    assert not run.is_error, run.text
    assert "started" in run.text
    if reap:
        assert procs.gone(arg), "the detached child outlived the call with reapOrphans on"
    else:
        assert procs.find(arg), "without reapOrphans the detached child is left running (as in Pi)"
    run.client.close_stdin()
    assert run.client.wait_exit() == 0
