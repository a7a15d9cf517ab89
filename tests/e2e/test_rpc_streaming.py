"""RPC while a run is going: queueing (steer/follow-up), abort, and a client that stops reading."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _pi_env import PiEnv
from _rpc_client import RpcClient

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep, ToolCallStep

StartRpc = Callable[..., RpcClient]

STREAMING_BEHAVIOR_REQUIRED = (
    "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
)


def gated_tool_call(gate: Path) -> ScriptedResponse:
    """A bash call that runs until the test creates ``gate``: the run is busy for as long as needed."""
    command = f"while [ ! -f {gate} ]; do sleep 0.01; done; echo released"
    return ScriptedResponse(steps=[ToolCallStep("bash", {"command": command}, id="call_gate")])


def user_texts(request_body: dict[str, Any]) -> list[str]:
    texts = []
    for message in request_body["messages"]:
        if message["role"] != "user":
            continue
        content = message["content"]
        texts.append(content if isinstance(content, str) else "".join(p.get("text", "") for p in content))
    return texts


def test_prompt_while_streaming_needs_a_streaming_behavior(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    gate = pi_env.cwd / "gate"
    pi_env.server.push(
        gated_tool_call(gate),
        ScriptedResponse(steps=[TextStep("steered answer")]),
        ScriptedResponse(steps=[TextStep("follow-up answer")]),
    )
    client = start_rpc()
    start = client.mark()
    assert client.request("prompt", message="run the tool")["success"] is True
    client.wait_event("tool_execution_start", start=start)

    refused = client.request("prompt", message="hello?")
    assert refused["success"] is False
    assert refused["error"] == STREAMING_BEHAVIOR_REQUIRED
    assert client.request("get_state")["data"]["isStreaming"] is True

    steered = client.request("prompt", message="use yarn", streamingBehavior="steer")
    assert steered["success"] is True and steered["data"] == {"disposition": "queued"}
    assert client.wait_event("queue_update", start=start) == {
        "type": "queue_update",
        "steering": ["use yarn"],
        "followUp": [],
    }
    followed = client.request("prompt", message="then test", streamingBehavior="followUp")
    assert followed["data"] == {"disposition": "queued"}
    client.wait_event("queue_update", start=start, steering=["use yarn"], followUp=["then test"])
    assert client.request("get_state")["data"]["pendingMessageCount"] == 2

    gate.touch()
    client.wait_event("agent_settled", start=start)
    events = client.events(start)
    kinds = [e["type"] for e in events]
    # The steering message is announced as removed, then starts as a user message after the tool turn.
    steer_removed = next(
        i for i, e in enumerate(events) if e == {"type": "queue_update", "steering": [], "followUp": ["then test"]}
    )
    steer_user = next(
        i
        for i, e in enumerate(events)
        if e["type"] == "message_start" and e["message"]["role"] == "user" and "use yarn" in json.dumps(e["message"])
    )
    assert kinds.index("tool_execution_end") < steer_removed < steer_user
    follow_user = next(
        i
        for i, e in enumerate(events)
        if e["type"] == "message_start" and e["message"]["role"] == "user" and "then test" in json.dumps(e["message"])
    )
    assert steer_user < follow_user
    assert kinds.count("agent_settled") == 1 and kinds[-1] == "agent_settled"

    requests = pi_env.server.requests
    assert len(requests) == 3
    assert user_texts(requests[1].json)[-1] == "use yarn"
    assert user_texts(requests[2].json)[-1] == "then test"
    assert client.request("get_last_assistant_text")["data"]["text"] == "follow-up answer"


def test_steer_follow_up_and_clear_queue(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    gate = pi_env.cwd / "gate"
    pi_env.server.push(gated_tool_call(gate), ScriptedResponse(steps=[TextStep("only answer")]))
    client = start_rpc()
    start = client.mark()
    client.request("prompt", message="run the tool")
    client.wait_event("tool_execution_start", start=start)

    steer = client.request("steer", message="steer me")
    follow = client.request("follow_up", message="follow me")
    # Pi's shape: RpcClient.steer()/followUp() return data.disposition.
    assert steer["success"] is True and steer["data"] == {"disposition": "queued"}
    assert follow["success"] is True and follow["data"] == {"disposition": "queued"}
    client.wait_event("queue_update", start=start, steering=["steer me"], followUp=["follow me"])

    cleared = client.request("clear_queue")
    assert cleared["data"] == {"steering": ["steer me"], "followUp": ["follow me"]}
    client.wait_event("queue_update", start=start, steering=[], followUp=[])

    gate.touch()
    client.wait_event("agent_settled", start=start)
    assert len(pi_env.server.requests) == 2
    assert "steer me" not in json.dumps(pi_env.server.requests[1].json)


def test_abort_while_streaming(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    pi_env.server.push(ScriptedResponse(steps=[TextStep("word " * 400, chunks=200)], chunk_delay_ms=20))
    client = start_rpc()
    start = client.mark()
    client.request("prompt", message="talk for a long time")
    client.wait_for(
        lambda r: r["type"] == "message_update" and r["assistantMessageEvent"]["type"] == "text_delta", start=start
    )
    abort_id = client.command("abort")
    response = client.response(abort_id)
    assert response["success"] is True and "data" not in response

    records = client.records[start:]
    settled = records.index({"type": "agent_settled", "aborted": True})
    end = next(i for i, r in enumerate(records) if r["type"] == "message_end" and r["message"]["role"] == "assistant")
    assert records[end]["message"]["stopReason"] == "aborted"
    assert end < settled < records.index(response)  # the response comes once the session is idle
    assert records[settled - 1]["type"] == "agent_end" and records[settled - 1]["willRetry"] is False
    assert client.request("get_state")["data"]["isStreaming"] is False

    # The session is usable afterwards.
    pi_env.server.push(ScriptedResponse(steps=[TextStep("fresh")]))
    client.prompt_and_settle("again")
    assert client.request("get_last_assistant_text")["data"]["text"] == "fresh"


def test_a_client_that_stops_reading_loses_nothing(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    # Far more output than a pipe buffer holds while nobody reads.
    text = "".join(f"chunk {i:05d} of a long answer. " for i in range(4000))
    pi_env.server.push(ScriptedResponse(steps=[TextStep(text, chunks=4000)]))
    client = start_rpc(read=False)
    client.send({"id": "p", "type": "prompt", "message": "write a lot"})
    deadline = time.monotonic() + 30
    while pi_env.server.completed_streams < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert pi_env.server.completed_streams == 1  # the agent was not held up by the stalled reader
    time.sleep(0.2)

    client.start_reading()
    settled = client.wait_event("agent_settled")
    assert settled == {"type": "agent_settled", "aborted": False}
    deltas = [
        r["assistantMessageEvent"]["delta"]
        for r in client.records
        if r["type"] == "message_update" and r["assistantMessageEvent"]["type"] == "text_delta"
    ]
    assert len(deltas) == 4000
    assert "".join(deltas) == text
    end = next(r for r in client.records if r["type"] == "message_end" and r["message"]["role"] == "assistant")
    assert end["message"]["content"][0]["text"] == text
    assert client.records[0] == {"id": "p", "type": "response", "command": "prompt", "success": True,
                                 "data": {"disposition": "started"}}  # fmt: skip
