from __future__ import annotations

import asyncio
import json
from typing import Any

from pi_harness.ai.abort import AbortController
from pi_harness.cli.modes.rpc.framing import LineSplitter
from pi_harness.cli.modes.rpc.ui import RpcExtensionUI
from pi_harness.cli.records import event_record


def test_lines_split_on_lf_only_and_keep_u2028() -> None:
    record = json.dumps({"type": "prompt", "message": "a\u2028b\u2029c"}, ensure_ascii=False).encode()
    splitter = LineSplitter()
    data = record + b"\r\n" + b'{"type":"abort"}\n' + b'{"type":"get_state"}'
    lines: list[str] = []
    for i in range(0, len(data), 3):  # split mid-record and mid-character
        lines += splitter.feed(data[i : i + 3])
    lines += splitter.finish()
    assert [json.loads(line)["type"] for line in lines] == ["prompt", "abort", "get_state"]
    assert json.loads(lines[0])["message"] == "a\u2028b\u2029c"
    assert "a\u2028b\u2029c".splitlines() != ["a\u2028b\u2029c"]  # what a naive reader would break


def test_message_update_records_are_delta_only() -> None:
    partial = {
        "role": "assistant",
        "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}],
        "usage": {"input": 5},
        "stopReason": "pending",
    }
    event = {
        "type": "message_update",
        "message": partial,
        "runId": "r",
        "assistantMessageEvent": {"type": "toolcall_start", "contentIndex": 0, "partial": partial},
    }
    assert event_record(event) == {
        "type": "message_update",
        "usage": {"input": 5},
        "runId": "r",
        "assistantMessageEvent": {"type": "toolcall_start", "contentIndex": 0, "id": "c1", "toolName": "read"},
    }
    other = {"type": "turn_end", "message": partial, "toolResults": []}
    assert event_record(other) is other


async def test_rpc_ui_dialogs_answered_timed_out_and_aborted() -> None:
    sent: list[dict[str, Any]] = []
    ui = RpcExtensionUI(sent.append)

    async def answer_later() -> None:
        await asyncio.sleep(0.01)
        ui.handle_response({"type": "extension_ui_response", "id": "unknown", "value": "x"})  # ignored
        ui.handle_response({"type": "extension_ui_response", "id": sent[0]["id"], "value": "Yes"})

    answering = asyncio.ensure_future(answer_later())
    assert await ui.select("Allow?", ["Yes", "No"]) == "Yes"
    await answering
    assert sent[0]["method"] == "select" and sent[0]["options"] == ["Yes", "No"] and "timeout" not in sent[0]

    assert await ui.confirm("Sure?", "really", timeout=0.05) is False
    assert sent[1]["method"] == "confirm" and sent[1]["timeout"] == 50

    controller = AbortController()
    controller.abort()
    assert await ui.input("Name", signal=controller.signal) is None
    assert len(sent) == 2  # an already-aborted dialog sends nothing

    async def cancel_later() -> None:
        await asyncio.sleep(0.01)
        ui.handle_response({"type": "extension_ui_response", "id": sent[2]["id"], "cancelled": True})

    cancelling = asyncio.ensure_future(cancel_later())
    assert await ui.editor("Edit", "text") is None
    await cancelling
    ui.notify("hi", "warning")
    ui.set_status("k", None)
    ui.set_widget("w", ["a", "b"])
    assert [r["method"] for r in sent[3:]] == ["notify", "setStatus", "setWidget"]
    assert sent[3]["notifyType"] == "warning" and "statusText" not in sent[4] and sent[5]["widgetLines"] == ["a", "b"]
