"""``bench/tui.py --tmux``: our ``pi`` next to the real Pi 1.4.0, each in a real terminal (tmux).

Each run starts one program in its own private tmux server (a pane of ``--width`` x ``--rows``),
resuming a copy of the same session of ``--messages`` messages (``bench/sessions.py``'s generator,
or with ``--session-shape coding`` the coding mix of ``bench/tui.py`` with reads of real files), against the loopback
fake LLM server (OpenAI chat-completions), with its own HOME and agent dir. A tmux control-mode
client (``tmux -C``) watches the pane: every ``%output`` notification is timestamped as it
arrives, and after each one the pane is captured (through the same client, no process per poll)
until the text typed is on screen. A latency is the time from sending the keys to the output
notification whose screen first showed them.

Per run: keys typed one at a time on the idle screen, a 200-character burst until all of it is
visible, then a prompt whose answer is ``--lines`` lines of markdown streamed in ``--deltas``
deltas (one per millisecond or so) while keys are typed one at a time until the server finished;
and the time from Enter until the end of the answer is on screen. Runs of the two programs are
interleaved (ours, Pi, Pi, ours, ...) for ``--pairs`` pairs per mode; medians over all samples of
a program, ratios ours / Pi. Figures only, nothing is asserted.
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from compare_pi import World, copy_session, make_world  # bench/compare_pi.py
from sessions import generate  # bench/sessions.py

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

OURS = Path(sys.executable).with_name("pi")
DEFAULT_PI = Path(os.environ.get("PI_REFERENCE", "/work/pi-ref")) / "pi14"
TYPED = "QZ" + "abcdefghijklmnopqrstuvwxyz" * 4  # unique on screen: nothing else shows "QZ…"
BURST = " ".join(f"w{i:03d}" for i in range(1, 41))  # 40 words, 199 characters
END_MARKER = "END-OF-THE-STREAMED-ANSWER"
TIMEOUT = 60.0


class ControlClient:
    """A ``tmux -C`` client: commands and their output, and the time of the pane's last output."""

    def __init__(self, socket: Path, session: str) -> None:
        self.process = subprocess.Popen(
            ["tmux", "-S", str(socket), "-C", "attach", "-t", session],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
        )
        self.results: queue.Queue[tuple[list[str], float]] = queue.Queue()
        self.changed = threading.Condition()
        self.outputs = 0  # %output notifications so far
        self.last_output = 0.0  # perf_counter() when the latest one arrived
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        block: list[str] | None = None
        mine = False
        for raw in self.process.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if block is not None:
                if line.startswith(("%end ", "%error ")):
                    if mine:
                        self.results.put((block, self.last_output))
                    block = None
                else:
                    block.append(line)
            elif line.startswith("%begin "):
                block, mine = [], line.rsplit(" ", 1)[-1] == "1"  # flags 1: a command of this client
            elif line.startswith("%output "):
                with self.changed:
                    self.outputs += 1
                    self.last_output = time.perf_counter()
                    self.changed.notify_all()
        with self.changed:
            self.outputs = -1  # the client ended
            self.changed.notify_all()

    def command(self, text: str) -> tuple[list[str], float]:
        """The command's output lines and the time of the last pane output before it ran."""
        assert self.process.stdin is not None
        self.process.stdin.write(text.encode() + b"\n")
        return self.results.get(timeout=TIMEOUT)

    def screen(self) -> tuple[str, float]:
        lines, stamp = self.command("capture-pane -p -t bench")
        return " ".join(" ".join(lines).split()), stamp  # whitespace normalised: wrapped rows join up

    def until(self, condition: Callable[[str], bool], send: str | None = None) -> float:
        """Seconds from sending ``send`` until the first pane output whose screen satisfies ``condition``."""
        begin = time.perf_counter()
        if send is not None:
            self.command(send)
        deadline = begin + TIMEOUT
        while True:
            with self.changed:
                seen = self.outputs
            screen, stamp = self.screen()
            if condition(screen):
                return max(0.0, stamp - begin)
            with self.changed:
                while self.outputs == seen:
                    left = deadline - time.perf_counter()
                    if left <= 0 or self.outputs < 0:
                        raise RuntimeError(f"timed out; the screen shows: {screen[-600:]}")
                    self.changed.wait(left)

    def quiet(self, seconds: float) -> float:
        """Wait until the pane wrote nothing for ``seconds``; returns the time of its last output."""
        deadline = time.perf_counter() + TIMEOUT
        while time.perf_counter() < deadline:
            with self.changed:
                last = self.last_output
                self.changed.wait(seconds)
                if self.last_output == last:
                    return last
        raise RuntimeError("the pane never went quiet")

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=10)


@dataclass
class Samples:
    startup: list[float] = field(default_factory=list)
    idle_keys: list[float] = field(default_factory=list)
    burst: list[float] = field(default_factory=list)
    stream_keys: list[float] = field(default_factory=list)
    stream_shown: list[float] = field(default_factory=list)


def write_coding_session(path: Path, messages: int) -> None:
    """A session of ``bench/tui.py``'s coding mix (markdown answers with code, tool calls), each
    ``read`` returning a real source file of some 400 lines, as reading code does."""
    from tui import session_messages  # bench/tui.py

    source = (Path(__file__).resolve().parent.parent / "src" / "pi_harness" / "tui" / "markdown.py").read_text()
    header = {"type": "session", "version": 3, "id": "bench", "timestamp": "2025-10-01T00:00:00.000Z", "cwd": "/"}
    lines = [json.dumps(header)]
    parent: str | None = None
    for index, generated in enumerate(session_messages(messages)):
        message = generated
        if message["role"] == "toolResult":
            message = {**message, "content": [{"type": "text", "text": source}]}
        entry_id = f"{index + 1:08x}"
        lines.append(json.dumps({"type": "message", "id": entry_id, "parentId": parent,
                                 "timestamp": "2025-10-01T00:00:01.000Z", "message": message}))  # fmt: skip
        parent = entry_id
    path.write_text("\n".join(lines) + "\n")


def tmux_answer(lines: int) -> str:
    from tui import long_answer  # bench/tui.py

    return long_answer(lines) + f"\n\nThe end: {END_MARKER}."


def one_run(program: str, command: list[str], mode: str, world: World, session: Path, server: FakeLLMServer,
            answer: str, deltas: int, keys: int, width: int, rows: int, samples: Samples,
            startup_only: bool = False) -> None:  # fmt: skip
    target = world.project.parent / "session.jsonl"
    copy_session(session, target, world.project)  # each run appends to its own copy
    socket_dir = Path(tempfile.mkdtemp(prefix="pi-bench-", dir="/tmp"))
    socket = socket_dir / "s"
    args = [*command, "--session", str(target), "--tui-mode", mode, "--provider", "fake", "--model", "fake-model"]
    shell = "exec " + " ".join(shlex.quote(part) for part in args)
    env = dict(world.env, TERM="xterm-256color")
    server.clear()
    server.push(ScriptedResponse(steps=[TextStep(answer, chunks=deltas)], chunk_delay_ms=1))
    started = time.perf_counter()
    subprocess.run(["tmux", "-S", str(socket), "-f", "/dev/null", "new-session", "-d", "-s", "bench", "-x", str(width),
                    "-y", str(rows), "-c", str(world.project), shell], env=env, check=True)  # fmt: skip
    client = ControlClient(socket, "bench")
    spy = _py_spy(program, mode, socket)
    try:
        client.until(lambda screen: "fake-model" in screen)
        samples.startup.append(client.quiet(1.0) - started)
        if startup_only:
            return
        client.until(lambda screen: TYPED[:2] in screen, f"send-keys -t bench -l {TYPED[:2]}")
        for index in range(3, keys + 1):
            time.sleep(0.01)
            shown = TYPED[:index]
            samples.idle_keys.append(client.until(lambda s, t=shown: t in s, f"send-keys -t bench -l {shown[-1]}"))
        client.until(lambda screen: TYPED[:2] not in screen, f"send-keys -t bench -N {keys + 5} BSpace")
        client.quiet(0.3)
        samples.burst.append(client.until(lambda s: BURST in s, f"send-keys -t bench -l {shlex.quote(BURST)}"))
        client.until(lambda screen: "w001" not in screen, f"send-keys -t bench -N {len(BURST) + 5} BSpace")
        client.quiet(0.3)
        client.command("send-keys -t bench -l go")
        enter = time.perf_counter()
        client.command("send-keys -t bench Enter")
        while not server.requests:
            time.sleep(0.001)
        finished = server.completed_streams + 1
        client.until(lambda screen: TYPED[:2] in screen, f"send-keys -t bench -l {TYPED[:2]}")
        typed = 2
        while server.completed_streams < finished and typed < len(TYPED):
            time.sleep(0.04)  # spread over the stream
            typed += 1
            shown = TYPED[:typed]
            samples.stream_keys.append(client.until(lambda s, t=shown: t in s, f"send-keys -t bench -l {shown[-1]}"))
        client.until(lambda screen: END_MARKER in screen)
        samples.stream_shown.append(client.quiet(0.5) - enter)
    finally:
        if spy is not None:
            spy.send_signal(2)  # py-spy writes its file on SIGINT
            spy.wait(timeout=30)
        subprocess.run(["tmux", "-S", str(socket), "kill-server"], capture_output=True, check=False)
        client.close()
        shutil.rmtree(socket_dir, ignore_errors=True)


def _py_spy(program: str, mode: str, socket: Path) -> subprocess.Popen[bytes] | None:
    """``py-spy record`` of our pi for the whole run when ``PI_BENCH_PY_SPY`` names a directory
    (development: py-spy is not a dependency; collapsed stacks, one file per mode)."""
    folder = os.environ.get("PI_BENCH_PY_SPY")
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not folder or program != "pi-harness" or not Path(spy).exists():
        return None
    pid = subprocess.run(["tmux", "-S", str(socket), "display", "-p", "-t", "bench", "#{pane_pid}"],
                         capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    target = Path(folder) / f"pi-harness-{mode}-{time.time_ns()}.txt"
    return subprocess.Popen([spy, "record", "--format", "raw", "--rate", "250", "-o", str(target), "-p", pid],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def report(mode: str, results: dict[str, Samples], names: list[str], startup_only: bool = False) -> None:
    rows: list[tuple[str, Callable[[Samples], list[float]], Callable[[list[float]], float]]] = [
        ("startup until the screen settled", lambda s: s.startup, statistics.median),
        ("a key on the idle screen: median", lambda s: s.idle_keys, statistics.median),
        ("a key on the idle screen: p95", lambda s: s.idle_keys, _p95),
        ("a 200-character burst fully shown: median", lambda s: s.burst, statistics.median),
        ("a key while streaming: median", lambda s: s.stream_keys, statistics.median),
        ("a key while streaming: p95", lambda s: s.stream_keys, _p95),
        ("a key while streaming: max", lambda s: s.stream_keys, max),
        ("Enter until the whole answer is shown", lambda s: s.stream_shown, statistics.median),
    ]
    if startup_only:
        rows = rows[:1]
    header = f"--tui-mode {mode:<33}" + "".join(f"{name:>14}" for name in names)
    print(header + ("   ratio" if len(names) == 2 else ""))
    for label, pick, reduce in rows:
        values = [reduce(pick(results[name])) if pick(results[name]) else None for name in names]
        line = f"  {label:<41}" + "".join(f"{v * 1000:>11.1f} ms" if v is not None else f"{'-':>14}" for v in values)
        if len(values) == 2 and values[0] is not None and values[1]:
            line += f"{values[0] / values[1]:>8.2f}"
        print(line)
    if startup_only:
        spread = ", ".join(f"{name}: " + " ".join(f"{v * 1000:.0f}" for v in results[name].startup) for name in names)
        print(f"  (startup runs in ms: {spread})")
        return
    counts = ", ".join(f"{name}: {len(results[name].stream_keys)} keys while streaming" for name in names)
    print(f"  ({counts})")


def run_tmux(*, pi: Path | None, modes: list[str], pairs: int, messages: int, lines: int, deltas: int, keys: int,
             width: int, rows: int, startup_only: bool = False, shape: str = "generated") -> None:  # fmt: skip
    if shutil.which("tmux") is None:
        print("tmux is not installed", file=sys.stderr)
        return
    programs: list[tuple[str, list[str]]] = [("pi-harness", [str(OURS)])]
    if pi is not None and pi.exists():
        programs.append(("Pi 1.4.0", [str(pi)]))
    elif pi is not None:
        print(f"reference not found at {pi}: measuring pi-harness only", file=sys.stderr)
    names = [name for name, _ in programs]
    answer = tmux_answer(lines)
    keys = min(keys, len(TYPED))
    one, five, _ = os.getloadavg()
    print(f"tmux {width}x{rows}, a session of {messages} messages ({shape}), an answer of {lines} lines in "
          f"{deltas} deltas, {pairs} interleaved pairs per mode; load {one:.2f} {five:.2f} "
          f"on {os.cpu_count()} cores")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer() as server:
        root = Path(tmp)
        session = root / "source.jsonl"
        if shape == "coding":
            write_coding_session(session, messages)
        else:
            generate(session, messages, compact_every=0)
        worlds = {}
        for name, _ in programs:
            (root / name).mkdir()
            worlds[name] = make_world(root / name, server)
        for mode in modes:
            results = {name: Samples() for name in names}
            for round_index in range(pairs):
                order = programs if round_index % 2 == 0 else programs[::-1]
                for name, command in order:
                    one_run(name, command, mode, worlds[name], session, server, answer, deltas, keys, width, rows,
                            results[name], startup_only)  # fmt: skip
            report(mode, results, names, startup_only)
