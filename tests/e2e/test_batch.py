"""``pi batch``: many headless sessions against the fake LLM server, locally and on Ray.

The fake model reads the task's prompt (``write <file>``, ``loop``, ``hang``, ``chat``) and
answers accordingly, so responses do not depend on the order in which parallel tasks reach it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from _pi_env import PiEnv, pi_executable

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep, ToolCallStep
from pi_harness.testing.fake_llm.script import RecordedRequest


def _first_user_text(request: RecordedRequest) -> str:
    for message in request.json.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def responder(request: RecordedRequest) -> ScriptedResponse:
    """A model that follows the prompt's one instruction."""
    prompt = _first_user_text(request)
    messages = request.json.get("messages") or []
    last = messages[-1] if isinstance(messages, list) and messages else {}
    answered_tool = isinstance(last, dict) and last.get("role") == "tool"
    words = prompt.split()
    if "hang" in words:
        return ScriptedResponse(steps=[TextStep("thinking about it")], stall_after=1)
    if "loop" in words:
        return ScriptedResponse(steps=[ToolCallStep("bash", {"command": "echo again"})])
    if "write" in words and not answered_tool:
        name = words[words.index("write") + 1]
        return ScriptedResponse(steps=[ToolCallStep("write", {"path": name, "content": f"made by {words[0]}\n"})])
    return ScriptedResponse(steps=[TextStep("Done.")])


@pytest.fixture
def batch_env(pi_env: PiEnv) -> PiEnv:
    pi_env.server.default = responder
    return pi_env


def write_tasks(path: Path, tasks: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    return path


def results(out: Path) -> dict[str, dict[str, object]]:
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]
    return {str(r["id"]): r for r in records}


def run_batch(env: PiEnv, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return env.run("batch", *args, timeout=timeout)


def test_fifty_tasks_with_four_jobs(batch_env: PiEnv, tmp_path: Path) -> None:
    tasks = []
    for n in range(50):
        task_id = f"t{n:02d}"
        if n % 10 == 9:  # the model does not write the file: the check fails
            tasks.append({"id": task_id, "prompt": f"{task_id} chat", "check": "test -f out.txt"})
        else:
            tasks.append({"id": task_id, "prompt": f"{task_id} write out.txt", "check": f"grep -q {task_id} out.txt"})
    tasks_file = write_tasks(tmp_path / "tasks.jsonl", tasks)
    out = tmp_path / "out"
    done = run_batch(batch_env, str(tasks_file), "--jobs", "4", "--out", str(out))
    assert done.returncode == 1, done.stderr  # five tasks fail their check
    found = results(out)
    assert sorted(found) == [t["id"] for t in tasks]
    for n in range(50):
        record = found[f"t{n:02d}"]
        expected = "failed" if n % 10 == 9 else "succeeded"
        assert record["status"] == expected, record
        # Each task ran in its own working directory and session file.
        work = Path(str(record["cwd"]))
        assert work == (out / "work" / f"t{n:02d}").resolve()
        session = Path(str(record["sessionFile"]))
        assert session.parent == (out / "sessions" / f"t{n:02d}").resolve()
        entries = [json.loads(line) for line in session.read_text().splitlines()]
        assert entries[0]["type"] == "session" and entries[0]["cwd"] == str(work)
        assert record["turns"] == (1 if n % 10 == 9 else 2)
        assert record["tokens"] == 15 * int(record["turns"])  # the fake's usage: 10 in + 5 out per answer
        assert float(str(record["cost"])) > 0
    assert "50 task(s) run (failed 5, succeeded 45)" in done.stderr
    report = batch_env.run("batch", "report", str(out))
    assert report.returncode == 0
    assert "Success rate: 90.0% (45/50;" in report.stdout
    assert "Status: succeeded 45, failed 5" in report.stdout


def test_budget_and_timeout_outcomes(batch_env: PiEnv, tmp_path: Path) -> None:
    tasks_file = write_tasks(
        tmp_path / "tasks.jsonl",
        [
            {"id": "looping", "prompt": "looping loop", "budgets": {"turns": 3}},
            {"id": "hanging", "prompt": "hanging hang", "timeout": 3},
            {"id": "fine", "prompt": "fine chat"},
            {"id": "templated", "template": "make", "args": ["templated", "t.txt"], "check": "grep -q templated t.txt"},
        ],
    )
    # A prompt template of the user's agent dir, expanded by the session as /make <args>.
    (batch_env.agent_dir / "prompts").mkdir()
    (batch_env.agent_dir / "prompts" / "make.md").write_text("$1 write $2\n")
    out = tmp_path / "out"
    done = run_batch(batch_env, str(tasks_file), "--jobs", "4", "--out", str(out))
    assert done.returncode == 1
    found = results(out)
    assert found["looping"]["status"] == "budget_exceeded"
    assert found["looping"]["budget"] == {"limit": "maxTurns", "value": 3, "used": 3}
    assert found["looping"]["turns"] == 3
    assert found["hanging"]["status"] == "timeout"
    assert found["fine"]["status"] == "succeeded"
    assert found["templated"]["status"] == "succeeded", found["templated"]
    # The timed-out session was stopped cleanly: its file is complete JSON lines.
    session = Path(str(found["hanging"]["sessionFile"]))
    for line in session.read_text().splitlines():
        json.loads(line)


def test_resume_after_the_batch_is_killed(batch_env: PiEnv, tmp_path: Path) -> None:
    tasks = [{"id": f"k{n}", "prompt": f"k{n} write done.txt", "check": "test -f done.txt"} for n in range(6)]
    tasks.insert(2, {"id": "slow", "prompt": "slow hang", "timeout": 120})
    tasks_file = write_tasks(tmp_path / "tasks.jsonl", tasks)
    out = tmp_path / "out"
    process = subprocess.Popen(
        [pi_executable(), "batch", str(tasks_file), "--jobs", "2", "--out", str(out)],
        cwd=batch_env.cwd,
        env=batch_env.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    # Wait until some tasks finished while "slow" still runs, then kill the batch outright.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if (out / "results.jsonl").exists() and len(results(out)) >= 2:
            break
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    first = results(out)
    assert "slow" not in first and len(first) >= 2
    # Resuming without --resume is refused, losing nothing.
    refused = run_batch(batch_env, str(tasks_file), "--out", str(out))
    assert refused.returncode == 2 and "--resume" in refused.stderr
    assert results(out) == first
    slow_fast = [dict(t, prompt="slow chat") if t["id"] == "slow" else t for t in tasks]
    write_tasks(tasks_file, slow_fast)
    resumed = run_batch(batch_env, str(tasks_file), "--jobs", "2", "--out", str(out), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert f"Resuming: {len(first)} task(s) already finished" in resumed.stderr
    final = results(out)
    assert sorted(final) == sorted(t["id"] for t in tasks)
    assert all(r["status"] == "succeeded" for r in final.values())
    # Finished tasks were not run again: their records are the ones of the first run.
    for task_id, record in first.items():
        assert final[task_id]["endedAt"] == record["endedAt"]


def test_ctrl_c_aborts_running_sessions_cleanly(batch_env: PiEnv, tmp_path: Path) -> None:
    tasks = [{"id": f"h{n}", "prompt": f"h{n} hang"} for n in range(2)] + [{"id": "later", "prompt": "later chat"}]
    tasks_file = write_tasks(tmp_path / "tasks.jsonl", tasks)
    out = tmp_path / "out"
    process = subprocess.Popen(
        [pi_executable(), "batch", str(tasks_file), "--jobs", "2", "--out", str(out)],
        cwd=batch_env.cwd,
        env=batch_env.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    sessions = out / "sessions"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(sessions.rglob("*.jsonl"))) < 2:
        time.sleep(0.2)
    # Both sessions have sent their request (the fake is streaming to them).
    while time.monotonic() < deadline and len(batch_env.server.requests) < 2:
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    found = results(out)
    assert {found["h0"]["status"], found["h1"]["status"]} == {"aborted"}
    assert "later" not in found  # never started: a resumed batch runs it
    for task_id in ("h0", "h1"):
        for line in Path(str(found[task_id]["sessionFile"])).read_text().splitlines():
            json.loads(line)


def test_bad_tasks_file_is_refused_whole(batch_env: PiEnv, tmp_path: Path) -> None:
    tasks_file = tmp_path / "tasks.jsonl"
    tasks_file.write_text(
        '{"id": "a", "prompt": "a chat"}\n'
        "not json\n"
        '{"id": "a", "prompt": "again"}\n'
        '{"id": "b", "prompt": "x", "template": "y"}\n'
        '{"id": "c", "prompt": "x", "budgets": {"turns": 0, "minutes": 3}}\n'
    )
    out = tmp_path / "out"
    done = run_batch(batch_env, str(tasks_file), "--out", str(out))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert lines[0].startswith(f"Error: {tasks_file}:2: not valid JSON")
    assert f"Error: {tasks_file}:3: duplicate id 'a' (first on line 1)" in lines
    assert f'Error: {tasks_file}:4: give exactly one of "prompt" or "template"' in lines
    assert f"Error: {tasks_file}:5: unknown budget(s) minutes (known: turns, tokens, cost)" in lines
    assert f'Error: {tasks_file}:5: budget "turns" must be a positive integer' in lines
    assert not out.exists()
    assert batch_env.server.requests == []


def test_repo_tasks_get_their_own_worktree(batch_env: PiEnv, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "README.md").write_text("base\n")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    tasks_file = write_tasks(
        tmp_path / "tasks.jsonl",
        [
            {"id": f"r{n}", "prompt": f"r{n} write note.txt", "repo": "repo", "check": "test -f README.md"}
            for n in range(3)
        ]
        + [{"id": "copy", "prompt": "copy write note.txt", "repo": "repo", "isolation": "copy"}],
    )
    out = tmp_path / "out"
    done = run_batch(batch_env, str(tasks_file), "--jobs", "3", "--out", str(out))
    assert done.returncode == 0, done.stderr
    found = results(out)
    for task_id in ("r0", "r1", "r2", "copy"):
        work = Path(str(found[task_id]["cwd"]))
        assert (work / "note.txt").read_text() == f"made by {task_id}\n"
    assert not (repo / "note.txt").exists()  # the repository itself is untouched
    listed = subprocess.run(["git", "-C", str(repo), "worktree", "list"], capture_output=True, text=True, check=True)
    assert listed.stdout.count("\n") == 4  # the repo and the three task worktrees


def test_fifty_tasks_on_ray_local(batch_env: PiEnv, tmp_path: Path) -> None:
    if importlib.util.find_spec("ray") is None:  # not imported here: the batch imports it, in its own process
        pytest.skip("the ray extra is not installed")
    tasks = [
        {"id": f"y{n:02d}", "prompt": f"y{n:02d} write out.txt", "check": f"grep -q y{n:02d} out.txt"}
        for n in range(50)
    ]
    # One task's Ray worker dies (its check kills the process that runs it, once): Ray runs the
    # task again and the batch still gets its result.
    marker = tmp_path / "crashed-once"
    tasks[7]["check"] = f"if [ ! -e {marker} ]; then touch {marker}; kill -9 $PPID; sleep 5; fi; grep -q y07 out.txt"
    tasks_file = write_tasks(tmp_path / "tasks.jsonl", tasks)
    out = tmp_path / "out"
    env = dict(batch_env.env, RAY_USAGE_STATS_ENABLED="0")
    done = subprocess.run(
        [pi_executable(), "batch", str(tasks_file), "--ray", "local", "--jobs", "4", "--out", str(out)],
        cwd=batch_env.cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = results(out)
    assert sorted(found) == [t["id"] for t in tasks]
    assert all(r["status"] == "succeeded" and r["turns"] == 2 for r in found.values())
    assert marker.exists()
    # The crashed attempt's session and the retry's: the task really ran twice.
    assert len(list((out / "sessions" / "y07").glob("*.jsonl"))) == 2
