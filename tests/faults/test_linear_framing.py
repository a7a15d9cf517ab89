"""A long line arriving in small pieces costs time linear in its length, on both framings a peer
controls: the RPC input (LF-separated JSON) and the SSE stream of a provider.

Each test feeds a 16-32 MB line in 4 KB pieces, as a slow writer or a fragmenting network would,
and bounds the time generously: linear takes well under a second, the quadratic rescans this
guards against took 9 s and more.
"""

from __future__ import annotations

import time

from pi_harness.ai.sse import SSEDecoder
from pi_harness.cli.modes.rpc.framing import LineSplitter

PIECE = b"a" * 4096
BOUND_S = 3.0


def test_rpc_input_line_in_small_pieces() -> None:
    splitter = LineSplitter()
    started = time.monotonic()
    assert splitter.feed(b'{"type":"get_state","pad":"') == []
    for _ in range(8192):  # 32 MB
        assert splitter.feed(PIECE) == []
    (line,) = splitter.feed(b'"}\n')
    assert time.monotonic() - started < BOUND_S
    assert len(line) == 32 * 1024 * 1024 + len('{"type":"get_state","pad":""}')


def test_sse_data_line_in_small_pieces() -> None:
    decoder = SSEDecoder()
    started = time.monotonic()
    assert decoder.feed(b'data: {"delta":"') == []
    for _ in range(4096):  # 16 MB
        assert decoder.feed(PIECE) == []
    (event,) = decoder.feed(b'"}\r\n\r\n')
    assert time.monotonic() - started < BOUND_S
    assert event.data == '{"delta":"' + "a" * 16 * 1024 * 1024 + '"}'
