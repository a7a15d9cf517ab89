"""The framing of HTTP/1.1 responses (``pi_harness.ai.http1_response``): heads, bodies by length,
chunks and connection end, split at any byte, and what is refused."""

from __future__ import annotations

import pytest

from pi_harness.ai.http1_response import ResponseError, ResponseParser

CHUNKED = (
    b"HTTP/1.1 100 Continue\r\n\r\n"
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"7\r\ndata: 1\r\n"
    b"A;ext=1\r\n\n\ndata: 22\r\n"
    b"0\r\nX-Trailer: t\r\n\r\n"
)


def parse(data: bytes, step: int, *, eof: bool = False) -> tuple[ResponseParser, bytes]:
    """Feed ``data`` ``step`` bytes at a time, collecting the body as it is unframed."""
    parser = ResponseParser()
    body = b""
    for start in range(0, len(data), step):
        parser.feed(data[start : start + step])
        if parser.read_head() is not None:
            body += parser.body()
    if eof:
        parser.feed_eof()
        if parser.read_head() is not None:
            body += parser.body()
    return parser, body


@pytest.mark.parametrize("step", [1, 2, 3, 7, 1000])
def test_a_chunked_body_split_anywhere_comes_out_whole(step: int) -> None:
    parser, body = parse(CHUNKED, step)
    head = parser.read_head()
    assert head is not None and head.status == 200  # the 100 Continue head is skipped
    assert (b"Transfer-Encoding", b"chunked") in head.headers
    assert body == b"data: 1\n\ndata: 22"
    assert parser.done and parser.keep_alive


@pytest.mark.parametrize("step", [1, 5, 1000])
def test_a_body_by_length_ends_at_its_length(step: int) -> None:
    parser, body = parse(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello", step)
    assert body == b"hello" and parser.done and parser.keep_alive


def test_a_body_without_length_runs_to_the_end_of_the_connection() -> None:
    parser, body = parse(b"HTTP/1.1 200 OK\r\n\r\npart one, part two", 4, eof=True)
    assert body == b"part one, part two" and parser.done and not parser.keep_alive


@pytest.mark.parametrize(
    ("head", "keep_alive"),
    [
        (b"HTTP/1.1 204 No Content\r\n\r\n", True),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive, close\r\n\r\n", False),
        (b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", False),
        (b"HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", True),  # no reason phrase
    ],
)
def test_which_responses_leave_the_connection_open(head: bytes, keep_alive: bool) -> None:
    parser, body = parse(head, 1000)
    assert body == b"" and parser.done and parser.keep_alive is keep_alive


def test_a_connection_that_ends_early_is_an_error() -> None:
    with pytest.raises(ResponseError, match="before the response ended"):
        parse(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", 1000, eof=True)
    with pytest.raises(ResponseError, match="before the response ended"):
        parse(CHUNKED[:-10], 1000, eof=True)
    parser = ResponseParser()
    parser.feed(b"HTTP/1.1 20")
    parser.feed_eof()
    with pytest.raises(ResponseError):
        parser.read_head()
    assert parser.ended


@pytest.mark.parametrize(
    "data",
    [
        b"HTTP/2 200 OK\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n folded: value\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY",
    ],
)
def test_malformed_responses_are_refused(data: bytes) -> None:
    with pytest.raises(ResponseError):
        parse(data, 1000)
