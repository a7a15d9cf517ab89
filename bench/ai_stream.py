"""Throughput of the ``openai-completions`` stream pipeline and import cost of ``pi_harness.ai``.

    .venv/bin/python bench/ai_stream.py [--megabytes 2] [--delta-chars 16]

One long scripted answer (text in many small deltas plus a tool call whose long argument JSON
arrives in many fragments) is measured three ways:

1. pipeline only: the server's SSE bytes fed in memory through the SSE decoder, the chunk reader
   and the MessageBuilder, with every event consumed (no sockets);
2. end to end: ``pi_harness.ai.stream`` against the fake server running in a subprocess, so the
   server's own CPU does not share this process (wall time and this process's CPU time);
3. import time of ``pi_harness.ai`` alone and with the provider module, each in a fresh
   interpreter (best of several runs, interpreter start-up subtracted).

Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pi_harness.ai import StreamOptions, stream
from pi_harness.ai.message_builder import MessageBuilder
from pi_harness.ai.providers.openai_completions import ChunkReader
from pi_harness.ai.sse import SSEDecoder
from pi_harness.testing.fake_llm import RecordedRequest, ScriptedResponse
from pi_harness.testing.fake_llm.openai_completions import PROTOCOL

API = "openai-completions"


def make_script(text_mb: float, delta_chars: int, args_kb: float, fragment_chars: int) -> dict[str, Any]:
    """A long answer: ``text_mb`` MB of text in ``delta_chars``-character deltas, then a ``write``
    tool call whose ``args_kb`` KB of argument JSON arrives in ``fragment_chars``-character pieces."""
    steps: list[dict[str, Any]] = []
    text_chars = int(text_mb * 1_000_000)
    if text_chars:
        sentence = "The quick brown fox jumps over the lazy dog; ünïcödé stays intact. "
        text = (sentence * (text_chars // len(sentence) + 1))[:text_chars]
        steps.append({"text": text, "chunks": max(1, text_chars // delta_chars)})
    arg_chars = int(args_kb * 1000)
    if arg_chars:
        line = 'line of file content with "quotes" and \\ backslashes\n'
        content = (line * (arg_chars // len(line) + 1))[:arg_chars]
        steps.append(
            {
                "toolCall": {
                    "name": "write",
                    "arguments": {"path": "out.txt", "content": content},
                    "chunks": max(1, arg_chars // fragment_chars),
                }
            }
        )
    return {"steps": steps, "usage": {"input": 1200, "output": 500_000}}


def model_for(base_url: str) -> dict[str, Any]:
    return {
        "id": "bench-model",
        "name": "bench",
        "api": API,
        "provider": "fake",
        "baseUrl": base_url,
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 1.0, "output": 2.0, "cacheRead": 0.1, "cacheWrite": 1.25},
        "contextWindow": 128_000,
        "maxTokens": 16_384,
    }


def bench_pipeline(script: dict[str, Any]) -> tuple[int, int, float]:
    """(events, bytes, seconds) for decoding pre-encoded SSE bytes in memory."""
    from pi_harness.testing.fake_llm import response_from_dict

    response: ScriptedResponse = response_from_dict(script)
    request = RecordedRequest(
        "POST", "/v1/chat/completions", "", {}, {"model": "bench-model", "stream_options": {"include_usage": True}}, API
    )
    frames = PROTOCOL.encode_stream(response, request)
    payload = b"".join(frames)
    # network-sized reads, as the HTTP client would hand them over
    pieces = [payload[i : i + 16384] for i in range(0, len(payload), 16384)]

    async def run() -> tuple[int, float]:
        builder = MessageBuilder(model_for("http://unused/v1"))  # type: ignore[arg-type]
        reader = ChunkReader(builder)
        decoder = SSEDecoder()
        started = time.perf_counter()
        builder.start()
        for piece in pieces:
            for event in decoder.feed(piece):
                reader.feed(event.data)
        builder.finish(reader.stop_reason())
        count = 0
        async for _event in builder.stream:
            count += 1
        return count, time.perf_counter() - started

    events, seconds = asyncio.run(run())
    return events, len(payload), seconds


def start_server(script: dict[str, Any], workdir: Path) -> tuple[subprocess.Popen[str], str]:
    path = workdir / "script.json"
    path.write_text(json.dumps({"responses": [script]}), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "pi_harness.testing.fake_llm", "--script", str(path), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    url = line.strip().rsplit(" ", 1)[-1]
    return proc, url


def bench_end_to_end(script: dict[str, Any]) -> tuple[int, int, float, float, str]:
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(script, Path(tmp))
        try:

            async def run() -> tuple[int, int, float, float, str]:
                model = model_for(f"{url}/v1")
                context = {"messages": [{"role": "user", "content": "go", "timestamp": 0}]}
                wall0, cpu0 = time.perf_counter(), time.process_time()
                events = 0
                streamed = 0
                s = stream(model, context, StreamOptions(api_key="bench"))  # type: ignore[arg-type]
                async for event in s:
                    events += 1
                    delta = event.get("delta")
                    if isinstance(delta, str):
                        streamed += len(delta.encode("utf-8"))
                message = await s.result()
                return events, streamed, time.perf_counter() - wall0, time.process_time() - cpu0, message["stopReason"]

            return asyncio.run(run())
        finally:
            proc.terminate()
            proc.wait(10)


def import_seconds(statement: str, runs: int = 7) -> float:
    """Best wall time of ``python -c statement`` minus the best of ``python -c pass``."""

    def best(code: str) -> float:
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            times.append(time.perf_counter() - started)
        return min(times)

    return best(statement) - best("pass")


def importtime_cumulative(statement: str, module: str) -> float:
    """Cumulative ``-X importtime`` microseconds of ``module`` (best of 5), in seconds."""
    results = []
    for _ in range(5):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", statement], capture_output=True, text=True, check=True
        )
        total = 0
        for line in proc.stderr.splitlines():
            parts = [p.strip() for p in line.split("|")]
            if len(parts) == 3 and parts[2].strip() in module.split(","):
                try:
                    total += int(parts[1])
                except ValueError:
                    continue
        results.append(total)
    return min(results) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--text-mb", type=float, default=2.0, help="MB of streamed text (default 2)")
    parser.add_argument("--delta-chars", type=int, default=16, help="characters per text delta (default 16)")
    parser.add_argument("--args-kb", type=float, default=100.0, help="KB of tool-call arguments (default 100)")
    parser.add_argument("--fragment-chars", type=int, default=64, help="characters per argument fragment")
    args = parser.parse_args()

    parts = {
        "text": make_script(args.text_mb, args.delta_chars, 0, args.fragment_chars),
        "tool call": make_script(0, args.delta_chars, args.args_kb, args.fragment_chars),
    }
    for label, part in parts.items():
        events, size, seconds = bench_pipeline(part)
        print(f"pipeline, {label} only (in memory): {events} events, {size / 1e6:.2f} MB of SSE in {seconds:.3f} s")
        print(f"  {events / seconds:,.0f} events/s, {size / 1e6 / seconds:.1f} MB/s of SSE")

    script = make_script(args.text_mb, args.delta_chars, args.args_kb, args.fragment_chars)
    events, streamed, wall, cpu, stop = bench_end_to_end(script)
    print(f"end to end (HTTP, server in a subprocess): {events} events, {streamed / 1e6:.2f} MB of deltas, {stop}")
    print(f"  wall {wall:.3f} s: {events / wall:,.0f} events/s, {streamed / 1e6 / wall:.2f} MB/s of deltas")
    print(f"  client CPU {cpu:.3f} s: {events / cpu:,.0f} events/s, {streamed / 1e6 / cpu:.2f} MB/s of deltas")

    provider = "pi_harness.ai.providers.openai_completions"
    ai_only = import_seconds("import pi_harness.ai")
    with_provider = import_seconds(f"import pi_harness.ai, {provider}")
    print(f"import pi_harness.ai: {ai_only:.3f} s (fresh interpreter, start-up subtracted)")
    print(f"import pi_harness.ai + {provider}: {with_provider:.3f} s (target < 0.150 s)")
    print(
        "  -X importtime cumulative: "
        f"pi_harness.ai {importtime_cumulative('import pi_harness.ai', 'pi_harness.ai'):.3f} s, "
        "ai + provider "
        f"{importtime_cumulative(f'import pi_harness.ai, {provider}', f'pi_harness.ai,{provider}'):.3f} s"
    )


if __name__ == "__main__":
    main()
