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


def test_a_long_conversation_goes_out_in_parts_that_later_bodies_reuse() -> None:
    from pi_harness.ai.append_memo import Lineage, issue

    encoder = BodyEncoder()
    lineage = Lineage()
    grown: list[object] = [{"role": "user", "content": "go"}]
    previous: set[int] = set()
    joined = 0  # bytes of parts that are not parts of the previous body (copied anew)
    for index in range(200):
        grown += [*turn(index), {"role": "tool", "tool_call_id": "pad", "content": "x" * 3000}]
        request = body(issue(grown, lineage))  # as the providers hand on their issued lists
        encoded = encoder.encode_parts(request)
        assert bytes(encoded) == dumps(request) and len(encoded) == len(dumps(request))
        joined += sum(len(part) for part in encoded.parts if id(part) not in previous)
        previous = {id(part) for part in encoded.parts}
        kept = encoded  # the parts stay alive, so their ids are theirs
    size = len(kept)
    # Joining every body whole would copy 100 times the last one over this run; sealed blocks,
    # joined in pairs as they grow, copy each byte a few times.
    assert joined < 10 * size
    assert len(kept.parts) < 20


def test_an_issued_list_changed_in_place_is_compared_item_by_item() -> None:
    from pi_harness.ai.append_memo import AppendMemo, Lineage, issue, lineage_of

    memo: AppendMemo[int] = AppendMemo()
    lineage = Lineage()
    first = issue(["a", "b"], lineage)
    memo.save(first, "key", 2)
    assert memo.resume(issue(["a", "b", "c"], lineage), "key") == (2, 2)
    memo.save(first, "key", 2)
    first[0] = "z"  # any change takes the list out of its lineage
    assert lineage_of(first) is None
    first.append("c")
    assert memo.resume(first, "key") == (0, None)  # what was saved is not what it holds now
    memo.save(issue(["a", "b"], lineage), "key", 2)
    # A later list of the lineage begins with what was issued, whatever became of that list.
    assert memo.resume(issue(["a", "b", "c"], lineage), "key") == (2, 2)
    plain: AppendMemo[int] = AppendMemo()
    items = ["a", "b"]
    plain.save(items, "key", 1)
    assert plain.resume([*items, "c"], "key") == (2, 1)  # not issued: the same objects, compared
    plain.save(items, "key", 1)
    items[1] = "x"  # the memo kept its own copy of what it saw
    assert plain.resume(items, "key") == (0, None)
