from __future__ import annotations

from pathlib import Path

import pytest
from _cli_helpers import RunPi

from pi_harness.cli.args import parse_args
from pi_harness.cli.session_selection import (
    NO_SESSION_FOUND,
    SessionAction,
    confirms,
    is_session_path,
    resolve_session_dir,
    select_session_action,
    session_flag_conflicts,
    session_id_error,
)


def errors(argv: list[str]) -> list[str]:
    return [d.format() for d in session_flag_conflicts(parse_args(argv))]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], SessionAction("create")),
        (["--no-session", "-c"], SessionAction("in_memory")),
        (["--help"], SessionAction("in_memory")),
        (["--list-models"], SessionAction("in_memory")),
        (["--fork", "abc123"], SessionAction("fork", "abc123", False)),
        (["--fork", "old.jsonl", "--session-id", "new-id"], SessionAction("fork", "old.jsonl", True, "new-id")),
        (["--session", "abc"], SessionAction("open", "abc", False)),
        (["--session", "dir/file"], SessionAction("open", "dir/file", True)),
        (["--session", "abc", "-r", "-c"], SessionAction("open", "abc", False)),
        (["-r", "-c"], SessionAction("resume")),
        (["-c"], SessionAction("continue")),
        (["--session-id", "my-id"], SessionAction("open_or_create_id", session_id="my-id")),
    ],
)
def test_first_applicable_row_wins(argv: list[str], expected: SessionAction) -> None:
    assert select_session_action(parse_args(argv)) == expected


@pytest.mark.parametrize(
    ("arg", "is_path"),
    [("abc", False), ("a/b", True), ("a\\b", True), ("x.jsonl", True), ("019a-uuid", False)],
)
def test_path_or_id(arg: str, is_path: bool) -> None:
    assert is_session_path(arg) is is_path


def test_fork_conflicts() -> None:
    assert errors(["--fork", "x", "--session", "y"]) == ["Error: --fork cannot be combined with --session"]
    assert errors(["--fork", "x", "-c", "-r", "--no-session"]) == [
        "Error: --fork cannot be combined with --continue, --resume, --no-session"
    ]
    assert errors(["--fork", "x"]) == []


def test_session_id_conflicts() -> None:
    assert errors(["--session-id", "a", "--session", "b", "-c"]) == [
        "Error: --session-id cannot be combined with --session, --continue"
    ]
    assert errors(["--session-id", "a", "-r"]) == ["Error: --session-id cannot be combined with --resume"]
    # allowed: --fork picks the new id with --session-id, and --no-session
    assert errors(["--session-id", "a", "--fork", "b"]) == []
    assert errors(["--session-id", "a", "--no-session"]) == []


def test_malformed_session_id_is_an_error() -> None:
    error = session_id_error(parse_args(["--session-id", "bad id!"]))
    assert error is not None and error.format().startswith("Error: Invalid session id")
    assert session_id_error(parse_args(["--session-id", "good-id.1"])) is None
    assert session_id_error(parse_args([])) is None


def test_conflicts_exit_1_from_the_command(run_pi: RunPi) -> None:
    result = run_pi("--fork", "abc", "--continue", "hello")
    assert result.returncode == 1
    assert result.stderr == "Error: --fork cannot be combined with --continue\n"


def test_session_dir_precedence(tmp_path: Path) -> None:
    env = {"PI_CODING_AGENT_SESSION_DIR": "/from/env"}
    assert resolve_session_dir("/from/flag", "/from/setting", environ=env) == Path("/from/flag")
    assert resolve_session_dir(None, "/from/setting", environ=env) == Path("/from/env")
    assert resolve_session_dir(None, "/from/setting", environ={}) == Path("/from/setting")
    assert resolve_session_dir(None, None, environ={}) is None
    assert resolve_session_dir("rel", None, cwd=tmp_path, environ={}) == tmp_path / "rel"


def test_texts_and_confirmation() -> None:
    assert NO_SESSION_FOUND.format(arg="zz") == "No session found matching 'zz'"
    assert confirms("y") and confirms(" YES ") and not confirms("") and not confirms("no")
