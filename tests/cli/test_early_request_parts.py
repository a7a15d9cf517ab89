"""The parts of the early first request that need no process: the prompt's encoding, the request
template, credentials' sources and what a trace notes."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from pi_harness.cli.early_request import record as records
from pi_harness.cli.early_request.replay import encode_prompt
from pi_harness.cli.early_request.template import head_segments, split_body, split_request
from pi_harness.cli.early_request.trace import FileTrace, signature


@pytest.mark.parametrize(
    "prompt",
    ["hi", "fix the bug in main.py", "ünïcödé ✓ 日本語", "emoji 🙂", "tab\there", 'say "x"', "back\\slash", "\x7f", ""],
)
def test_a_prompt_is_encoded_as_orjson_would_or_left_to_the_session(prompt: str) -> None:
    encoded = encode_prompt(prompt)
    assert encoded is None or encoded == orjson.dumps(prompt)
    if not any(c in prompt for c in '"\\') and all(ord(c) >= 0x20 for c in prompt):
        assert encoded == orjson.dumps(prompt)


def test_a_lone_surrogate_is_left_to_the_session() -> None:
    assert encode_prompt("bad \ud800") is None


def test_a_request_splits_at_its_content_length_and_around_the_prompt() -> None:
    body = b'{"messages":[{"role":"user","content":"hello there"}]}'
    data = b"POST /v1 HTTP/1.1\r\nHost: h\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    parts = split_request(data)
    assert parts == ("POST /v1 HTTP/1.1\r\nHost: h\r\n", body)
    assert split_body(body, "hello there") == ['{"messages":[{"role":"user","content":', "}]}"]
    assert split_body(body, "absent") is None
    assert split_body(b'["x","x"]', "x") is None  # twice: which one is the prompt?
    assert split_request(data[:-1]) is None  # the length does not match


def test_a_credential_is_kept_as_where_it_comes_from(tmp_path: Path) -> None:
    config = tmp_path / "models.json"
    config.write_bytes(b'{"providers": {"p": {"apiKey": "file-secret-value"}}}')
    head = (
        "POST / HTTP/1.1\r\nAuthorization: Bearer env-secret-value\r\nX-Api-Key: file-secret-value\r\n"
        "User-Agent: pi-harness/1\r\n"
    )
    segments = head_segments(head, {"MY_KEY": "env-secret-value"}, [str(config)])
    assert segments is not None
    text = "".join(s for s in segments if isinstance(s, str))
    assert "secret" not in text
    assert {"env": "MY_KEY"} in segments
    start = config.read_bytes().index(b"file-secret-value")
    assert {"file": str(config), "span": [start, start + len("file-secret-value")]} in segments
    resolved = records.resolve_head(segments, {"MY_KEY": "env-secret-value"})
    assert resolved == head.encode()
    assert records.resolve_head(segments, {}) is None  # the variable is gone: nothing to send


def test_a_credential_of_unknown_origin_prevents_the_record() -> None:
    head = "POST / HTTP/1.1\r\nAuthorization: Bearer from-a-command-0123\r\n"
    assert head_segments(head, {}, []) is None


def test_a_placeholder_key_too_short_to_be_a_secret_is_kept_as_it_is() -> None:
    head = "POST / HTTP/1.1\r\nAuthorization: Bearer local\r\n"
    assert head_segments(head, {}, []) == [head]


def test_a_trace_notes_reads_checks_and_listings_until_stopped(tmp_path: Path) -> None:
    present = tmp_path / "present.txt"
    present.write_text("x")
    trace = FileTrace()
    trace.start()
    try:
        present.read_text()
        os.path.exists(tmp_path / "missing")
        os.listdir(tmp_path)
    finally:
        trace.stop()
    os.path.exists(tmp_path / "after")
    observed = trace.observed
    assert observed[(str(present), "r")] == signature(str(present), "r")
    assert observed[(str(tmp_path / "missing"), "s")] is None
    assert (str(tmp_path), "d") in observed
    assert (str(tmp_path / "after"), "s") not in observed
    assert os.stat is not None and os.stat.__name__ == "stat"  # the real function is back


def test_a_signature_changes_with_the_file(tmp_path: Path) -> None:
    path = tmp_path / "f"
    assert signature(str(path), "s") is None
    path.write_text("one")
    first = signature(str(path), "s")
    path.write_text("three")
    assert signature(str(path), "s") != first
    assert signature(str(tmp_path), "s") == "d"


def test_a_trace_that_sees_too_much_stops_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_harness.cli.early_request import trace as trace_module

    monkeypatch.setattr(trace_module, "MAX_OBSERVED", 3)
    trace = FileTrace()
    trace.start()
    try:
        for index in range(10):
            os.path.exists(tmp_path / f"f{index}")
    finally:
        trace.stop()
    assert trace.overflowed
    assert not trace.active
    assert len(trace.observed) == 4
