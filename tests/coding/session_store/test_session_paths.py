"""Session locations and names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _session_helpers import user

from pi_harness.coding.session_store import (
    SessionManager,
    agent_dir,
    default_session_dir,
    encode_cwd,
    resolve_session_dir,
    session_file_name,
)


def test_cwd_encoding_matches_pi() -> None:
    assert encode_cwd("/home/ann/proj") == "--home-ann-proj--"
    assert encode_cwd("C:\\Users\\ann\\proj") == "--C--Users-ann-proj--"
    assert encode_cwd("\\\\server\\share") == "---server-share--"


def test_agent_dir_comes_from_env_or_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "custom"))
    assert agent_dir() == tmp_path / "custom"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "~/elsewhere")
    assert agent_dir() == Path.home() / "elsewhere"
    monkeypatch.delenv("PI_CODING_AGENT_DIR")
    assert agent_dir() == Path.home() / ".pi" / "agent"
    assert agent_dir(tmp_path / "sdk") == tmp_path / "sdk"


def test_default_dir_is_per_project_under_the_agent_dir(agent_dir: Path) -> None:
    assert default_session_dir("/home/ann/proj") == agent_dir / "sessions" / "--home-ann-proj--"


def test_session_dir_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_session_dir(None, None) is None
    assert resolve_session_dir(None, "/from/settings") == Path("/from/settings")
    monkeypatch.setenv("PI_CODING_AGENT_SESSION_DIR", "/from/env")
    assert resolve_session_dir(None, "/from/settings") == Path("/from/env")
    assert resolve_session_dir("/from/flag", "/from/settings") == Path("/from/flag")


def test_file_name_uses_header_timestamp_and_id() -> None:
    assert session_file_name("2024-12-03T14:00:00.000Z", "abc") == "2024-12-03T14-00-00-000Z_abc.jsonl"


def test_created_session_lives_in_the_project_dir(agent_dir: Path, tmp_path: Path) -> None:
    project = tmp_path / "my proj"
    manager = SessionManager.create(str(project))
    manager.append_message(user("hi"))  # type: ignore[arg-type]
    path = manager.get_session_file()
    assert path is not None and path.parent == agent_dir / "sessions" / encode_cwd(str(project))
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl", path.name)
    assert path.exists()


def test_explicit_session_dir_holds_files_directly(tmp_path: Path) -> None:
    manager = SessionManager.create(str(tmp_path / "p"), tmp_path / "flat")
    manager.append_message(user("hi"))  # type: ignore[arg-type]
    path = manager.get_session_file()
    assert path is not None and path.parent == tmp_path / "flat"


def test_a_deeply_nested_project_still_saves_its_sessions(agent_dir: Path, tmp_path: Path) -> None:
    project = tmp_path.joinpath(*(["nested-directory-level"] * 14), "project")
    project.mkdir(parents=True)
    name = encode_cwd(str(project))
    assert len(name.encode()) <= 255 and name.startswith("--") and name.endswith("--")
    assert encode_cwd(str(project.with_name("other"))) != name  # the hash keeps long paths apart
    manager = SessionManager.create(str(project))
    manager.append_message(user("hi"))  # type: ignore[arg-type]
    path = manager.get_session_file()
    assert path is not None and path.exists() and path.parent.name == name
