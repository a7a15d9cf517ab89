"""JSON encoding of request bodies and records (orjson with lone-surrogate repair)."""

from __future__ import annotations

import json

from pi_harness.ai.jsonutil import dumps, dumps_str, loads, sanitize, sanitize_surrogates


def test_compact_output_keeps_non_ascii() -> None:
    value = {"a": [1, 2.5, None, True], "text": "héllo 世界 😀"}
    assert dumps(value) == '{"a":[1,2.5,null,true],"text":"héllo 世界 😀"}'.encode()
    assert dumps_str(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_lone_surrogates_are_removed_instead_of_failing() -> None:
    broken = {"out": "before\ud800after", "nested": ["\udfff"], "\ud83dkey": 1}
    assert dumps_str(broken) == '{"out":"beforeafter","nested":[""],"key":1}'
    assert sanitize_surrogates("a\ud800b\udc00c") == "abc"
    assert sanitize(("x\ud800",)) == ["x"]


def test_integers_beyond_64_bits_are_written_exactly() -> None:
    assert dumps({"n": 2**70, "s": "\ud800ok"}) == b'{"n":1180591620717411303424,"s":"ok"}'


def test_loads_round_trip() -> None:
    value = {"k": ["v", 1, {"x": None}]}
    assert loads(dumps(value)) == value
    assert loads(dumps_str(value)) == value
