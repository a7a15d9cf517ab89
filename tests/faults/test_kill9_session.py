"""``kill -9`` at fixed pseudo-random moments of a multi-turn, tool-using JSON-mode run.

After each kill the session file is read back: every line is JSON but at most a torn last one,
every message whose ``message_end`` had reached stdout is in the file, the session opens and takes
a new prompt. The moments come from a fixed seed, so every run of the suite kills at the same
offsets (what the run is doing at an offset still varies with the machine's load: the check is the
same at every point of a run).
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from _pi_env import PiEnv, pi_executable
from _provider_env import records

from pi_harness.coding.sdk import create_agent_session
from pi_harness.testing.fake_llm import ScriptedResponse, TextStep, ToolCallStep

SEED = 20261201
MOMENTS = 10
CHUNK_DELAY_MS = 20  # spreads each response over a few hundred ms, so the kills land mid-stream too


def script(pi_env: PiEnv) -> None:
    """Three turns with tool calls (bash, write, read), then a final answer."""
    pi_env.server.clear()
    slow = {"chunk_delay_ms": CHUNK_DELAY_MS}
    pi_env.server.push(
        ScriptedResponse(steps=[TextStep("first a command"), ToolCallStep("bash", {"command": "echo one"})], **slow),
        ScriptedResponse(steps=[ToolCallStep("write", {"path": "notes.txt", "content": "two\n"})], **slow),
        ScriptedResponse(steps=[ToolCallStep("read", {"path": "notes.txt"})], **slow),
        ScriptedResponse(steps=[TextStep("all done, the notes say two", chunks=6)], **slow),
    )


def read_session(path: Path) -> list[dict[str, Any]]:
    """The file's entries; only the last line may be torn (not JSON, no final newline)."""
    data = path.read_bytes()
    lines = data.split(b"\n")
    lines.pop()  # after the last "\n": empty unless the last write was cut short
    entries = []
    for number, line in enumerate(lines, 1):
        try:
            entries.append(json.loads(line))
        except ValueError as exc:
            raise AssertionError(f"{path}:{number} is not JSON: {line[:200]!r}") from exc
    return entries


def kill_run(pi_env: PiEnv, session_dir: Path, delay: float | None) -> list[dict[str, Any]]:
    """Start the run, SIGKILL it after ``delay`` s (``None``: at the first tool result seen on
    stdout, the moment its entry is being written), return the records it had written."""
    process = subprocess.Popen(
        [pi_executable(), "--mode", "json", "--session-dir", str(session_dir), "go"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=pi_env.cwd,
        env=pi_env.env,
    )
    assert process.stdout is not None
    out = bytearray()
    seen_result = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            out.extend(line)
            if b'"type":"message_end"' in line and b'"role":"toolResult"' in line:
                seen_result.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    if delay is None:
        seen_result.wait(30)
    else:
        time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.wait(10)
    reader.join(10)
    whole_lines = bytes(out)[: out.rfind(b"\n") + 1]  # a record cut by the kill was not seen
    return records(whole_lines)


def acknowledged(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r["message"] for r in found if r.get("type") == "message_end"]


def check_after_kill(pi_env: PiEnv, session_dir: Path, found: list[dict[str, Any]]) -> None:
    files = sorted(session_dir.glob("*.jsonl"))
    messages = acknowledged(found)
    if not files:
        # A session reaches the disk with its first user message (as in Pi): before that only the
        # system-prompt snapshot may have been announced, and a kill leaves no file at all.
        assert all(m["role"] == "system" for m in messages), f"acknowledged but no session file: {messages}"
        return
    (path,) = files
    entries = read_session(path)
    # Killed between creating the file and writing it: empty, which opens as a new session.
    assert not entries or entries[0]["type"] == "session"
    stored = [e["message"] for e in entries if e.get("type") == "message"]
    for message in messages:
        assert message in stored, f"acknowledged {message['role']} message lost after kill -9"
    # The session opens and takes a new prompt.
    pi_env.server.clear()
    pi_env.server.push(ScriptedResponse(steps=[TextStep("resumed fine")]))
    result = pi_env.run("--session-dir", str(session_dir), "-c", "-p", "are you there?")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "resumed fine"
    assert stored == [e["message"] for e in read_session(path) if e.get("type") == "message"][: len(stored)]


def moments(count: int, span: float) -> list[float]:
    chooser = random.Random(SEED)
    return sorted(round(chooser.uniform(0.05, span * 0.9), 3) for _ in range(count))


@pytest.mark.timeout(180)
@pytest.mark.parametrize("fsync", [True, False], ids=["fsync", "no_fsync"])
def test_kill_9_at_random_moments_loses_nothing_acknowledged(pi_env: PiEnv, tmp_path: Path, fsync: bool) -> None:
    pi_env.configure(settings={"sessions": {"fsync": fsync}})
    # The span covers start-up and the whole run (measured once without a kill).
    script(pi_env)
    started = time.monotonic()
    whole = pi_env.run("--mode", "json", "--session-dir", str(tmp_path / "whole"), "go")
    span = time.monotonic() - started
    assert whole.returncode == 0, whole.stderr
    assert len([m for m in acknowledged(records(whole.stdout)) if m["role"] == "toolResult"]) == 3
    # With fsync, ten moments; without it, two (kill -9 loses nothing either way: see reliability.md).
    offsets = moments(MOMENTS if fsync else 2, span)
    kinds: list[int] = []
    for index, delay in enumerate([*offsets, None]):
        script(pi_env)
        session_dir = tmp_path / f"kill{index}"
        found = kill_run(pi_env, session_dir, delay)
        kinds.append(len(acknowledged(found)))
        check_after_kill(pi_env, session_dir, found)
    assert len(set(kinds)) > 1, f"every kill landed at the same point: {kinds}"


async def test_an_entry_is_on_disk_before_its_message_end_reaches_a_listener(pi_env: PiEnv) -> None:
    # What makes the promise above hold in every interleaving: JSON and RPC mode print an event from
    # a listener (through a writer thread), so the entry must be written before listeners run.
    pi_env.server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": "echo one"})]),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    result = await create_agent_session(cwd=str(pi_env.cwd), agent_dir=str(pi_env.agent_dir))
    session = result.session
    seen: list[str] = []
    missing: list[str] = []

    def listener(event: Any) -> None:
        if event.get("type") != "message_end":
            return
        seen.append(event["message"]["role"])
        path = session.session_manager.get_session_file()
        on_disk = read_session(path) if path is not None and path.exists() else []
        if seen == ["system"]:
            return  # buffered until the first user message creates the file (as in Pi)
        if len([e for e in on_disk if e.get("type") == "message"]) < len(seen):
            missing.append(event["message"]["role"])

    session.subscribe(listener)
    await session.prompt("go")
    await result.runtime.shutdown()
    assert seen[-4:] == ["user", "assistant", "toolResult", "assistant"], seen
    assert missing == []
