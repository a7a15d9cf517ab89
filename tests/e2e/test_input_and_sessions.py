"""Initial input (``@file``, piped stdin) and the session selection flags, as the server sees them."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

from _pi_env import PiEnv
from PIL import Image

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep


def last_user_content(pi_env: PiEnv, index: int = -1) -> Any:
    messages = pi_env.server.requests[index].json["messages"]
    return next(m for m in reversed(messages) if m["role"] == "user")["content"]


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if part.get("type") == "text")


def session_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def answer(pi_env: PiEnv, *texts: str) -> None:
    pi_env.server.push(*(ScriptedResponse(steps=[TextStep(t)]) for t in texts))


def test_file_arguments_and_piped_stdin(pi_env: PiEnv) -> None:
    notes = pi_env.cwd / "notes.txt"
    notes.write_text("alpha\nbeta")
    answer(pi_env, "ok")
    result = pi_env.run("-p", "@notes.txt", "Summarise", input="  piped context  \n")
    assert result.returncode == 0, result.stderr
    text = text_of(last_user_content(pi_env))
    # stdin, then the file, then the first message, without separators
    assert text == f'piped context<file name="{notes}">\nalpha\nbeta\n</file>\nSummarise'


def test_an_image_file_is_attached(pi_env: PiEnv) -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 6), (200, 30, 30)).save(buffer, format="PNG")
    image = pi_env.cwd / "dot.png"
    image.write_bytes(buffer.getvalue())
    answer(pi_env, "a red dot")
    result = pi_env.run("-p", "@dot.png", "What is this?")
    assert result.returncode == 0, result.stderr
    content = last_user_content(pi_env)
    assert isinstance(content, list)
    urls = [part["image_url"]["url"] for part in content if part.get("type") == "image_url"]
    assert len(urls) == 1 and urls[0].startswith("data:image/png;base64,")
    decoded = Image.open(io.BytesIO(base64.b64decode(urls[0].split(",", 1)[1])))
    assert decoded.size == (8, 6)
    assert text_of(content) == f'<file name="{image}"></file>\nWhat is this?'


def test_piped_stdin_alone_is_the_prompt(pi_env: PiEnv) -> None:
    answer(pi_env, "piped answer")
    result = pi_env.run(input="question from a pipe\n")  # not a terminal: print mode
    assert result.returncode == 0, result.stderr
    assert result.stdout == "piped answer\n"
    assert text_of(last_user_content(pi_env)) == "question from a pipe"


def test_session_path_id_and_continue(pi_env: PiEnv) -> None:
    answer(pi_env, "first answer", "second answer", "third answer")
    assert pi_env.run("-p", "first question").returncode == 0
    [session] = pi_env.sessions()
    session_id = session_lines(session)[0]["id"]

    by_path = pi_env.run("--session", str(session), "-p", "second question")
    assert by_path.returncode == 0, by_path.stderr
    assert "first answer" in json.dumps(pi_env.server.requests[1].json["messages"])

    by_id = pi_env.run("--session", session_id[:8], "-p", "third question")
    assert by_id.returncode == 0, by_id.stderr
    assert "second answer" in json.dumps(pi_env.server.requests[2].json["messages"])
    assert pi_env.sessions() == [session]

    answer(pi_env, "continued")
    assert pi_env.run("--continue", "-p", "fourth").returncode == 0
    assert "third answer" in json.dumps(pi_env.server.requests[3].json["messages"])
    texts = [text_of(e["message"]["content"]) for e in session_lines(session) if e.get("type") == "message"]
    assert [t for t in texts if t.endswith("question") or t == "fourth"] == [
        "first question",
        "second question",
        "third question",
        "fourth",
    ]


def test_fork_copies_into_a_new_session(pi_env: PiEnv) -> None:
    answer(pi_env, "original answer", "forked answer")
    assert pi_env.run("-p", "original question").returncode == 0
    [original] = pi_env.sessions()
    before = original.read_text()
    result = pi_env.run("--fork", str(original), "-p", "in the fork")
    assert result.returncode == 0, result.stderr
    assert original.read_text() == before
    [forked] = [p for p in pi_env.sessions() if p != original]
    header = session_lines(forked)[0]
    assert header["id"] != session_lines(original)[0]["id"]
    assert "original answer" in json.dumps(pi_env.server.requests[1].json["messages"])
    assert "in the fork" in forked.read_text()


def test_no_session_writes_nothing(pi_env: PiEnv) -> None:
    answer(pi_env, "ephemeral")
    result = pi_env.run("--no-session", "-p", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ephemeral\n"
    assert pi_env.sessions() == []
    assert not (pi_env.agent_dir / "sessions").exists() or not any((pi_env.agent_dir / "sessions").rglob("*"))


def test_session_dir_session_id_and_name(pi_env: PiEnv, tmp_path: Path) -> None:
    answer(pi_env, "one", "two")
    directory = tmp_path / "my-sessions"
    session_id = "my-fixed-session-id"
    first = pi_env.run("--session-dir", str(directory), "--session-id", session_id, "--name", "Named run", "-p", "hi")
    assert first.returncode == 0, first.stderr
    files = list(directory.rglob("*.jsonl"))
    assert len(files) == 1 and pi_env.sessions() == []
    lines = session_lines(files[0])
    assert lines[0]["id"] == session_id
    # As in Pi, --name is the first entry of a new session, before its model and thinking level.
    assert [e["type"] for e in lines[1:4]] == ["session_info", "model_change", "thinking_level_change"]
    assert lines[1]["name"] == "Named run" and lines[1]["parentId"] is None

    again = pi_env.run("--session-dir", str(directory), "--session-id", session_id, "-p", "again")
    assert again.returncode == 0, again.stderr
    assert list(directory.rglob("*.jsonl")) == files
    assert "one" in json.dumps(pi_env.server.requests[1].json["messages"])


def _declared(pi_env: PiEnv, index: int) -> list[str]:
    return [tool["function"]["name"] for tool in pi_env.server.requests[index].json.get("tools") or []]


def test_a_reopened_session_keeps_the_tools_it_recorded(pi_env: PiEnv) -> None:
    # As Pi 1.4.0: without a tool selection, --session continues with the tools the session's
    # system messages left active (no new system message); --tools still replaces them.
    answer(pi_env, "one", "two", "three")
    assert pi_env.run("--tools", "read,grep", "-p", "first").returncode == 0
    [session] = pi_env.sessions()

    def systems() -> list[dict[str, Any]]:
        return [e for e in session_lines(session) if e.get("message", {}).get("role") == "system"]

    assert len(systems()) == 1
    resumed = pi_env.run("--session", str(session), "-p", "second")
    assert resumed.returncode == 0, resumed.stderr
    assert _declared(pi_env, 1) == ["read", "grep"] and len(systems()) == 1
    assert pi_env.run("--session", str(session), "--tools", "bash", "-p", "third").returncode == 0
    assert _declared(pi_env, 2) == ["bash"] and len(systems()) == 2


def test_a_reopened_no_tools_session_declares_none(pi_env: PiEnv) -> None:
    answer(pi_env, "one", "two")
    assert pi_env.run("--no-tools", "-p", "first").returncode == 0
    [session] = pi_env.sessions()
    assert pi_env.run("--session", str(session), "-p", "second").returncode == 0
    assert _declared(pi_env, 0) == [] and _declared(pi_env, 1) == []


def _large_session(path: Path, cwd: Path, turns: int = 9000) -> Path:
    """A linear session of more than 4 MB (``DEFER_MIN_BYTES``), compacted near its end."""
    stamp = "2026-01-01T00:00:00.000Z"
    lines = [{"type": "session", "version": 3, "id": "big", "timestamp": stamp, "cwd": str(cwd)}]
    parent: str | None = None
    for n in range(turns):
        for role in ("user", "assistant"):
            entry_id = f"{role[0]}{n:05d}"
            text = f"{role} turn {n}: " + "words of a long conversation " * 8
            message: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": text}], "timestamp": n}
            if role == "assistant":
                usage = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2}
                message |= {"api": "openai-completions", "provider": "fake", "model": "fake-model"}
                message |= {"usage": usage, "stopReason": "stop"}
            lines.append(
                {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp, "message": message}
            )
            parent = entry_id
        if n == turns - 20:
            kept = f"u{n - 3:05d}"
            compaction = {"summary": "the story so far", "firstKeptEntryId": kept, "tokensBefore": 9}
            lines.append({"type": "compaction", "id": "comp", "parentId": parent, "timestamp": stamp, **compaction})
            parent = "comp"
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))
    assert path.stat().st_size > 4 * 1024 * 1024
    return path


def test_a_large_session_opened_first_and_reopened_sends_the_same_request(pi_env: PiEnv) -> None:
    # The first copy has no index: its open scans the covered part (session_store/cold_scan.py)
    # and leaves the index on close; the second already has one, from an open of this process.
    from pi_harness.coding.session_store.store import SessionManager

    first = _large_session(pi_env.cwd / "first.jsonl", pi_env.cwd)
    again = pi_env.cwd / "again.jsonl"
    again.write_bytes(first.read_bytes())
    SessionManager.open(again).close()
    index = Path(str(first) + ".idx")
    assert Path(str(again) + ".idx").exists() and not index.exists()
    answer(pi_env, "one", "two")
    for path in (first, again):
        result = pi_env.run("--session", str(path), "-p", "hello")
        assert result.returncode == 0, result.stderr
    assert index.exists()
    one, two = (request.json["messages"] for request in pi_env.server.requests)
    assert one == two
    assert text_of(one[-1]["content"]) == "hello" and "the story so far" in json.dumps(one)
    assert len(one) < 100  # from the compaction on
