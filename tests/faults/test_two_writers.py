"""Two ``pi`` processes on one session file, with and without ``sessions.lock``.

With the lock the second process is refused at once with one clear line and the file stays one
valid tree. Without it (Pi's behaviour) both append: each record is one ``write`` of a whole line
with ``O_APPEND``, so lines interleave but are never cut into each other, and each process's
entries chain from the leaf it knew (the file becomes a tree with two branches).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _pi_env import PiEnv
from _rpc_client import RpcClient

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep

StartRpc = Callable[..., RpcClient]
LOCKED = "Session file is in use by another process"


def make_session(pi_env: PiEnv) -> Path:
    pi_env.server.push(ScriptedResponse(steps=[TextStep("first answer")]))
    result = pi_env.run("-p", "first")
    assert result.returncode == 0, result.stderr
    (path,) = pi_env.sessions()
    return path


def tree(path: Path) -> list[dict[str, Any]]:
    """Every line is a whole JSON object; one header; every parent exists; ids are unique."""
    lines = path.read_bytes().split(b"\n")
    assert lines.pop() == b"", "the file does not end with a whole line"
    entries = [json.loads(line) for line in lines]
    assert entries[0]["type"] == "session"
    assert [e["type"] for e in entries].count("session") == 1
    ids = [e["id"] for e in entries[1:]]
    assert len(ids) == len(set(ids)), "an id was written twice"
    known = set(ids)
    assert all(e["parentId"] is None or e["parentId"] in known for e in entries[1:])
    return entries[1:]


def texts(entries: list[dict[str, Any]], role: str) -> list[str]:
    found = []
    for entry in entries:
        message = entry.get("message") or {}
        if message.get("role") == role:
            content = message["content"]
            found.append(content if isinstance(content, str) else content[0]["text"])
    return found


@pytest.mark.parametrize(
    "mode", [["-p", "intruder"], ["--mode", "json", "intruder"], ["--mode", "rpc"]], ids=["print", "json", "rpc"]
)
def test_with_the_lock_a_second_process_is_refused(pi_env: PiEnv, start_rpc: StartRpc, mode: list[str]) -> None:
    pi_env.configure(settings={"sessions": {"lock": True}})
    path = make_session(pi_env)
    holder = start_rpc("--session", str(path))
    holder.request("get_state")  # the session is open (and locked) once it answers
    before = path.read_bytes()

    second = pi_env.run("--session", str(path), *mode)
    assert second.returncode == 1
    (line,) = [x for x in second.stderr.splitlines() if x.strip()]
    assert LOCKED in line and str(path) in line
    assert path.read_bytes() == before  # refused untouched
    assert not pi_env.server.requests[1:], "the refused process called the LLM"

    pi_env.server.push(ScriptedResponse(steps=[TextStep("holder answer")]))
    holder.prompt_and_settle("from the holder")
    holder.close_stdin()
    assert holder.wait_exit() == 0
    entries = tree(path)
    assert texts(entries, "user") == ["first", "from the holder"]
    # Released at exit: the next process opens it.
    pi_env.server.push(ScriptedResponse(steps=[TextStep("third answer")]))
    third = pi_env.run("--session", str(path), "-p", "third")
    assert third.returncode == 0, third.stderr
    assert texts(tree(path), "user") == ["first", "from the holder", "third"]


def test_without_the_lock_both_append_whole_lines(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    path = make_session(pi_env)
    first_leaf = tree(path)[-1]["id"]
    clients = [start_rpc("--session", str(path)) for _ in range(2)]
    for client in clients:
        client.request("get_state")
    # Each writes 20 records of about 40 KB at the same time: far above the 4 KB a pipe writes
    # atomically, so a record written in pieces would show as a cut or merged line.
    failures: list[str] = []

    def write(client: RpcClient, name: str) -> None:
        for index in range(20):
            command = f"head -c 40000 /dev/zero | tr '\\000' {name}; echo; echo {name}{index}"
            response = client.request("bash", command=command, timeout=60)
            if response["success"] is not True:
                failures.append(str(response))

    threads = [threading.Thread(target=write, args=(c, n)) for c, n in zip(clients, "ab", strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not failures
    for client in clients:
        client.close_stdin()
        assert client.wait_exit() == 0
    entries = tree(path)
    by_id = {e["id"]: e for e in entries}
    for name in "ab":
        mine = {}
        for entry in entries:
            message = entry.get("message") or {}
            found = re.search(r"echo ([ab])(\d+)$", message.get("command", ""))
            if message.get("role") == "bashExecution" and found and found[1] == name:
                mine[int(found[2])] = entry
        assert sorted(mine) == list(range(20)), f"records of process {name} missing: {sorted(mine)}"
        assert all(len(e["message"]["output"]) > 40000 for e in mine.values())
        # Each process's chain: its first record hangs on the leaf it opened, each next on the last.
        assert mine[0]["parentId"] == first_leaf
        for index in range(1, 20):
            assert by_id[mine[index]["parentId"]] is mine[index - 1]


def test_the_lock_of_a_killed_holder_is_released(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    pi_env.configure(settings={"sessions": {"lock": True}})
    path = make_session(pi_env)
    holder = start_rpc("--session", str(path))
    holder.request("get_state")
    assert LOCKED in pi_env.run("--session", str(path), "-p", "refused").stderr
    holder.kill()  # SIGKILL: no cleanup runs; the OS drops the lock with the process
    pi_env.server.push(ScriptedResponse(steps=[TextStep("after the kill")]))
    result = pi_env.run("--session", str(path), "-p", "next")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "after the kill"
    assert texts(tree(path), "user") == ["first", "next"]
