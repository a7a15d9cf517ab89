"""git-checkpoint and auto-commit-on-exit in real git repositories."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _examples_support import ExampleHost, UIClient, bound_runner, git, git_repo, load_example, sdk_session

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": 1}


def assistant(text: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "api": "faux",
        "provider": "faux",
        "model": "m",
        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0},
        "stopReason": "stop",
        "timestamp": 2,
    }


TOOL_RESULT: dict[str, Any] = {
    "toolName": "write",
    "toolCallId": "c1",
    "input": {},
    "content": [],
    "details": None,
    "isError": False,
}


# -- git-checkpoint ----------------------------------------------------------------------------


async def test_checkpoint_maps_the_user_message_to_the_state_before_its_run(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo", {"a.txt": "v0\n"})
    (repo / "a.txt").write_text("v1\n")  # uncommitted work before the prompt
    client = UIClient({"value": "Yes, restore code to that point"})
    host = ExampleHost(repo)
    runner, errors = await bound_runner("git_checkpoint", host, client=client)
    await runner.emit("session_start", {"reason": "startup"})

    await runner.emit("turn_start", {"turnIndex": 0})
    prompt_id = host.session_manager.append_message(user("change a"))
    host.session_manager.append_message(assistant("writing"))
    (repo / "a.txt").write_text("v2\n")  # the tool's effect
    await runner.emit_tool_result(TOOL_RESULT)
    await runner.emit("turn_start", {"turnIndex": 1})
    (repo / "a.txt").write_text("v3\n")
    await runner.emit_tool_result(TOOL_RESULT)
    await runner.emit("agent_end", {"messages": []})

    assert await runner.emit_session_before("session_before_fork", {"entryId": prompt_id}) is None
    assert errors == []
    assert (repo / "a.txt").read_text() == "v1\n"  # as it was before the prompt, not after turn 0
    assert client.dialogs[0]["title"] == "Restore code state?"
    assert client.dialogs[0]["options"] == ["Yes, restore code to that point", "No, keep current code"]
    assert client.notifications == [("Code restored to checkpoint", "info")]
    # The state that was replaced is kept in the stash list.
    assert "pi: working tree before restoring a checkpoint" in git(repo, "stash", "list")
    assert git(repo, "show", "stash@{0}:a.txt") == "v3\n"
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "1"  # history untouched


async def test_checkpoint_on_a_clean_tree_restores_head(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo", {"a.txt": "v0\n"})
    client = UIClient({"value": "Yes, restore code to that point"})
    host = ExampleHost(repo)
    runner, _ = await bound_runner("git_checkpoint", host, client=client)
    await runner.emit("session_start", {})
    await runner.emit("turn_start", {"turnIndex": 0})
    prompt_id = host.session_manager.append_message(user("change a"))
    (repo / "a.txt").write_text("changed\n")
    await runner.emit_tool_result(TOOL_RESULT)
    await runner.emit_session_before("session_before_fork", {"entryId": prompt_id})
    assert (repo / "a.txt").read_text() == "v0\n"


async def test_checkpoint_declined_without_ui_or_unknown_entry_keeps_files(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo", {"a.txt": "v0\n"})
    for client in (None, UIClient({"value": "No, keep current code"})):
        host = ExampleHost(repo)
        runner, _ = await bound_runner("git_checkpoint", host, client=client)
        await runner.emit("session_start", {})
        await runner.emit("turn_start", {"turnIndex": 0})
        prompt_id = host.session_manager.append_message(user("change a"))
        (repo / "a.txt").write_text("changed\n")
        await runner.emit_tool_result(TOOL_RESULT)
        await runner.emit_session_before("session_before_fork", {"entryId": "unknown"})
        await runner.emit_session_before("session_before_fork", {"entryId": prompt_id})
        assert (repo / "a.txt").read_text() == "changed\n"
        if client is not None:
            assert len(client.dialogs) == 1  # asked only for the entry with a snapshot
    assert git(repo, "stash", "list") == ""


async def test_checkpoint_outside_a_repository_does_nothing(tmp_path: Path) -> None:
    client = UIClient()
    host = ExampleHost(tmp_path)
    runner, errors = await bound_runner("git_checkpoint", host, client=client)
    await runner.emit("session_start", {})
    await runner.emit("turn_start", {"turnIndex": 0})
    prompt_id = host.session_manager.append_message(user("x"))
    await runner.emit_tool_result(TOOL_RESULT)
    await runner.emit_session_before("session_before_fork", {"entryId": prompt_id})
    assert client.requests == [] and errors == []


async def test_checkpoint_end_to_end_fork_restores_the_files(server: FakeLLMServer, tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo", {"notes.txt": "original\n"})
    server.push(
        ScriptedResponse(steps=[ToolCallStep("write", {"path": "notes.txt", "content": "rewritten\n"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("Rewrote the notes.")]),
    )
    client = UIClient({"value": "Yes, restore code to that point"})
    result = await sdk_session(server, repo, "git_checkpoint", client=client)
    session = result.session
    await session.prompt("rewrite the notes")
    assert (repo / "notes.txt").read_text() == "rewritten\n"

    prompt_entry = session.get_fork_messages()[0]["entryId"]
    outcome = await result.runtime.fork(prompt_entry)

    assert outcome["cancelled"] is False and outcome["text"] == "rewrite the notes"
    assert (repo / "notes.txt").read_text() == "original\n"
    assert client.notifications == [("Code restored to checkpoint", "info")]
    await result.runtime.shutdown()


# -- auto-commit-on-exit -----------------------------------------------------------------------


def test_commit_message_rules() -> None:
    module = load_example("auto_commit_on_exit")
    assert module.commit_message("Fixed the parser.\nDetails follow") == "[pi] Fixed the parser."
    long = "x" * 60
    assert module.commit_message(long) == f"[pi] {'x' * 50}..."
    assert module.commit_message("y" * 50) == f"[pi] {'y' * 50}"
    assert module.commit_message("") == "[pi] Work in progress"


async def test_auto_commit_on_shutdown_is_idempotent(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo")
    (repo / "new.txt").write_text("data\n")
    client = UIClient()
    host = ExampleHost(repo)
    host.session_manager.append_message(user("add a file"))
    host.session_manager.append_message(assistant("Added new.txt with the data you asked for\nMore text"))
    runner, errors = await bound_runner("auto_commit_on_exit", host, client=client)

    await runner.emit("session_shutdown", {})
    await runner.emit("session_shutdown", {})

    assert errors == []
    log = git(repo, "log", "--format=%s").splitlines()
    assert log == ["[pi] Added new.txt with the data you asked for", "initial"]
    assert git(repo, "status", "--porcelain") == ""
    assert client.notifications == [("Auto-committed: [pi] Added new.txt with the data you asked for", "info")]


async def test_auto_commit_without_changes_or_repository_does_nothing(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo")
    for cwd in (repo, tmp_path / "plain"):
        cwd.mkdir(exist_ok=True)
        runner, errors = await bound_runner("auto_commit_on_exit", ExampleHost(cwd))
        await runner.emit("session_shutdown", {})
        assert errors == []
    assert git(repo, "log", "--format=%s").splitlines() == ["initial"]


async def test_auto_commit_end_to_end_on_runtime_shutdown(server: FakeLLMServer, tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo")
    server.push(
        ScriptedResponse(steps=[ToolCallStep("write", {"path": "hello.py", "content": "print('hi')\n"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("Created hello.py, a script that greets the world and exits cleanly.")]),
    )
    result = await sdk_session(server, repo, "auto_commit_on_exit")
    await result.session.prompt("write a greeting script")
    await result.runtime.shutdown()
    await result.runtime.shutdown()

    assert git(repo, "log", "--format=%s").splitlines() == [
        "[pi] Created hello.py, a script that greets the world a...",  # 50 characters, then "..."
        "initial",
    ]
    assert git(repo, "show", "HEAD:hello.py") == "print('hi')\n"


# -- git-merge-and-resolve ---------------------------------------------------------------------


def upstream_pair(tmp_path: Path, local_text: str, upstream_text: str) -> Path:
    """A clone tracking ``origin/main``; origin got ``upstream_text`` after the clone, the clone
    committed ``local_text``, both in ``app.txt``."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    seed = git_repo(tmp_path / "seed", {"app.txt": "one\ntwo\nthree\n"})
    git(seed, "branch", "-M", "main")
    git(seed, "push", "-q", str(origin), "main")
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(origin), str(work))
    for repo, text in ((seed, upstream_text), (work, local_text)):
        git(repo, "config", "user.name", "Test")
        git(repo, "config", "user.email", "test@example.com")
        (repo / "app.txt").write_text(text)
        git(repo, "commit", "-qam", f"change in {repo.name}")
    git(seed, "push", "-q", str(origin), "main")
    return work


async def test_merge_and_resolve_sends_the_conflicts_as_a_follow_up(server: FakeLLMServer, tmp_path: Path) -> None:
    work = upstream_pair(tmp_path, "one\nTWO (local)\nthree\n", "one\nTWO (upstream)\nthree\n")
    server.push(ScriptedResponse(steps=[TextStep("Done.")]), ScriptedResponse(steps=[TextStep("Resolving.")]))
    result = await sdk_session(server, work, "git_merge_and_resolve", client=UIClient())

    await result.session.prompt("do the work")
    await result.session.wait_for_idle()

    assert len(server.requests) == 2
    follow_up = server.requests[1].json["messages"][-1]["content"]
    follow_up = follow_up if isinstance(follow_up, str) else follow_up[0]["text"]
    assert follow_up.startswith("Merging origin/main left conflicts:\n\n  app.txt:2-6 (ours: lines 3, theirs: lines 5)")
    assert "<<<<<<<" in (work / "app.txt").read_text()  # left for the model to resolve
    await result.runtime.shutdown()


async def test_merge_and_resolve_merges_cleanly_and_skips_dirty_trees(server: FakeLLMServer, tmp_path: Path) -> None:
    work = upstream_pair(tmp_path, "one (local)\ntwo\nthree\n", "one\ntwo\nthree (upstream)\n")
    server.push(ScriptedResponse(steps=[TextStep("Done.")]), ScriptedResponse(steps=[TextStep("Done again.")]))
    (work / "scratch.txt").write_text("mine\n")
    result = await sdk_session(server, work, "git_merge_and_resolve")

    await result.session.prompt("first")
    assert "upstream" not in (work / "app.txt").read_text()  # untracked work: no merge
    (work / "scratch.txt").unlink()
    await result.session.prompt("second")
    await result.session.wait_for_idle()

    assert (work / "app.txt").read_text() == "one (local)\ntwo\nthree (upstream)\n"
    assert len(server.requests) == 2  # a clean merge sends nothing
    await result.runtime.shutdown()


def test_merge_and_resolve_finds_conflict_blocks() -> None:
    merge = load_example("git_merge_and_resolve")
    text = "a\n<<<<<<< HEAD\n=======\nb\n>>>>>>> x\n"
    assert merge.conflicts_in("f", text) == [merge.Conflict("f", 2, 3, 5)]
    assert merge.conflict_report("r", merge.conflicts_in("f", text)).splitlines()[2] == (
        "  f:2-5 (ours: lines empty, theirs: lines 4)"
    )
