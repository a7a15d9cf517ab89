"""``pi --mode rpc`` against about 2,000 hostile input lines from a fixed seed.

Wrong types for every field of every command, invalid JSON, 10,000-deep nesting, U+2028/U+2029,
NUL, lone surrogates (escaped and as raw bytes), invalid UTF-8 and lines of several MB. The
process must stay alive, answer every line with exactly one response (``docs/rpc.md``: a line that
is not JSON gets a ``parse`` response without an id, any other object one response carrying its
``id``) and keep its peak memory (``VmHWM``) bounded.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from _faults import check_session, fault_extension, marks
from _pi_env import PiEnv
from _rpc_client import RpcClient

from pi_harness.cli.modes.rpc.commands import COMMANDS
from pi_harness.testing.fake_llm import ScriptedResponse, TextStep

StartRpc = Callable[..., RpcClient]
SEED = 1402
HUGE_LINE_BYTES = 4 * 1024 * 1024
PEAK_GROWTH_LIMIT_KB = 200 * 1024  # over the RSS before the fuzz (about 35 MB measured): a few copies of a huge line

# The fields each command reads (``cli/modes/rpc/commands.py``); the test fails when a command is
# added there without being listed here.
FIELDS: dict[str, list[str]] = {
    "prompt": ["message", "images", "streamingBehavior"],
    "steer": ["message", "images"],
    "follow_up": ["message", "images"],
    "abort": [],
    "clear_queue": [],
    "new_session": ["parentSession"],
    "get_state": [],
    "get_messages": [],
    "set_model": ["provider", "modelId"],
    "cycle_model": [],
    "get_available_models": [],
    "set_thinking_level": ["level"],
    "cycle_thinking_level": [],
    "get_available_thinking_levels": [],
    "set_steering_mode": ["mode"],
    "set_follow_up_mode": ["mode"],
    "compact": ["customInstructions"],
    "set_auto_compaction": ["enabled"],
    "set_auto_retry": ["enabled"],
    "abort_retry": [],
    "bash": ["command", "excludeFromContext"],
    "abort_bash": [],
    "get_session_stats": [],
    "export_html": ["outputPath"],
    "switch_session": ["sessionPath"],
    "fork": ["entryId"],
    "clone": [],
    "get_fork_messages": [],
    "get_entries": ["since"],
    "get_tree": [],
    "get_last_assistant_text": [],
    "set_session_name": ["name"],
    "get_commands": [],
}
# Commands that change the session or start work even when every field is absent: they are sent
# with wrong fields only, never bare.
NOT_BARE = {"prompt", "steer", "follow_up", "bash", "switch_session", "fork", "set_session_name", "new_session"}
WRONG_VALUES: list[object] = [None, 0, -1, 2**63 - 1, 1.5, True, False, [], [1, "x"], {}, {"a": [None]}, [{}]]


class Fuzz:
    """Lines to send and how many responses (and which ids) they must get."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self.parse_errors = 0  # responses without an id
        self.ids: list[object] = []  # one response each

    def command(self, record: dict[str, object]) -> None:
        self.ids.append(record.get("id"))
        self.lines.append(json.dumps(record, ensure_ascii=False).encode("utf-8", "surrogatepass"))

    def garbage(self, line: bytes) -> None:
        self.parse_errors += 1
        self.lines.append(line)


def build(rng: random.Random) -> Fuzz:
    fuzz = Fuzz()
    counter = iter(range(10**9))

    def new_id() -> str:
        return f"f{next(counter)}"

    # Wrong types for every field of every command, one field at a time.
    for kind, fields in FIELDS.items():
        for field in fields:
            for value in WRONG_VALUES:
                fuzz.command({"type": kind, "id": new_id(), field: value})
        if kind not in NOT_BARE:
            fuzz.command({"type": kind, "id": new_id()})
    # Ids of every type, echoed as sent (on an unknown command and on a read-only one).
    for value in [*WRONG_VALUES, "x" * 1000, "\u2028\u2029", "\x00"]:
        fuzz.command({"type": "get_state", "id": value})
        fuzz.command({"type": "no_such_command", "id": value})
    # Types of every kind.
    for value in WRONG_VALUES:
        fuzz.command({"type": value, "id": new_id()})
    # Structures that are not commands.
    for text in ["[]", "1", '"get_state"', "null", "true", '[{"type":"get_state"}]']:
        fuzz.garbage(text.encode())
    # 10,000-deep nesting, as a whole line and inside a command.
    fuzz.garbage(b"[" * 10_000 + b"]" * 10_000)
    fuzz.garbage(b'{"type":"get_state","id":"deep","x":' + b"[" * 10_000 + b"]" * 10_000 + b"}")
    fuzz.garbage(b'{"a":' * 10_000 + b"1" + b"}" * 10_000)
    # Line separators, NUL and surrogates inside strings, escaped and raw.
    for text in ["a\u2028b", "\u2029", "\x00", "nul\x00inside", "\U0001f600", "\u00e9"]:
        fuzz.command({"type": "no_such_command", "id": new_id(), "message": text})
        fuzz.command({"type": "set_session_name", "id": new_id(), "name": [text]})
    fuzz.garbage(b'{"type":"get_state","id":"lone","x":"\\ud800"}')  # orjson refuses lone surrogates
    fuzz.garbage(b'{"type":"get_state","id":"lone2","x":"\\udfff\\ud800"}')
    fuzz.command({"type": "no_such_command", "id": new_id(), "x": "\udcff"})  # raw surrogate bytes
    fuzz.garbage(b"\x00")
    fuzz.garbage(b"\x00\x00{}")
    fuzz.lines.append(b'{"type":"no_such_command","id":"utf8","x":"\xff\xfe bad bytes"}')  # replaced, still JSON
    fuzz.ids.append("utf8")
    # Huge lines: a huge valid command, a huge wrong field, a huge piece of garbage.
    fuzz.command({"type": "no_such_command", "id": "huge1", "message": "x" * HUGE_LINE_BYTES})
    fuzz.command({"type": "set_thinking_level", "id": "huge2", "level": ["y" * HUGE_LINE_BYTES]})
    fuzz.garbage(b"{" + b"z" * HUGE_LINE_BYTES)
    # Random garbage and cut-off commands up to about 2,000 lines.
    valid = [json.dumps({"type": kind, "id": f"cut-{kind}"}) for kind in FIELDS]
    while len(fuzz.lines) < 2000:
        choice = rng.random()
        if choice < 0.4:
            fuzz.garbage(bytes(rng.randrange(33, 256) for _ in range(rng.randrange(1, 80))).replace(b"\n", b"?"))
        elif choice < 0.7:
            text = rng.choice(valid)
            fuzz.garbage(text[: rng.randrange(1, len(text) - 1)].encode())
        else:
            fuzz.command({"type": f"unknown_{rng.randrange(10**6)}", "id": new_id(), "n": rng.random()})
    for line in fuzz.lines:  # no blank line (those get no response) and no stray line break
        assert line.strip() and b"\n" not in line, line[:100]
    return fuzz


def peak_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


@pytest.mark.timeout(90)
def test_rpc_survives_a_fuzz_and_answers_every_line(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    assert set(FIELDS) == set(COMMANDS), "update FIELDS for the new or removed RPC commands"
    pi_env.server.default = ScriptedResponse(steps=[TextStep("fuzzed")])
    fuzz = build(random.Random(SEED))
    client = start_rpc("--no-session")
    assert client.request("get_state")["success"] is True
    before = peak_rss_kb(client.process.pid)
    start = client.mark()

    writer = threading.Thread(target=lambda: client.send_raw(b"\n".join(fuzz.lines) + b"\n"), daemon=True)
    writer.start()
    writer.join(60)
    expected = len(fuzz.ids) + fuzz.parse_errors

    def responses() -> list[dict[str, object]]:
        return [r for r in client.records[start:] if r.get("type") == "response"]

    client.wait_for(lambda _r: len(responses()) >= expected, start=start, timeout=60)
    # One more command, answered after all of the fuzz: nothing is left over, the process is alive.
    assert client.request("get_state")["success"] is True
    found = responses()[:-1]
    assert len(found) == expected
    parse = [r for r in found if r["command"] == "parse"]
    assert len(parse) == fuzz.parse_errors
    assert all(r["success"] is False and "id" not in r for r in parse)
    got_ids = sorted(json.dumps(r.get("id"), sort_keys=True) for r in found if r["command"] != "parse")
    want_ids = sorted(json.dumps(i, sort_keys=True) for i in fuzz.ids)
    assert got_ids == want_ids
    growth = peak_rss_kb(client.process.pid) - before
    assert growth < PEAK_GROWTH_LIMIT_KB
    client.close_stdin()
    assert client.wait_exit() == 0


# Commands whose required fields are right and whose optional fields are wrong: they do start work.
HALF_WRONG: list[dict[str, object]] = [
    {"type": "prompt", "message": "a", "images": [{}]},
    {"type": "prompt", "message": "b", "images": [{"type": "image", "data": 5, "mimeType": None}]},
    {"type": "prompt", "message": "c", "images": [{"type": "text", "text": ["x"]}]},
    {"type": "prompt", "message": "d", "streamingBehavior": 5},
    {"type": "prompt", "message": "e", "streamingBehavior": "sideways"},
    {"type": "bash", "command": "echo f", "excludeFromContext": {"no": 1}},
    {"type": "bash", "command": "echo g", "excludeFromContext": "false"},
]


@pytest.mark.parametrize("record", HALF_WRONG, ids=[f"{r['type']}-{i}" for i, r in enumerate(HALF_WRONG)])
def test_wrong_optional_fields_fail_cleanly_or_run(
    pi_env: PiEnv, start_rpc: StartRpc, record: dict[str, object]
) -> None:
    pi_env.server.default = ScriptedResponse(steps=[TextStep("answered")])
    client = start_rpc("--no-session")
    start = client.mark()
    response = client.request(str(record["type"]), **{k: v for k, v in record.items() if k != "type"})
    if "images" in record:  # refused: a malformed image would have broken every later request
        assert response["success"] is False and '"images"' in response["error"], response
    if response["success"] and record["type"] == "prompt":
        client.wait_event("agent_settled", start=start)
    # Alive, idle and answering; a following prompt is answered.
    state = client.request("get_state")
    assert state["success"] is True and state["data"]["isStreaming"] is False
    records_ = client.prompt_and_settle("still there?")
    ends = [r["message"] for r in records_ if r["type"] == "message_end" and r["message"]["role"] == "assistant"]
    assert ends[-1]["stopReason"] == "stop", ends[-1].get("errorMessage")
    client.close_stdin()
    assert client.wait_exit() == 0
    assert "Traceback" not in client.stderr


def wrong_values(cwd: Path) -> list[dict[str, object]]:
    """Commands with fields of the right type and wrong values (what a confused client sends)."""
    return [
        {"type": "steer", "message": "s1"},
        {"type": "follow_up", "message": "f1"},
        {"type": "prompt", "message": "while streaming, without streamingBehavior"},
        {"type": "prompt", "message": "p2", "streamingBehavior": "followUp"},
        {"type": "set_model", "provider": "nope", "modelId": "nope"},
        {"type": "set_model", "provider": "fake", "modelId": "fake-model"},
        {"type": "cycle_model"},
        {"type": "set_thinking_level", "level": "banana"},
        {"type": "cycle_thinking_level"},
        {"type": "set_steering_mode", "mode": "banana"},
        {"type": "set_follow_up_mode", "mode": ""},
        {"type": "compact"},
        {"type": "compact", "customInstructions": "x" * 10_000},
        {"type": "get_entries", "since": "no-such-id"},
        {"type": "fork", "entryId": "no-such-id"},
        {"type": "switch_session", "sessionPath": str(cwd / "missing" / "x.jsonl")},
        {"type": "switch_session", "sessionPath": "/etc/passwd"},
        {"type": "switch_session", "sessionPath": ""},
        {"type": "export_html", "outputPath": str(cwd)},
        {"type": "export_html", "outputPath": str(cwd / "out" / "x.html")},
        {"type": "set_session_name", "name": "   "},
        {"type": "set_session_name", "name": "n" * 100_000},
        {"type": "bash", "command": ""},
        {"type": "abort_bash"},
        {"type": "abort_retry"},
        {"type": "clone"},
        {"type": "get_fork_messages"},
        {"type": "get_tree"},
        {"type": "get_session_stats"},
        {"type": "clear_queue"},
        {"type": "new_session", "parentSession": str(cwd / "missing.jsonl")},
        {"type": "abort"},
    ]


def test_wrong_values_while_a_run_streams_leave_every_session_whole(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    pi_env.server.push(ScriptedResponse(steps=[TextStep("a long answer " * 20, chunks=40)], chunk_delay_ms=25))
    pi_env.server.default = ScriptedResponse(steps=[TextStep("default answer")])
    client = start_rpc()
    start = client.mark()
    assert client.request("prompt", message="go")["success"] is True
    client.wait_event("message_update", start=start)
    sent = [
        client.command(str(c["type"]), **{k: v for k, v in c.items() if k != "type"}) for c in wrong_values(pi_env.cwd)
    ]
    answers = [client.response(request_id, timeout=60) for request_id in sent]
    assert all(isinstance(a["success"], bool) for a in answers)
    failed = [a for a in answers if not a["success"]]
    assert all(isinstance(a["error"], str) and a["error"] and "\n" not in a["error"] for a in failed), failed
    client.wait_event("agent_settled", start=start, timeout=60)
    assert client.request("get_state")["data"]["isStreaming"] is False
    client.close_stdin()
    assert client.wait_exit() == 0
    assert "Traceback" not in client.stderr
    for path in [*pi_env.sessions(), *pi_env.cwd.rglob("*.jsonl")]:
        check_session(path)


REPLACEMENTS = {
    "switch": lambda cwd: {"type": "switch_session", "sessionPath": str(cwd / "other.jsonl")},
    "switch_again": lambda cwd: {"type": "switch_session", "sessionPath": str(cwd / "third.jsonl")},
    "new": lambda cwd: {"type": "new_session"},
}


@pytest.mark.parametrize("second", ["switch_again", "new"])
def test_two_session_replacements_at_once_dispose_each_session(pi_env: PiEnv, start_rpc: StartRpc, second: str) -> None:
    # Sent together while a run streams: each replacement disposes the session it replaces (its
    # run ends with ``agent_settled`` on the stream, ``session_shutdown`` reaches the extensions).
    extension, mark_file = fault_extension(pi_env.cwd, {"session_shutdown": "log"})
    pi_env.server.push(ScriptedResponse(steps=[TextStep("a long answer " * 20, chunks=40)], chunk_delay_ms=25))
    pi_env.server.default = ScriptedResponse(steps=[TextStep("default answer")])
    client = start_rpc("-e", str(extension))
    start = client.mark()
    assert client.request("prompt", message="go")["success"] is True
    client.wait_event("message_update", start=start)
    commands = [REPLACEMENTS["switch"](pi_env.cwd), REPLACEMENTS[second](pi_env.cwd)]
    sent = [client.command(str(c["type"]), **{k: v for k, v in c.items() if k != "type"}) for c in commands]
    assert [client.response(request_id)["success"] for request_id in sent] == [True, True]
    client.wait_event("agent_settled", start=start)
    assert marks(mark_file).count("session_shutdown") == 2  # the first session and the second
    client.close_stdin()
    assert client.wait_exit() == 0
    assert marks(mark_file).count("session_shutdown") == 3  # and the last one, at exit
    for path in [*pi_env.sessions(), *pi_env.cwd.glob("*.jsonl")]:
        check_session(path)
