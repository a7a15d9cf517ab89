"""Request bodies encoded in proportion to the change: the same bytes as a whole encoding."""

from __future__ import annotations

from pi_harness.ai.body_encoding import BodyEncoder
from pi_harness.ai.jsonutil import dumps

TOOLS = [{"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}]


def body(messages: list[object], **extra: object) -> dict[str, object]:
    # Tools are new objects on every request, as the providers build them.
    return {"model": "m", "messages": messages, "stream": True, "tools": [dict(t) for t in TOOLS], **extra}


def turn(index: int) -> list[object]:
    call = {"role": "assistant", "content": None, "tool_calls": [{"id": f"call_{index}", "type": "function"}]}
    result = {"role": "tool", "tool_call_id": f"call_{index}", "content": f"line é\u2028 {index}\n" * 3}
    return [call, result]


def test_a_growing_conversation_encodes_only_its_new_messages() -> None:
    encoder = BodyEncoder()
    messages: list[object] = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "go"}]
    encoded: list[int] = []
    for index in range(5):
        request = body(messages)
        assert encoder.encode(request) == dumps(request)
        encoded.append(encoder.items_encoded)
        messages = messages + turn(index)  # a new list of the same objects and two new ones
    # The first body goes whole; the second encodes its items once; later ones their two new items.
    assert encoded == [0, 4, 6, 8, 10]


def test_a_changed_conversation_is_encoded_again_and_stays_identical() -> None:
    encoder = BodyEncoder()
    messages: list[object] = [{"role": "user", "content": "one"}, *turn(0), *turn(1)]
    for request in (body(messages), body(messages + turn(2))):
        assert encoder.encode(request) == dumps(request)
    edited = [{"role": "user", "content": "edited"}, *messages[1:]]  # an edit replaces a message
    compacted = [{"role": "user", "content": "summary"}, *turn(2)]
    for request in (body(edited), body(compacted), body(compacted + turn(3)), body([]), body(messages)):
        assert encoder.encode(request) == dumps(request)


def test_what_orjson_cannot_encode_alone_takes_the_whole_body_path() -> None:
    encoder = BodyEncoder()
    messages: list[object] = [{"role": "user", "content": "hi"}]
    encoder.encode(body(messages))
    for odd in ({"content": "lone \ud800 surrogate"}, {"count": 2**70}, {1: "a key that is a number"}):
        request = body([*messages, odd])
        assert encoder.encode(request) == dumps(request)
    request = {1: "x", "messages": messages}
    assert encoder.encode(request) == dumps(request)
