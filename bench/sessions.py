"""Session store benchmark: open + build context for large sessions, and append throughput.

    .venv/bin/python bench/sessions.py              # 1k, 10k and 50k message entries
    .venv/bin/python bench/sessions.py --sizes 50000

Each size is measured in a fresh subprocess so its peak RSS (``ru_maxrss``) is its own, twice:
opened for the first time, then reopened with the index file the first open left beside it on
close (``session_store/scan_index.py``). The collector is paused during the open, as the CLI
pauses it while it loads a session. The generated files look like real coding sessions (user
prompts, assistant turns with thinking and tool calls, tool results of varying size; ~550 bytes
per entry on average, so 50k entries ≈ 27 MB), compacted every ``COMPACT_EVERY`` entries.
Target: 50k entries open and build their context in < 0.8 s with < 150 MB peak. ``stats s`` and
``then MB``: the whole file's counts, tokens and cost computed next (what the interactive footer
and ``get_session_stats`` show; ``session_store/usage_summary.py``), and the peak after it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

TARGET_SECONDS = 0.8
TARGET_PEAK_MB = 150


def _usage(tokens: int) -> dict[str, Any]:
    return {
        "input": tokens,
        "output": 120,
        "cacheRead": tokens // 2,
        "cacheWrite": 0,
        "totalTokens": tokens + 120 + tokens // 2,
        "cost": {"input": 0.003, "output": 0.0018, "cacheRead": 0.0003, "cacheWrite": 0, "total": 0.0051},
    }


def _text(rng: random.Random, low: int, high: int) -> str:
    words = ("the", "parser", "returns", "a", "table", "of", "tokens", "src/app.py", "error:", "fix", "test", "ok")
    out: list[str] = []
    size = rng.randint(low, high)
    length = 0
    while length < size:
        word = rng.choice(words)
        out.append(word)
        length += len(word) + 1
    return " ".join(out)


# A session this long has been compacted many times: Pi compacts when the context nears the
# model's window, which a coding session reaches every few thousand entries. The generator writes
# a compaction (keeping the last ~20 entries, as a cut at a user message) every this many
# message entries, so the file has the shape of a real long session; ``compact_every=0`` gives
# one uncompacted branch (everything reaches the model).
COMPACT_EVERY = 2000


def generate(path: Path, message_entries: int, seed: int = 7, compact_every: int = COMPACT_EVERY) -> int:
    """Write a session with ``message_entries`` message entries; returns the file size."""
    rng = random.Random(seed)
    ts = 1_760_000_000_000
    written = 0
    parent: str | None = None
    counter = 0

    def entry(kind: str, **fields: Any) -> bytes:
        nonlocal parent, counter
        counter += 1
        entry_id = f"{counter:08x}"
        iso = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ts // 1000)) + f".{ts % 1000:03d}Z"
        record = {"type": kind, "id": entry_id, "parentId": parent, "timestamp": iso, **fields}
        parent = entry_id
        return orjson.dumps(record) + b"\n"

    with open(path, "wb") as out:
        header = {
            "type": "session",
            "version": 3,
            "id": "bench",
            "timestamp": "2025-10-01T00:00:00.000Z",
            "cwd": "/home/dev/project",
        }
        out.write(orjson.dumps(header) + b"\n")
        out.write(entry("model_change", provider="anthropic", modelId="claude-sonnet-4-5"))
        out.write(entry("thinking_level_change", thinkingLevel="medium"))
        call = 0
        user_ids: list[str] = []
        next_compaction = compact_every
        while written < message_entries:
            if compact_every and written >= next_compaction and len(user_ids) > 3:
                next_compaction += compact_every
                kept = user_ids[-3]  # the cut: three user turns (some 20 entries) stay verbatim
                out.write(
                    entry(
                        "compaction",
                        summary="## Goal\n" + _text(rng, 200, 400),
                        firstKeptEntryId=kept,
                        tokensBefore=150_000 + written,
                    )
                )
            ts += 5000
            text = _text(rng, 20, 150)
            out.write(
                entry("message", message={"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts})
            )
            user_ids.append(f"{counter:08x}")
            written += 1
            for _ in range(rng.randint(1, 4)):
                if written >= message_entries:
                    break
                call += 1
                ts += 1500
                content = [
                    {"type": "thinking", "thinking": _text(rng, 20, 150), "thinkingSignature": "sig" * 10},
                    {
                        "type": "toolCall",
                        "id": f"toolu_{call:06d}",
                        "name": rng.choice(("read", "bash", "edit")),
                        "arguments": {"path": "src/module/file.py", "command": _text(rng, 10, 60)},
                    },
                ]
                out.write(
                    entry(
                        "message",
                        message={
                            "role": "assistant",
                            "content": content,
                            "api": "anthropic-messages",
                            "provider": "anthropic",
                            "model": "claude-sonnet-4-5",
                            "usage": _usage(1000 + written),
                            "stopReason": "toolUse",
                            "timestamp": ts,
                        },
                    )
                )
                written += 1
                if written >= message_entries:
                    break
                ts += 300
                result = _text(rng, 20, 200) if rng.random() < 0.95 else _text(rng, 800, 2000)
                out.write(
                    entry(
                        "message",
                        message={
                            "role": "toolResult",
                            "toolCallId": f"toolu_{call:06d}",
                            "toolName": "bash",
                            "content": [{"type": "text", "text": result}],
                            "isError": False,
                            "timestamp": ts,
                        },
                    )
                )
                written += 1
            if written < message_entries:
                ts += 2000
                out.write(
                    entry(
                        "message",
                        message={
                            "role": "assistant",
                            "content": [{"type": "text", "text": _text(rng, 20, 200)}],
                            "api": "anthropic-messages",
                            "provider": "anthropic",
                            "model": "claude-sonnet-4-5",
                            "usage": _usage(2000 + written),
                            "stopReason": "stop",
                            "timestamp": ts,
                        },
                    )
                )
                written += 1
            if rng.random() < 0.02:
                out.write(entry("thinking_level_change", thinkingLevel=rng.choice(("low", "medium", "high"))))
    return path.stat().st_size


def measure(path: Path) -> dict[str, float]:
    """Runs inside the child process: import, open, build context and what starting a session
    reads besides (``session_runtime.building``: the branch's records), then close, which leaves
    the index for the next open."""
    import gc

    from pi_harness.coding.session_store import SessionManager

    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    gc.disable()
    start = time.perf_counter()
    manager = SessionManager.open(path)
    opened = time.perf_counter()
    context = manager.build_session_context()
    manager.get_branch_records()
    manager.has_messages()
    built = time.perf_counter()
    gc.enable()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    # What the interactive footer asks next: the whole file's counts, tokens and cost.
    manager.usage_summary()
    counted = time.perf_counter()
    stats_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    manager.close()
    return {
        "entries": manager.entry_count(),
        "messages": len(context.messages),
        "open_s": opened - start,
        "build_s": built - opened,
        "total_s": built - start,
        "baseline_mb": baseline,
        "peak_mb": peak,
        "stats_s": counted - built,
        "stats_peak_mb": stats_peak,
    }


def append_throughput(directory: Path, count: int, fsync: bool) -> float:
    from pi_harness.coding.session_store import SessionManager

    manager = SessionManager.create(str(directory), directory / ("fsync" if fsync else "plain"), fsync=fsync)
    message = {
        "role": "toolResult",
        "toolCallId": "t",
        "toolName": "bash",
        "content": [{"type": "text", "text": "x" * 400}],
        "isError": False,
        "timestamp": 1,
    }
    manager.append_message({"role": "user", "content": "start", "timestamp": 1})  # creates the file
    start = time.perf_counter()
    for _ in range(count):
        manager.append_message(message)  # type: ignore[arg-type]
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10_000, 50_000])
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        print(
            f"{'entries':>8} {'size MB':>8} {'':>7} {'open s':>7} {'build s':>8} {'total s':>8} {'base MB':>8}"
            f" {'peak MB':>8} {'stats s':>8} {'then MB':>8}"
        )
        for size in args.sizes:
            path = root / f"session-{size}.jsonl"
            file_size = generate(path, size)
            for label in ("first", "reopen"):
                child = subprocess.run(
                    [sys.executable, __file__, "--measure", str(path)],
                    capture_output=True,
                    text=True,
                    check=True,
                    env={**os.environ},
                )
                r = json.loads(child.stdout)
                flag = ""
                if size >= 50_000:
                    ok = r["total_s"] < TARGET_SECONDS and r["peak_mb"] < TARGET_PEAK_MB
                    flag = "  (target met)" if ok else f"  (target: <{TARGET_SECONDS}s, <{TARGET_PEAK_MB} MB)"
                print(
                    f"{size:>8} {file_size / 1e6:>8.1f} {label:>7} {r['open_s']:>7.3f} {r['build_s']:>8.3f}"
                    f" {r['total_s']:>8.3f} {r['baseline_mb']:>8.1f} {r['peak_mb']:>8.1f}"
                    f" {r['stats_s']:>8.3f} {r['stats_peak_mb']:>8.1f}{flag}"
                )
        plain = append_throughput(root, 20_000, fsync=False)
        synced = append_throughput(root, 500, fsync=True)
        print(f"append throughput: {plain:,.0f} entries/s without fsync, {synced:,.0f} entries/s with fsync")


if __name__ == "__main__":
    main()
