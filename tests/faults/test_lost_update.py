"""Another writer changes a file between the model's read and its edit: the edit is refused and
the other writer's content stays (real ``pi`` in RPC mode against the fake LLM server;
``tools.staleEditCheck``, on by default, and ``tools.staleWriteCheck``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from _faults import check_session, tool_results
from _pi_env import PiEnv
from _rpc_client import RpcClient

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep, ToolCallStep

StartRpc = Callable[..., RpcClient]


def edit_step(old: str, new: str, call_id: str) -> ToolCallStep:
    return ToolCallStep("edit", {"path": "notes.txt", "edits": [{"oldText": old, "newText": new}]}, id=call_id)


def turn(pi_env: PiEnv, step: ToolCallStep) -> None:
    pi_env.server.push(ScriptedResponse(steps=[step]), ScriptedResponse(steps=[TextStep("ok")]))


def result_of(records: list[dict[str, Any]], call_id: str) -> dict[str, Any]:
    return next(r for r in records if r.get("type") == "tool_execution_end" and r["toolCallId"] == call_id)


def test_edit_after_a_concurrent_change_fails_and_keeps_the_other_writers_content(
    pi_env: PiEnv, start_rpc: StartRpc
) -> None:
    notes = pi_env.cwd / "notes.txt"
    notes.write_text("alpha\nbeta\n")
    client = start_rpc()

    turn(pi_env, ToolCallStep("read", {"path": "notes.txt"}, id="read_1"))
    client.prompt_and_settle("look at the notes")
    notes.write_text("alpha\nbeta\ngamma (added by the user)\n")  # the other writer

    turn(pi_env, edit_step("beta", "BETA", "edit_1"))
    stale = result_of(client.prompt_and_settle("shout beta"), "edit_1")
    assert stale["isError"] is True
    text = stale["result"]["content"][0]["text"]
    assert "notes.txt has changed on disk since you last read it" in text and "Read notes.txt again" in text
    assert notes.read_text() == "alpha\nbeta\ngamma (added by the user)\n"

    turn(pi_env, ToolCallStep("read", {"path": "notes.txt"}, id="read_2"))
    client.prompt_and_settle("read it again")
    turn(pi_env, edit_step("beta", "BETA", "edit_2"))
    fresh = result_of(client.prompt_and_settle("shout beta now"), "edit_2")
    assert fresh["isError"] is False, fresh
    assert notes.read_text() == "alpha\nBETA\ngamma (added by the user)\n"

    # The model's own edit keeps the record current: a second edit needs no new read.
    turn(pi_env, edit_step("alpha", "ALPHA", "edit_3"))
    assert result_of(client.prompt_and_settle("shout alpha"), "edit_3")["isError"] is False
    assert notes.read_text() == "ALPHA\nBETA\ngamma (added by the user)\n"
    client.close_stdin()
    assert client.wait_exit() == 0

    [session] = pi_env.sessions()
    results = {str(r["toolCallId"]): r for r in tool_results(check_session(session))}
    assert results["edit_1"]["isError"] is True and results["edit_2"]["isError"] is False


def test_write_over_a_concurrent_change_only_when_enabled(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    notes = pi_env.cwd / "notes.txt"
    notes.write_text("draft\n")
    pi_env.configure(settings={"tools": {"staleWriteCheck": True}})
    client = start_rpc()
    turn(pi_env, ToolCallStep("read", {"path": "notes.txt"}, id="read_1"))
    client.prompt_and_settle("look")
    notes.write_text("the user's version\n")
    turn(pi_env, ToolCallStep("write", {"path": "notes.txt", "content": "model version\n"}, id="write_1"))
    refused = result_of(client.prompt_and_settle("rewrite"), "write_1")
    assert refused["isError"] is True
    assert "so the write was not applied" in refused["result"]["content"][0]["text"]
    assert notes.read_text() == "the user's version\n"
    client.close_stdin()
    assert client.wait_exit() == 0


def test_edit_of_a_file_never_read_works_as_in_pi(pi_env: PiEnv) -> None:
    notes = pi_env.cwd / "notes.txt"
    notes.write_text("alpha\n")
    turn(pi_env, edit_step("alpha", "omega", "edit_1"))
    result = pi_env.run("-p", "change it")
    assert result.returncode == 0, result.stderr
    assert notes.read_text() == "omega\n"
