"""The SSE decoder follows the WHATWG event-stream rules whatever the chunking of the bytes."""

from __future__ import annotations

from collections.abc import AsyncIterator

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_harness.ai.sse import ServerSentEvent, SSEDecoder, iter_sse


def decode(*chunks: bytes | str) -> list[ServerSentEvent]:
    decoder = SSEDecoder()
    events: list[ServerSentEvent] = []
    for chunk in chunks:
        events.extend(decoder.feed(chunk))
    events.extend(decoder.flush())
    return events


def test_single_event_with_default_type() -> None:
    assert decode(b"data: hello\n\n") == [ServerSentEvent(event="message", data="hello")]


def test_event_field_names_the_type_and_resets_after_dispatch() -> None:
    events = decode(b"event: ping\ndata: 1\n\ndata: 2\n\n")
    assert [(e.event, e.data) for e in events] == [("ping", "1"), ("message", "2")]


def test_each_line_ending_style_is_accepted() -> None:
    for ending in (b"\n", b"\r\n", b"\r"):
        raw = b"event: a" + ending + b"data: x" + ending + ending + b"data: y" + ending + ending
        assert [(e.event, e.data) for e in decode(raw)] == [("a", "x"), ("message", "y")], ending


def test_mixed_line_endings_in_one_stream() -> None:
    events = decode(b"data: a\r\ndata: b\rdata: c\n\r\n")
    assert [e.data for e in events] == ["a\nb\nc"]


def test_cr_at_chunk_end_and_lf_in_next_chunk_is_one_line_ending() -> None:
    # If the CR and LF were counted as two endings, the blank line would dispatch early and the
    # second data line would start a new event.
    events = decode(b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n")
    assert [e.data for e in events] == ["a\nb"]


def test_cr_at_chunk_end_followed_by_other_text() -> None:
    events = decode(b"data: a\r", b"data: b\r", b"\r")
    assert [e.data for e in events] == ["a\nb"]


def test_multi_line_data_joined_with_newlines() -> None:
    events = decode(b"data: first\ndata: second\ndata:\ndata: fourth\n\n")
    assert events[0].data == "first\nsecond\n\nfourth"


def test_only_one_leading_space_is_removed_from_a_value() -> None:
    events = decode(b"data:no-space\n\ndata:  two spaces\n\n")
    assert [e.data for e in events] == ["no-space", " two spaces"]


def test_comments_are_ignored() -> None:
    events = decode(b": keep-alive\n\n:another\ndata: x\n: in the middle\n\n")
    assert [e.data for e in events] == ["x"]


def test_events_without_data_are_not_dispatched() -> None:
    events = decode(b"event: lonely\n\nid: 7\n\nretry: 100\n\ndata: real\n\n")
    assert len(events) == 1
    # the event type of the data-less block does not leak into the next event
    assert events[0].event == "message"
    assert events[0].data == "real"


def test_empty_data_field_is_dispatched_with_empty_data() -> None:
    assert decode(b"data\n\n") == [ServerSentEvent(data="")]
    assert decode(b"data:\n\n") == [ServerSentEvent(data="")]


def test_id_persists_until_changed_and_nul_ids_are_ignored() -> None:
    events = decode(b"id: 1\ndata: a\n\ndata: b\n\nid: x\x00y\ndata: c\n\nid\ndata: d\n\n")
    assert [e.id for e in events] == ["1", "1", "1", ""]


def test_retry_field_only_accepts_ascii_digits() -> None:
    events = decode(b"retry: 1500\ndata: a\n\nretry: 1.5\ndata: b\n\nretry: \xc2\xb2\ndata: c\n\n")
    assert [e.retry for e in events] == [1500, None, None]


def test_unknown_fields_are_ignored() -> None:
    events = decode(b"foo: bar\ndata: x\nbaz\n\n")
    assert events == [ServerSentEvent(data="x")]


def test_field_without_colon_has_empty_value() -> None:
    events = decode(b"event\ndata: x\n\n")
    assert events[0].event == "message"


def test_colon_in_value_is_kept() -> None:
    events = decode(b'data: {"a": "b:c"}\n\n')
    assert events[0].data == '{"a": "b:c"}'


def test_split_utf8_multibyte_characters() -> None:
    raw = "data: héllo 😀 世界\n\n".encode()
    for cut in range(1, len(raw)):
        assert decode(raw[:cut], raw[cut:])[0].data == "héllo 😀 世界", cut
    # one byte at a time
    assert decode(*[raw[i : i + 1] for i in range(len(raw))])[0].data == "héllo 😀 世界"


def test_invalid_utf8_is_replaced_not_fatal() -> None:
    assert decode(b"data: a\xffb\n\n")[0].data == "a\ufffdb"


def test_incomplete_final_event_is_discarded() -> None:
    assert decode(b"data: complete\n\ndata: no blank line at the end\n") == [ServerSentEvent(data="complete")]


def test_leading_byte_order_mark_is_ignored() -> None:
    raw = b"\xef\xbb\xbfdata: x\n\n"
    assert decode(raw) == [ServerSentEvent(data="x")]
    assert decode(raw[:2], raw[2:]) == [ServerSentEvent(data="x")]
    # only at the very start of the stream
    assert decode(b"data: \xef\xbb\xbfy\n\n")[0].data == "\ufeffy"


def test_str_chunks_are_accepted() -> None:
    assert decode("data: a\r", "\n\n") == [ServerSentEvent(data="a")]


async def test_iter_sse_decodes_an_async_byte_stream() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for piece in (b"event: a\nda", b"ta: 1\n", b"\ndata: 2\n\n", b"data: dropped"):
            yield piece

    events = [e async for e in iter_sse(chunks())]
    assert [(e.event, e.data) for e in events] == [("a", "1"), ("message", "2")]


# --- property: chunking never changes the result ------------------------------------------------

_line_text = st.characters(codec="utf-8", exclude_characters="\r\n")
_field_lines = st.one_of(
    st.builds(lambda v: "data:" + v, st.text(alphabet=_line_text, max_size=12)),
    st.builds(lambda v: "data: " + v, st.text(alphabet=_line_text, max_size=12)),
    st.builds(lambda v: "event: " + v, st.sampled_from(["a", "message_start", "ping", ""])),
    st.builds(lambda v: "id: " + v, st.sampled_from(["1", "abc", ""])),
    st.builds(lambda v: "retry: " + v, st.sampled_from(["10", "x", "3000"])),
    st.builds(lambda v: ":" + v, st.text(alphabet=_line_text, max_size=8)),
    st.just(""),
    st.just("data"),
)


@st.composite
def event_streams(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(_field_lines, max_size=25))
    endings = draw(st.lists(st.sampled_from(["\n", "\r", "\r\n"]), min_size=len(lines), max_size=len(lines)))
    text = "".join(line + ending for line, ending in zip(lines, endings, strict=True))
    if draw(st.booleans()):
        text = "\ufeff" + text
    return text.encode("utf-8")


@settings(max_examples=300, deadline=None)
@given(data=event_streams(), cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_any_chunking_yields_the_same_events(data: bytes, cuts: list[int]) -> None:
    whole = decode(data)
    points = sorted({c % (len(data) + 1) for c in cuts})
    pieces = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    assert decode(*pieces) == whole
    # and byte by byte
    assert decode(*[data[i : i + 1] for i in range(len(data))]) == whole
