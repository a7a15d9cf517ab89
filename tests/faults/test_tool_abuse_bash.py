"""Bash calls that try to outlive or leak past the harness (real ``pi`` against the fake LLM)."""

from __future__ import annotations

import stat
import subprocess
from collections.abc import Callable
from pathlib import Path

from _faults import Procs, check_session
from _pi_env import PiEnv, pi_executable
from _rpc_client import RpcClient

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
