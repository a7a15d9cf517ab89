from __future__ import annotations

from pathlib import Path

from pi_harness.coding.resources.context_files import load_context_files
from pi_harness.coding.resources.diagnostics import ResourceDiagnostic


def test_global_then_root_to_cwd_first_name_per_directory(tmp_path: Path, agent_dir: Path) -> None:
    (agent_dir / "AGENTS.md").write_text("global")
    outer = tmp_path / "outer"
    inner = outer / "inner"
    inner.mkdir(parents=True)
    (outer / "CLAUDE.md").write_text("outer claude")
    (inner / "AGENTS.md").write_text("inner agents")
    (inner / "CLAUDE.md").write_text("inner claude (ignored: AGENTS.md comes first)")
    files = load_context_files(inner, agent_dir)
    assert [f.content for f in files] == ["global", "outer claude", "inner agents"]
    assert files[2].path == str((inner / "AGENTS.md").resolve())


def test_override_replaces_only_its_own_directory(tmp_path: Path, agent_dir: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    (tmp_path / "AGENTS.md").write_text("parent")
    (sub / "AGENTS.md").write_text("sub normal")
    (sub / "AGENTS.override.md").write_text("sub override")
    contents = [f.content for f in load_context_files(sub, agent_dir)]
    assert contents[-2:] == ["parent", "sub override"]


def test_symlinked_duplicates_and_unreadable_files(tmp_path: Path, agent_dir: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("once")
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "AGENTS.md").symlink_to(tmp_path / "AGENTS.md")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "AGENTS.md").write_bytes(b"\xff\xfe\x00bad")
    diagnostics: list[ResourceDiagnostic] = []
    assert [f.content for f in load_context_files(sub, agent_dir)] == ["once"]
    load_context_files(bad, agent_dir, diagnostics)
    assert diagnostics and diagnostics[0].kind == "warning"
