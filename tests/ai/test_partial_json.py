"""Best-effort parsing of streamed tool arguments."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_harness.ai.partial_json import StreamingJsonParser, parse_streaming_json


@pytest.mark.parametrize(
    ("buffer", "expected"),
    [
        # the examples of the spec
        ('{"path": "src/ma', {"path": "src/ma"}),
        ('{"a": 1, "b', {"a": 1}),
        ('{"a":[1,2', {"a": [1, 2]}),
        # empty / whitespace / None
        ("", {}),
        ("   \n\t", {}),
        (None, {}),
        # complete JSON
        ('{"a": {"b": [true, null, "x"]}}', {"a": {"b": [True, None, "x"]}}),
        # openings
        ("{", {}),
        ('{"', {}),
        ('{"key"', {}),
        ('{"key":', {}),
        ('{"key": ', {}),
        ('{"key": "', {"key": ""}),
        # nested containers closed
        ('{"a": {"b": {"c": "deep', {"a": {"b": {"c": "deep"}}}),
        ('{"a": [{"b": 1}, {"c": [2, [3', {"a": [{"b": 1}, {"c": [2, [3]]}]}),
        ('{"a": {"b', {"a": {}}),
        ('{"a": [', {"a": []}),
        ('{"a": [1,', {"a": [1]}),
        ('{"a": {}, "b": []', {"a": {}, "b": []}),
        # literals: complete ones kept, incomplete trailing ones dropped
        ('{"a": true', {"a": True}),
        ('{"a": fals', {}),
        ('{"a": 1, "b": nul', {"a": 1}),
        ('{"a": null, "b": [tr', {"a": None, "b": []}),
        # numbers: trailing sign/dot/exponent trimmed
        ('{"n": -', {}),
        ('{"n": 12', {"n": 12}),
        ('{"n": 1.', {"n": 1}),
        ('{"n": 1.5e', {"n": 1.5}),
        ('{"n": 1.5e-', {"n": 1.5}),
        ('{"n": -0.25E+2', {"n": -25.0}),
        # escapes
        ('{"s": "a\\"b', {"s": 'a"b'}),
        ('{"s": "a\\', {"s": "a"}),
        ('{"s": "line\\nnext\\tx', {"s": "line\nnext\tx"}),
        ('{"s": "\\u00e9t\\u00', {"s": "ét"}),
        ('{"s": "\\u', {"s": ""}),
        ('{"s": "x\\\\', {"s": "x\\"}),
        # a complete high surrogate is held back until its low half arrives
        ('{"s": "ok \\ud83d', {"s": "ok "}),
        ('{"s": "ok \\ud83d\\ude00', {"s": "ok 😀"}),
        # an escaped backslash followed by "ud83d" is plain text, not a surrogate escape
        ('{"s": "\\\\ud83d', {"s": "\\ud83d"}),
        # garbage and non-objects never produce None
        ("garbage", {}),
        ("[1, 2, 3]", {}),
        ('"just a string"', {}),
        ("42", {}),
        ("null", {}),
        ("}{", {}),
        # text after a complete document is ignored
        ('{"a": 1} trailing', {"a": 1}),
        ('{"a": 1}{"b": 2}', {"a": 1}),
        # unicode passes through
        ('{"msg": "héllo 世界 😀', {"msg": "héllo 世界 😀"}),
    ],
)
def test_parse_streaming_json(buffer: str | None, expected: dict[str, Any]) -> None:
    result = parse_streaming_json(buffer)
    assert result == expected
    assert isinstance(result, dict)


def test_surrogate_pair_split_across_fragments() -> None:
    parser = StreamingJsonParser()
    seen = [parser.feed(piece) for piece in ['{"e": "a', "\\ud8", "3d", "\\ude", "00", "b", '"}']]
    assert seen[-1] == {"e": "a😀b"}
    # no intermediate result ever holds a lone surrogate
    for value in seen:
        text = value.get("e", "")
        assert not any(0xD800 <= ord(ch) <= 0xDFFF for ch in text), value


def test_escape_split_across_fragments() -> None:
    parser = StreamingJsonParser()
    assert parser.feed('{"s": "a\\') == {"s": "a"}
    assert parser.feed("n") == {"s": "a\n"}
    assert parser.feed("b\\u00") == {"s": "a\nb"}
    assert parser.feed("e9") == {"s": "a\nbé"}
    assert parser.feed('"}') == {"s": "a\nbé"}


def test_incremental_keeps_last_good_value_through_garbage() -> None:
    parser = StreamingJsonParser()
    assert parser.feed('{"a": 1') == {"a": 1}
    assert parser.feed(", x") == {"a": 1}
    assert parser.buffer == '{"a": 1, x'


def test_feed_empty_delta_returns_current_value() -> None:
    parser = StreamingJsonParser()
    assert parser.feed("") == {}
    parser.feed('{"a": "b')
    assert parser.feed("") == {"a": "b"}


def test_numbers_larger_than_64_bits_still_parse() -> None:
    assert parse_streaming_json('{"n": 123456789012345678901234567890') == {"n": 123456789012345678901234567890}


# --- properties -------------------------------------------------------------------------------

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
_values = st.recursive(
    _scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=8), children, max_size=4),
    ),
    max_leaves=20,
)
_objects = st.dictionaries(st.text(max_size=8), _values, max_size=5)
_whitespace = st.text(alphabet=" \t\r\n", max_size=2)


@st.composite
def serialised(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    """A JSON object and a serialisation of it with random whitespace between tokens."""
    obj = draw(_objects)
    ensure_ascii = draw(st.booleans())

    def dump(value: Any) -> str:
        ws = draw(_whitespace)
        if isinstance(value, dict):
            members = [
                f"{draw(_whitespace)}{json.dumps(k, ensure_ascii=ensure_ascii)}{draw(_whitespace)}:"
                f"{draw(_whitespace)}{dump(v)}{draw(_whitespace)}"
                for k, v in value.items()
            ]
            return "{" + ws + ",".join(members) + "}"
        if isinstance(value, list):
            return "[" + ws + ",".join(f"{draw(_whitespace)}{dump(v)}{draw(_whitespace)}" for v in value) + "]"
        return json.dumps(value, ensure_ascii=ensure_ascii)

    return obj, draw(_whitespace) + dump(obj) + draw(_whitespace)


@settings(max_examples=300, deadline=None)
@given(doc=serialised(), cuts=st.lists(st.integers(min_value=0, max_value=100_000), max_size=15))
def test_any_chunking_ends_with_the_strict_result(doc: tuple[dict[str, Any], str], cuts: list[int]) -> None:
    obj, text = doc
    assert json.loads(text) == obj
    points = sorted({c % (len(text) + 1) for c in cuts})
    parser = StreamingJsonParser()
    result: dict[str, Any] = {}
    for a, b in zip([0, *points], [*points, len(text)], strict=True):
        result = parser.feed(text[a:b])
    assert result == obj
    assert parse_streaming_json(text) == obj


@settings(max_examples=100, deadline=None)
@given(doc=serialised())
def test_every_prefix_parses_to_a_dict_and_matches_incremental_feeding(doc: tuple[dict[str, Any], str]) -> None:
    _obj, text = doc
    parser = StreamingJsonParser()
    for i in range(1, len(text) + 1):
        incremental = parser.feed(text[i - 1 : i])
        whole = parse_streaming_json(text[:i])
        assert isinstance(whole, dict)
        assert incremental == whole, text[:i]


_json_ish = st.sampled_from([*'{}[]":,\\ u0123456789abcdefEtrnsl-+.', "\ud800", "\udc00", "é", "😀"])


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=40), st.text(alphabet=_json_ish, max_size=40)))
def test_arbitrary_text_never_raises(text: str) -> None:
    assert isinstance(parse_streaming_json(text), dict)
    parser = StreamingJsonParser()
    for ch in text:
        assert isinstance(parser.feed(ch), dict)


def test_finished_tool_arguments_are_parsed_strictly() -> None:
    from pi_harness.ai.partial_json import parse_tool_call_arguments

    assert parse_tool_call_arguments('{"a": 1}') == ({"a": 1}, None)
    assert parse_tool_call_arguments("  ") == ({}, None)
    # string-literal mistakes are repaired: a raw newline, an invalid escape
    assert parse_tool_call_arguments('{"a": "x\ny", "p": "C:\\dir"}') == ({"a": "x\ny", "p": "C:\\dir"}, None)
    arguments, error = parse_tool_call_arguments('{"command": "ls')
    assert arguments == {} and error is not None and error.endswith("\n\nReceived arguments:\n" + '{"command": "ls')
    arguments, error = parse_tool_call_arguments("[1, 2]")
    assert arguments == {} and error == "Tool arguments must be a JSON object\n\nReceived arguments:\n[1, 2]"
