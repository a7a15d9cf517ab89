"""Latency of the interactive screen: keystroke to redrawn screen, and a long streamed answer.

    .venv/bin/python bench/tui.py [--messages 2000] [--keys 200] [--lines 5000] [--width 120]

1. A session of ``--messages`` messages is printed into the scrollback (an in-memory terminal),
   then ``--keys`` characters are typed into a real prompt_toolkit application (pipe input,
   VT100 output) showing the editor, footer and a queue. Measured per key: from writing the
   character to the input pipe until prompt_toolkit finished redrawing (``after_render``), and
   the synchronous part on our side (editor edit + pane render + fragment conversion).
2. An answer of ``--lines`` lines is streamed one line per update through the transcript with
   the live area limited to the screen height, as the interactive screen does: time per update
   and in total, for mixed markdown (headings, paragraphs, lists, code blocks) and for one long
   code block (the worst case for highlighting).
3. ``pi`` itself (``run_interactive``) against the fake LLM server in a temporary agent dir, in
   fullscreen and in regular mode (``--tui-mode``): startup until the first frame, a transcript
   of ``--messages`` messages put on screen, ``--keys`` keystrokes (each until the frame showing
   it), a 200-character burst, PageUp with the long transcript (fullscreen), and an answer of
   ``--lines`` lines streamed by the server in ``--lines``/2 deltas with keys typed meanwhile,
   from Enter until the run settled.

With ``--tmux`` (``bench/tui_tmux.py``), our ``pi`` and the real Pi 1.4.0 (``--pi``) run side by
side in real terminals instead, in interleaved pairs: keys, a 200-character burst and keys while a
fast long answer streams, each timed until tmux shows it:

    .venv/bin/python bench/tui.py --tmux [--pairs 3] [--tui-mode both] [--deltas 4000]

``--tmux --startup`` times only the startup with the session (process start until the screen
stayed unchanged for a second, the time of its last change), ``--pairs`` interleaved pairs:

    .venv/bin/python bench/tui.py --tmux --startup --tui-mode regular --pairs 5 [--session-shape coding]

Figures only; nothing is asserted. Target: under 16 ms per key, and at or below Pi in tmux.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.editor import Editor
from pi_harness.tui.components.editor_view import EditorView
from pi_harness.tui.components.footer import Footer, FooterData, UsageTotals
from pi_harness.tui.components.queue import QueueView
from pi_harness.tui.pt_keys import build_key_bindings
from pi_harness.tui.pt_view import TerminalView
from pi_harness.tui.screen import BottomPane
from pi_harness.tui.theme import load_theme
from pi_harness.tui.transcript import Transcript

DEFAULT_PI = Path(os.environ.get("PI_REFERENCE", "/work/pi-ref")) / "pi14"
USAGE = {"input": 1000, "output": 200, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1200,
         "cost": {"input": 0.003, "output": 0.003, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.006}}  # fmt: skip


def _assistant(content: list[dict[str, Any]], stop: str = "stop") -> dict[str, Any]:
    return {"role": "assistant", "content": content, "api": "openai-completions", "provider": "fake",
            "model": "fake", "usage": USAGE, "stopReason": stop, "timestamp": 0}  # fmt: skip


def session_messages(count: int) -> list[dict[str, Any]]:
    """User prompts, answers with markdown, and tool calls with results, in a realistic mix."""
    messages: list[dict[str, Any]] = []
    n = 0
    while len(messages) < count:
        n += 1
        messages.append({"role": "user", "content": f"Step {n}: look at module_{n}.py and fix it", "timestamp": 0})
        call = {"type": "toolCall", "id": f"c{n}", "name": "read", "arguments": {"path": f"src/module_{n}.py"}}
        messages.append(_assistant([{"type": "text", "text": f"Reading **module_{n}.py** first."}, call], "toolUse"))
        code = "\n".join(f"def f{i}(x):\n    return x * {i}" for i in range(8))
        messages.append({"role": "toolResult", "toolCallId": f"c{n}", "toolName": "read",
                         "content": [{"type": "text", "text": code}], "isError": False, "timestamp": 0})  # fmt: skip
        answer = (f"Fixed `f{n}`:\n\n- the loop was off by one\n- the test now passes\n\n"
                  f"```python\ndef f{n}(x):\n    return x + 1\n```")  # fmt: skip
        messages.append(_assistant([{"type": "text", "text": answer}]))
    return messages[:count]


def long_answer(lines: int) -> str:
    out: list[str] = []
    while len(out) < lines:
        block = len(out) // 40
        out.extend([f"## Part {block}", "", f"Some explanation of part {block} with `inline code` and **bold** words "
                    "that make the paragraph long enough to wrap at least once on a normal terminal.", "",
                    "- first point", "- second point with more words", "", "```python"])  # fmt: skip
        out.extend(f"    value_{i} = compute({i}, factor={block})" for i in range(25))
        out.extend(["```", ""])
    return "\n".join(out[:lines])


def summary(label: str, samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return (f"{label}: mean {statistics.mean(samples) * 1000:.2f} ms, median {statistics.median(samples) * 1000:.2f} "
            f"ms, p95 {p95 * 1000:.2f} ms, max {max(samples) * 1000:.2f} ms ({len(samples)} samples)")  # fmt: skip


async def keystrokes(context: RenderContext, messages: int, keys: int, width: int, rows: int) -> None:
    transcript = Transcript(context)
    started = time.perf_counter()
    transcript.load_messages(session_messages(messages))
    printed = transcript.take_finished(width)
    sink = io.StringIO()
    sink.write("\r\n".join(printed))
    print(f"printed {messages} messages ({len(printed)} lines) into the scrollback in "
          f"{time.perf_counter() - started:.2f} s")  # fmt: skip

    editor = Editor(history=[f"earlier prompt {i}" for i in range(100)])
    queue = QueueView(context)
    queue.set(["steer: use yarn"], ["follow-up: update the docs"])
    footer = Footer(FooterData(cwd="/work/project", home="/work", git_branch="main", model="claude-sonnet-4-5",
                               provider="anthropic", thinking_level="medium", context_tokens=52_000,
                               context_window=200_000, totals=UsageTotals(120_000, 9_000, 400_000, 9_000, 1.23)),
                    context.theme)  # fmt: skip
    pane = BottomPane(transcript, EditorView(editor, context.theme, thinking_level="medium"), footer, queue=queue)
    output = Vt100_Output(io.StringIO(), lambda: Size(rows=rows, columns=width), term="xterm-256color")
    sync_times: list[float] = []
    holder: list[TerminalView] = []

    def typed(text: str) -> None:
        begin = time.perf_counter()
        editor.insert(text)
        frame = pane.render(width, rows)
        for line in frame.lines:
            holder[0].control.fragments(line)
        sync_times.append(time.perf_counter() - begin)
        holder[0].app.invalidate()

    rendered = asyncio.Event()
    with create_pipe_input() as pipe:
        view = TerminalView(pane, build_key_bindings(context.keymap, {}, on_text=typed), input=pipe, output=output)
        holder.append(view)
        view.app.after_render += lambda _app: rendered.set()
        task = asyncio.create_task(view.run())
        await asyncio.sleep(0.2)
        latencies: list[float] = []
        text = "Please refactor the parser module and keep the public API stable. " * 10
        for index in range(keys):
            rendered.clear()
            begin = time.perf_counter()
            pipe.send_text(text[index % len(text)])
            await asyncio.wait_for(rendered.wait(), timeout=5)
            latencies.append(time.perf_counter() - begin)
        view.exit()
        await task
    print(summary("keystroke to redrawn screen (prompt_toolkit app)", latencies))
    print(summary("  of which editor + pane render + fragments", sync_times))


def one_code_block(lines: int) -> str:
    body = [f"    result_{i} = transform(items[{i}], scale={i % 7})  # step {i}" for i in range(lines - 2)]
    return "\n".join(["```python", *body, "```"])


def streaming(label: str, answer: str, width: int, rows: int) -> None:
    source_lines = answer.split("\n")
    lines = len(source_lines)
    context = RenderContext(load_theme("dark", "truecolor"), cwd="/work/project", home="/work")
    transcript = Transcript(context)
    transcript.handle({"type": "message_start", "message": _assistant([], "pending")})
    update_times: list[float] = []
    printed = 0
    started = time.perf_counter()
    for count in range(1, len(source_lines) + 1):
        partial = _assistant([{"type": "text", "text": "\n".join(source_lines[:count])}], "pending")
        begin = time.perf_counter()
        transcript.handle({"type": "message_update", "message": partial, "assistantMessageEvent": {}})
        printed += len(transcript.take_finished(width, live_limit=rows - 8))
        transcript.render_live(width)
        update_times.append(time.perf_counter() - begin)
    transcript.handle({"type": "message_end", "message": _assistant([{"type": "text", "text": answer}])})
    printed += len(transcript.take_finished(width))
    total = time.perf_counter() - started
    print(f"streamed a {lines}-line answer ({label}) in {len(update_times)} updates: {total:.2f} s total, "
          f"{printed} lines printed into the scrollback")  # fmt: skip
    print(summary("  per update (transcript + scrollback hand-off + live render)", update_times))
    cold = Transcript(RenderContext(load_theme("dark", "truecolor"), cwd="/work/project", home="/work"))
    begin = time.perf_counter()
    cold.load_messages([_assistant([{"type": "text", "text": answer}])])
    cold.take_finished(width)
    print(f"  rendering the whole answer at once (cold cache): {(time.perf_counter() - begin) * 1000:.0f} ms")


def _fake_provider(agent: Path, base_url: str) -> None:
    model = {"id": "fake-model", "contextWindow": 200_000, "maxTokens": 8192,
             "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}}  # fmt: skip
    provider = {"baseUrl": base_url, "api": "openai-completions", "apiKey": "bench", "models": [model]}
    (agent / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
    (agent / "settings.json").write_text(json.dumps({"defaultProvider": "fake", "defaultModel": "fake-model"}))


class FrameWatch:
    """Waits for the first frame drawn after a condition became true (what the user sees)."""

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.condition: Any = None
        self.frames = 0

    def after_render(self, _app: Any) -> None:
        self.frames += 1
        if self.condition is None or self.condition():
            self.event.set()

    async def until(self, condition: Any, send: Any) -> float:
        self.condition = condition
        self.event.clear()
        start = time.perf_counter()
        send()
        await asyncio.wait_for(self.event.wait(), timeout=10)
        self.condition = None
        return time.perf_counter() - start


async def interactive_mode(tui_mode: str, messages: int, keys: int, lines: int, width: int, rows: int) -> None:
    from pi_harness.cli.args import parse_args
    from pi_harness.cli.modes.interactive.app import run_interactive
    from pi_harness.cli.modes.interactive.mode import InteractiveMode
    from pi_harness.cli.modes.interactive.shell import Terminal
    from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer() as server:
        root = Path(tmp)
        agent, project = root / "agent", root / "project"
        agent.mkdir()
        project.mkdir()
        os.environ.update(HOME=str(root), PI_CODING_AGENT_DIR=str(agent), PI_OFFLINE="1")
        os.chdir(project)
        _fake_provider(agent, server.base_url("openai-completions"))
        answer = long_answer(lines)
        server.push(ScriptedResponse(steps=[TextStep(answer, chunks=max(1, lines // 2))]))
        with create_pipe_input() as pipe:
            output = Vt100_Output(io.StringIO(), lambda: Size(rows=rows, columns=width), term="xterm-256color")
            modes: list[InteractiveMode] = []
            begin = time.perf_counter()
            task = asyncio.create_task(
                run_interactive(
                    parse_args(["--tui-mode", tui_mode]), terminal=Terminal(pipe, output), observer=modes.append
                )
            )
            while not (modes and modes[0].shell.running):
                await asyncio.sleep(0.001)
            startup = (time.perf_counter() - begin) * 1000
            print(f"pi --tui-mode {tui_mode}: startup until the first frame {startup:.0f} ms")
            mode = modes[0]
            shell = mode.shell
            watch = FrameWatch()
            shell.view.app.after_render += watch.after_render
            begin = time.perf_counter()
            shell.transcript.load_messages(session_messages(messages))  # shown, not sent: the screen's cost
            await watch.until(lambda: len(shell.view.printed) > messages, shell.refresh)
            print(f"  {messages} messages on screen after {(time.perf_counter() - begin) * 1000:.0f} ms "
                  f"({len(shell.view.printed)} lines)")  # fmt: skip
            await asyncio.sleep(0.2)
            text = "Please refactor the parser module and keep the public API stable. " * 10
            latencies: list[float] = []
            for index in range(keys):
                expected = len(shell.editor.text) + 1
                latencies.append(await watch.until(lambda n=expected: len(shell.editor.text) >= n,
                                                   lambda i=index: pipe.send_text(text[i % len(text)])))  # fmt: skip
            print(summary("  keystroke to redrawn screen", latencies))
            shell.editor.clear()
            burst = text[:200]
            elapsed = await watch.until(lambda: shell.editor.text == burst, lambda: pipe.send_text(burst))
            print(f"  a 200-character burst on screen after {elapsed * 1000:.1f} ms")
            if tui_mode == "fullscreen":
                scrolls = [await watch.until(None, lambda: pipe.send_text("\x1b[5~")) for _ in range(20)]
                print(summary("  PageUp to redrawn screen", scrolls))
                await watch.until(None, lambda: pipe.send_text("\x1b[1;5F"))
            shell.editor.clear()
            watch.frames = 0
            profiler = _profiler()
            start = time.perf_counter()
            pipe.send_text("go\r")
            while not server.completed_streams and not shell.transcript.has_live:
                await asyncio.sleep(0.001)
            during: list[float] = []
            deadline = start + 120
            while not server.completed_streams or mode.busy or shell.transcript.has_live:
                if time.perf_counter() > deadline:
                    raise RuntimeError("the streamed answer did not finish within two minutes")
                if mode.busy and len(during) < keys:
                    expected = len(shell.editor.text) + 1
                    during.append(await watch.until(lambda n=expected: len(shell.editor.text) >= n,
                                                    lambda: pipe.send_text("x")))  # fmt: skip
                else:
                    await asyncio.sleep(0.001)
            elapsed = time.perf_counter() - start
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(f"{os.environ['PI_BENCH_PROFILE']}.{tui_mode}")
            print(f"  streamed a {lines}-line answer in {max(1, lines // 2)} deltas from the server: "
                  f"{elapsed:.2f} s until settled, {watch.frames} frames drawn, {len(shell.view.printed)} lines in "
                  "the transcript")  # fmt: skip
            if during:
                print(summary("  keystroke while streaming", during))
            await mode.quit(0)
            await task


def _profiler() -> Any:
    """cProfile over the streamed answer when ``PI_BENCH_PROFILE`` names a file (development)."""
    if not os.environ.get("PI_BENCH_PROFILE"):
        return None
    import cProfile

    profiler = cProfile.Profile()
    profiler.enable()
    return profiler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--keys", type=int, default=200)
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--width", type=int, default=120)
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--tui-mode", choices=("fullscreen", "regular", "both"), default="both")
    parser.add_argument("--only-pi", action="store_true", help="skip the component benchmarks (1 and 2)")
    parser.add_argument("--tmux", action="store_true", help="ours next to the real Pi in tmux")
    parser.add_argument("--pi", type=Path, default=DEFAULT_PI, help="the real Pi's pi14 wrapper (--tmux)")
    parser.add_argument("--ours-only", action="store_true", help="--tmux without the real Pi")
    parser.add_argument("--pairs", type=int, default=3, help="interleaved pairs of runs per mode (--tmux)")
    parser.add_argument("--deltas", type=int, default=4000, help="deltas of the streamed answer (--tmux)")
    parser.add_argument("--startup", action="store_true", help="--tmux: only the startup until the screen settled")
    parser.add_argument("--session-shape", choices=("generated", "coding"), default="generated",
                        help="--tmux: bench/sessions.py's session, or the coding mix with file reads")  # fmt: skip
    args = parser.parse_args()
    if args.tmux:
        from tui_tmux import run_tmux  # bench/tui_tmux.py, found next to this file

        run_tmux(pi=None if args.ours_only else args.pi,
                 modes=["fullscreen", "regular"] if args.tui_mode == "both" else [args.tui_mode], pairs=args.pairs,
                 messages=args.messages, lines=min(args.lines, 2000), deltas=args.deltas, keys=min(args.keys, 100),
                 width=args.width, rows=args.rows, startup_only=args.startup, shape=args.session_shape)  # fmt: skip
        return
    context = RenderContext(load_theme("dark", "truecolor"), cwd="/work/project", home="/work")
    if not args.only_pi:
        asyncio.run(keystrokes(context, args.messages, args.keys, args.width, args.rows))
        streaming("mixed markdown", long_answer(args.lines), args.width, args.rows)
        streaming("a single code block", one_code_block(args.lines), args.width, args.rows)
    for tui_mode in ("fullscreen", "regular") if args.tui_mode == "both" else (args.tui_mode,):
        asyncio.run(interactive_mode(tui_mode, args.messages, args.keys, min(args.lines, 2000), args.width, args.rows))


if __name__ == "__main__":
    main()
