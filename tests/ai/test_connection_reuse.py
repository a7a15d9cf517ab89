"""Consecutive requests of a session share one connection, and the TLS context can be built ahead.

The OpenAI chat-completions reader stops at ``data: [DONE]``, a few bytes before the body ends;
the rest is read anyway so that the connection goes back to the pool. Checked against the real
fake server over loopback, counting the connections it accepts.
"""

from __future__ import annotations

import asyncio

from pi_harness.ai import SimpleStreamOptions, stream_simple
from pi_harness.ai.types import Context
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep


class CountingServer(FakeLLMServer):
    """The fake server, counting the TCP connections it has accepted."""

    accepted = 0

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        await super()._handle(reader, writer)


def test_requests_in_a_row_use_one_connection() -> None:
    responses = [
        ScriptedResponse(steps=[ToolCallStep("read", {"path": "a.txt"}, id="call_1")]),
        ScriptedResponse(steps=[TextStep("second")]),
        ScriptedResponse(steps=[TextStep("third")]),
    ]
    server = CountingServer(responses)
    with server:
        model = server.model("openai-completions")

        async def three_requests() -> list[str]:
            stops: list[str] = []
            context: Context = {"systemPrompt": "", "messages": [{"role": "user", "content": "hi", "timestamp": 0}]}
            for _ in range(3):
                message = await stream_simple(model, context, SimpleStreamOptions(api_key="test-key")).result()
                stops.append(message["stopReason"])
            return stops

        stops = asyncio.run(three_requests())
        assert stops == ["toolUse", "stop", "stop"]
        assert len(server.requests) == 3
        assert server.accepted == 1
