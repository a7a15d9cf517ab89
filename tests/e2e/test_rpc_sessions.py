"""RPC session commands: new, switch, fork, clone, and the entry/tree views."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from _pi_env import PiEnv
from _rpc_client import RpcClient

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep

StartRpc = Callable[..., RpcClient]


def entries_of(path: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def test_entries_tree_and_fork_messages(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    pi_env.server.push(ScriptedResponse(steps=[TextStep("one")]), ScriptedResponse(steps=[TextStep("two")]))
    client = start_rpc()
    client.prompt_and_settle("first question")
    middle = client.request("get_entries")["data"]
    client.prompt_and_settle("second question")

    everything = client.request("get_entries")["data"]
    assert everything["leafId"] == everything["entries"][-1]["id"]
    later = client.request("get_entries", since=middle["leafId"])["data"]
    assert later["entries"] == everything["entries"][len(middle["entries"]) :]
    assert later["leafId"] == everything["leafId"]

    tree = client.request("get_tree")["data"]
    assert tree["leafId"] == everything["leafId"]
    node = tree["tree"][0]
    seen = []
    while True:
        assert set(node) >= {"entry", "children"}
        seen.append(node["entry"]["id"])
        if not node["children"]:
            break
        [node] = node["children"]
    assert seen == [e["id"] for e in everything["entries"]]

    forks = client.request("get_fork_messages")["data"]["messages"]
    assert [m["text"] for m in forks] == ["first question", "second question"]
    assert all(set(m) == {"entryId", "text"} for m in forks)


def test_new_switch_fork_and_clone(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    pi_env.server.push(
        ScriptedResponse(steps=[TextStep("one")]),
        ScriptedResponse(steps=[TextStep("two")]),
        ScriptedResponse(steps=[TextStep("in the new session")]),
    )
    client = start_rpc()
    client.prompt_and_settle("first question")
    client.prompt_and_settle("second question")
    original = client.request("get_state")["data"]
    original_file = original["sessionFile"]

    # fork at the second question: a new session holding what came before it
    second = client.request("get_fork_messages")["data"]["messages"][1]
    forked = client.request("fork", entryId=second["entryId"])
    assert forked["data"] == {"text": "second question", "cancelled": False}
    fork_state = client.request("get_state")["data"]
    assert fork_state["sessionId"] != original["sessionId"]
    assert client.request("get_last_assistant_text")["data"]["text"] == "one"
    assert [m["text"] for m in client.request("get_fork_messages")["data"]["messages"]] == ["first question"]

    # clone: a copy of the whole active branch
    cloned = client.request("clone")
    assert cloned["data"] == {"cancelled": False}
    clone_state = client.request("get_state")["data"]
    assert clone_state["sessionId"] not in (original["sessionId"], fork_state["sessionId"])
    assert client.request("get_last_assistant_text")["data"]["text"] == "one"

    # new session: empty; events of the new session still reach the client
    fresh = client.request("new_session")
    assert fresh["data"] == {"cancelled": False}
    new_state = client.request("get_state")["data"]
    assert new_state["messageCount"] == 0 and new_state["sessionId"] != clone_state["sessionId"]
    records = client.prompt_and_settle("hello new session")
    assert any(r["type"] == "agent_start" for r in records)
    assert client.request("get_last_assistant_text")["data"]["text"] == "in the new session"

    # switch back to the original file
    switched = client.request("switch_session", sessionPath=original_file)
    assert switched["data"] == {"cancelled": False}
    state = client.request("get_state")["data"]
    assert state["sessionId"] == original["sessionId"] and state["sessionFile"] == original_file
    assert client.request("get_last_assistant_text")["data"]["text"] == "two"

    client.close_stdin()
    assert client.wait_exit() == 0
    assert len(pi_env.sessions()) == 4
    headers = {Path(p).name: entries_of(str(p))[0] for p in pi_env.sessions()}
    assert sum(1 for h in headers.values() if h.get("parentSession") == original_file) >= 1


def test_new_session_with_parent(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    client = start_rpc()
    before = client.request("get_state")["data"]
    assert client.request("new_session", parentSession="/some/parent.jsonl")["data"] == {"cancelled": False}
    after = client.request("get_state")["data"]
    assert after["sessionId"] != before["sessionId"]


def test_switch_can_be_cancelled_by_an_extension(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    extension = pi_env.cwd / "no_switch.py"
    extension.write_text(
        "def extension(pi):\n"
        "    async def before(event, ctx):\n"
        "        return {'cancel': True}\n"
        "    pi.on('session_before_switch', before)\n"
        "    pi.on('session_before_fork', before)\n"
    )
    client = start_rpc("-e", str(extension))
    state = client.request("get_state")["data"]
    assert client.request("new_session")["data"] == {"cancelled": True}
    assert client.request("clone")["data"] == {"cancelled": True}
    assert client.request("get_state")["data"]["sessionId"] == state["sessionId"]
