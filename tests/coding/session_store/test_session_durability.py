"""Crash safety and the cross-process lock, with real processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _session_helpers import user

from pi_harness.coding.session_store import SessionLockedError, SessionManager, read_session_file

WRITER = textwrap.dedent(
    """
    import sys
    from pi_harness.coding.session_store import SessionManager
    manager = SessionManager.open(sys.argv[1], fsync=sys.argv[2] == "1")
    text = "x" * 50_000
    i = 0
    while True:
        entry_id = manager.append_message({"role": "user", "content": f"{i} {text}", "timestamp": i})
        sys.stdout.write(entry_id + "\\n")
        sys.stdout.flush()
        i += 1
    """
)

HOLDER = textwrap.dedent(
    """
    import sys
    from pi_harness.coding.session_store import SessionManager
    manager = SessionManager.open(sys.argv[1], lock=True)
    manager.append_message({"role": "user", "content": "held", "timestamp": 1})
    print("ready", flush=True)
    sys.stdin.read()
    """
)

CONTENDER = textwrap.dedent(
    """
    import sys
    from pi_harness.coding.session_store import SessionLockedError, SessionManager
    try:
        SessionManager.open(sys.argv[1], lock=True)
    except SessionLockedError as error:
        print(error)
        sys.exit(3)
    print("acquired")
    """
)


def _python(script: str, *args: str, **kwargs: object) -> subprocess.Popen[str]:
    return subprocess.Popen(  # type: ignore[call-overload,no-any-return]
        [sys.executable, "-c", script, *args], stdout=subprocess.PIPE, text=True, **kwargs
    )


@pytest.mark.parametrize("fsync", [False, True])
def test_sigkill_mid_append_keeps_every_acknowledged_entry(tmp_path: Path, fsync: bool) -> None:
    path = tmp_path / "crash.jsonl"
    process = _python(WRITER, str(path), "1" if fsync else "0")
    assert process.stdout is not None
    acknowledged = [process.stdout.readline().strip() for _ in range(60)]
    process.send_signal(signal.SIGKILL)
    # Read the rest through the same text wrapper: lines it already buffered must not be lost
    # (``communicate(timeout=...)`` would read the raw pipe and skip them).
    rest = process.stdout.read()
    process.wait(timeout=30)
    acknowledged += [line for line in rest.split("\n") if line]
    assert process.returncode == -signal.SIGKILL

    contents = read_session_file(path)
    assert contents.valid
    loaded = [entry["id"] for entry in contents.entries]
    assert loaded[: len(acknowledged)] == acknowledged  # at most one unacknowledged entry follows
    assert len(loaded) - len(acknowledged) <= 1

    # The session continues cleanly after the crash, torn tail or not.
    manager = SessionManager.open(path)
    new_id = manager.append_message(user("after crash"))  # type: ignore[arg-type]
    again = [entry["id"] for entry in SessionManager.open(path).get_entries()]
    assert again[: len(acknowledged)] == acknowledged and again[-1] == new_id


def test_second_writer_process_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "locked.jsonl"
    holder = _python(HOLDER, str(path), stdin=subprocess.PIPE)
    assert holder.stdout is not None and holder.stdin is not None
    try:
        assert holder.stdout.readline().strip() == "ready"
        contender = subprocess.run(
            [sys.executable, "-c", CONTENDER, str(path)], capture_output=True, text=True, timeout=60, check=False
        )
        assert contender.returncode == 3
        assert f"Session file is in use by another process: {path}" in contender.stdout
        with pytest.raises(SessionLockedError, match="in use by another process"):
            SessionManager.open(path, lock=True)
        # Reading stays possible while the writer holds the lock.
        reader = SessionManager.open(path, read_only=True)
        assert [m["content"] for m in reader.build_session_context().messages] == ["held"]
        # Without the lock option Pi's behaviour is kept (no check at all).
        SessionManager.open(path).close()
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    after = subprocess.run(
        [sys.executable, "-c", CONTENDER, str(path)], capture_output=True, text=True, timeout=60, check=False
    )
    assert after.returncode == 0 and after.stdout.strip() == "acquired"


def test_lock_is_taken_when_a_new_session_is_first_written(tmp_path: Path) -> None:
    first = SessionManager.create(str(tmp_path), tmp_path / "s", lock=True)
    first.append_message(user("hi"))  # type: ignore[arg-type]
    path = first.get_session_file()
    assert path is not None
    with pytest.raises(SessionLockedError):
        SessionManager.open(path, lock=True)
    first.close()
    with SessionManager.open(path, lock=True) as second:
        second.append_message(user("mine now"))  # type: ignore[arg-type]
    assert len(read_session_file(path).entries) == 2


def test_read_only_manager_refuses_changes(tmp_path: Path) -> None:
    writer = SessionManager.create(str(tmp_path), tmp_path / "s")
    writer.append_message(user("hi"))  # type: ignore[arg-type]
    path = writer.get_session_file()
    assert path is not None
    reader = SessionManager.open(path, read_only=True)
    with pytest.raises(RuntimeError, match="read-only"):
        reader.append_custom("x")
    assert reader.is_read_only()


def test_fsync_sessions_write_the_same_bytes(tmp_path: Path) -> None:
    manager = SessionManager.create(str(tmp_path), tmp_path / "s", fsync=True)
    ids = [manager.append_message(user(f"m{i}")) for i in range(3)]  # type: ignore[arg-type]
    path = manager.get_session_file()
    assert path is not None
    assert [e["id"] for e in read_session_file(path).entries] == ids


def test_deleted_file_is_written_again_in_full(tmp_path: Path) -> None:
    manager = SessionManager.create(str(tmp_path), tmp_path / "s")
    first = manager.append_message(user("one"))  # type: ignore[arg-type]
    path = manager.get_session_file()
    assert path is not None
    os.unlink(path)
    second = manager.append_message(user("two"))  # type: ignore[arg-type]
    contents = read_session_file(path)
    assert contents.valid and [e["id"] for e in contents.entries] == [first, second]


def test_appends_follow_the_file_the_path_names(tmp_path: Path) -> None:
    """A file replaced under the session (an editor's save, a sync tool) gets the next entries, as
    does a file deleted after appends went to it."""
    manager = SessionManager.create(str(tmp_path), tmp_path / "s")
    ids = [manager.append_message(user(f"m{i}")) for i in range(3)]  # type: ignore[arg-type]
    path = manager.get_session_file()
    assert path is not None
    copy = path.with_name("copy.jsonl")
    copy.write_bytes(path.read_bytes())
    os.replace(copy, path)  # the same records, another file
    ids.append(manager.append_message(user("after the replacement")))  # type: ignore[arg-type]
    assert [e["id"] for e in read_session_file(path).entries] == ids
    os.unlink(path)
    ids.append(manager.append_message(user("after the deletion")))  # type: ignore[arg-type]
    contents = read_session_file(path)
    assert contents.valid and [e["id"] for e in contents.entries] == ids
