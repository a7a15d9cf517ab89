"""Lifecycle and safety: dirty-repo-guard in real git repositories."""

from __future__ import annotations

from pathlib import Path

from _examples_support import ExampleHost, UIClient, bound_runner, git_repo, sdk_session

PROCEED, STAY = "Yes, go on anyway", "No, I will commit first"


async def test_dirty_repo_guard_asks_only_with_uncommitted_changes(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo", {"a.txt": "a\n"})
    client = UIClient({"value": STAY}, {"value": PROCEED}, {"cancelled": True})
    runner, errors = await bound_runner("dirty_repo_guard", ExampleHost(repo), client=client)

    assert await runner.emit_session_before("session_before_switch", {"reason": "new"}) is None
    assert client.dialogs == []  # clean tree: nothing to ask

    (repo / "a.txt").write_text("changed\n")
    (repo / "b.txt").write_text("new\n")
    assert await runner.emit_session_before("session_before_switch", {"reason": "new"}) == {"cancel": True}
    assert await runner.emit_session_before("session_before_switch", {"reason": "resume"}) is None
    assert await runner.emit_session_before("session_before_fork", {"entryId": "e1"}) == {"cancel": True}
    titles = [dialog["title"] for dialog in client.dialogs]
    assert titles == [
        "2 uncommitted file(s). Start a new session anyway?",
        "2 uncommitted file(s). Switch sessions anyway?",
        "2 uncommitted file(s). Fork anyway?",
    ]
    assert client.dialogs[0]["options"] == [PROCEED, STAY]
    assert client.notifications == [("Commit (or stash) your changes first", "warning")] * 2
    assert errors == []


async def test_dirty_repo_guard_cancels_without_ui_and_ignores_non_repositories(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo")
    (repo / "README.md").write_text("changed\n")
    runner, _ = await bound_runner("dirty_repo_guard", ExampleHost(repo))
    assert await runner.emit_session_before("session_before_switch", {"reason": "new"}) == {"cancel": True}

    plain = tmp_path / "plain"
    plain.mkdir()
    runner, _ = await bound_runner("dirty_repo_guard", ExampleHost(plain))
    assert await runner.emit_session_before("session_before_fork", {"entryId": "e1"}) is None


async def test_dirty_repo_guard_in_a_real_session(tmp_path: Path) -> None:
    from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

    repo = git_repo(tmp_path / "repo", {"a.txt": "a\n"})
    with FakeLLMServer() as server:
        server.push(ScriptedResponse(steps=[TextStep("Edited.")]))
        client = UIClient({"value": STAY}, {"value": PROCEED})
        result = await sdk_session(server, repo, "dirty_repo_guard", client=client)
        first = result.session
        await first.prompt("change a.txt")
        (repo / "a.txt").write_text("changed\n")

        assert await result.runtime.new_session() == {"cancelled": True}
        assert result.runtime.session is first
        assert (await result.runtime.new_session()).get("cancelled") is False
        assert result.runtime.session is not first
        assert len(client.dialogs) == 2
        await result.runtime.shutdown()
