from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from pi_harness.coding.config.trust import TrustStore, decide_project_trust, find_protected_resources


async def test_no_protected_resources_needs_no_decision(tmp_path: Path, agent_dir: Path) -> None:
    (tmp_path / ".pi").mkdir()  # a bare .pi directory needs no decision
    decision = await decide_project_trust(tmp_path, store=TrustStore(agent_dir))
    assert decision.trusted is True and decision.source == "none" and not decision.needs_prompt


async def test_decision_order(tmp_path: Path, agent_dir: Path) -> None:
    (tmp_path / ".pi" / "skills").mkdir(parents=True)
    (tmp_path / ".git").mkdir()
    store = TrustStore(agent_dir)

    async def says_no(cwd: str, resources: list[str]) -> bool | None:
        assert resources == [str((tmp_path / ".pi" / "skills").resolve())]
        return False

    async def abstains(cwd: str, resources: list[str]) -> bool | None:
        return None

    assert (await decide_project_trust(tmp_path, store=store, cli_approve=True, ask_extensions=says_no)).source == "cli"
    d = await decide_project_trust(tmp_path, store=store, ask_extensions=says_no)
    assert (d.trusted, d.source) == (False, "extension")
    d = await decide_project_trust(tmp_path, store=store, ask_extensions=abstains)
    assert (d.trusted, d.source) == (None, "default") and d.needs_prompt
    assert d.effective(interactive=False) is False  # non-interactive "ask" skips
    store.save(tmp_path, True)
    d = await decide_project_trust(tmp_path, store=store, ask_extensions=abstains)
    assert (d.trusted, d.source) == (True, "saved")
    d = await decide_project_trust(tmp_path / "", store=store, default="never")
    assert d.trusted is True  # saved beats default
    other = tmp_path / "other"
    (other / ".pi").mkdir(parents=True)
    (other / ".pi" / "SYSTEM.md").write_text("x")
    assert (await decide_project_trust(other, store=store, default="never")).trusted is False
    assert (await decide_project_trust(other, store=store, default="always")).trusted is True


def test_trust_file_format_and_mode(tmp_path: Path, agent_dir: Path) -> None:
    store = TrustStore(agent_dir)
    store.save(tmp_path, False)
    data = json.loads((agent_dir / "trust.json").read_text())
    assert data["version"] == 1
    record = data["decisions"][os.path.realpath(tmp_path)]
    assert record["trusted"] is False and record["decidedAt"].endswith("Z")
    assert stat.S_IMODE((agent_dir / "trust.json").stat().st_mode) == 0o600
    assert store.get(tmp_path) is False


def test_agents_skills_in_ancestors_up_to_git_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    sub = repo / "a" / "b"
    sub.mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / ".agents" / "skills").mkdir(parents=True)
    (tmp_path / ".agents" / "skills").mkdir(parents=True)  # above the git root: not part of the project
    found = find_protected_resources(sub)
    assert found == [str((repo / ".agents" / "skills").resolve())]
