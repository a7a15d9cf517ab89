"""pi-harness next to the real Pi 1.4.0: startup, large sessions and per-turn cost, in one run.

    .venv/bin/python bench/compare_pi.py                # 5 interleaved pairs of every figure
    .venv/bin/python bench/compare_pi.py --quick        # 2 pairs, for development
    .venv/bin/python bench/compare_pi.py --growth       # also how each figure grows with size
    .venv/bin/python bench/compare_pi.py --ours-only    # without the reference

Both programs run as fresh processes against the same loopback fake LLM server
(``pi_harness.testing.fake_llm``, OpenAI chat-completions protocol), each in its own temporary
HOME, agent dir and project. The runs are interleaved (ours, Pi, Pi, ours, ...) so that the load
of a shared machine falls on both alike; each figure is the median over the pairs, and the ratio
is ours / Pi. The load average is printed with the table: on a busy machine, compare ratios, not
absolute times.

Figures:

* ``version``: wall time of ``pi --version``;
* ``print``: ``pi -p hi``: time to first request (TTFR: process start until the server has the
  whole request) and peak RSS. Every run after the warm-up repeats the same command in the same
  place, so pi-harness sends the first request it recorded ahead of its session
  (``startup.earlyRequest``); the row below it is the same run with ``PI_EARLY_REQUEST=0``
  (nothing sent ahead: a first run, or one after the configuration changed; Pi ignores it);
* ``session``: ``pi --session FILE -p hi`` with a generated session of 50k message entries
  (``bench/sessions.py``'s generator, ~25 MB): TTFR and peak RSS, opened for the first time
  (each run gets a fresh copy and no index), then *reopened*: the same, with the index file that
  pi-harness leaves beside a large session on close (``session_store/scan_index.py``; Pi has
  none, so its two rows measure the same thing), then *continued*: each program keeps one copy
  and every run continues the session the previous run left (one exchange longer each time), as
  a script that drives a session with ``pi --session FILE -p ...`` does; pi-harness then sends
  the request its previous run rehearsed (``cli/early_request/rehearsal.py``);
* ``turns``: ``pi -p go`` where the model (answering at once) asks for one ``read`` of a small
  file per turn, 200 turns, then answers. The figure is the *harness time* per tool turn: the
  wall time from the end of the second answer to the start of the last request, less the time
  the fake server spent on the requests in between (it reports each request's span,
  ``FakeLLMServer.busy``), divided by the turns less one; for both programs alike. The first
  turn is left out: when pi-harness sent its first request ahead of the session, the server's
  first answer comes back while startup is still going on, so that gap is startup, not a turn.
  The wall time per turn (second to last request) and the peak RSS over the run follow. Below the table, the same
  requests replayed by a bare keep-alive client: what the server and loopback cost per turn, and
  the bare client's own time between answers (near zero: what the subtraction leaves of a client
  that does nothing).

``--growth`` adds sessions of 1k, 10k, 50k and 200k entries and runs of 200 and 2,000 turns (one
pair each unless ``--growth-pairs``) and prints, per figure, its value at each size, how much it
grows per 10x of size (10**k for value ∝ size**k between successive sizes) and a verdict,
"linear or better" when no k exceeds 1 (with ``LINEAR_SLACK`` for noise). Peak RSS is the
child's ``ru_maxrss``, taken by a bare launcher process (``bench/_spawn.py``) so that the
benchmark's own memory does not count.
"""

from __future__ import annotations

import argparse
import gc
import http.client
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import orjson
from sessions import generate  # bench/sessions.py, found through the path above

from pi_harness.testing.fake_llm import FakeLLMServer, RecordedRequest, ScriptedResponse, TextStep, ToolCallStep

BENCH = Path(__file__).resolve().parent
SPAWN = BENCH / "_spawn.py"
OURS = Path(sys.executable).with_name("pi")
DEFAULT_REFERENCE = Path(os.environ.get("PI_REFERENCE", "/work/pi-ref")) / "pi14"
MODEL = "fake-model"
NOTE = "A small file that the model reads once per turn.\n" * 20


@dataclass(frozen=True)
class Program:
    name: str
    command: list[str]


@dataclass
class Run:
    start: float
    end: float
    rss_mb: float
    code: int
    stderr: bytes
    cpu_s: float  # user + system time of the whole run


@dataclass
class World:
    """One program's HOME, agent dir and project."""

    home: Path
    agent: Path
    project: Path
    env: dict[str, str]


@dataclass
class Figure:
    key: str
    label: str
    unit: str  # "s", "ms" or "MB"
    goal: float | None = None  # the largest acceptable ratio ours / Pi
    values: dict[str, list[float]] = field(default_factory=dict)

    def add(self, program: str, value: float) -> None:
        self.values.setdefault(program, []).append(value)

    def median(self, program: str) -> float | None:
        values = self.values.get(program)
        return statistics.median(values) if values else None


class Clock:
    """The server's answers; records when each request had arrived (``time.perf_counter``)."""

    def __init__(self, server: FakeLLMServer) -> None:
        self.server = server
        self.times: list[float] = []
        self.keep_bodies = True  # off for the growth runs (see ``stamp``)
        self._lock = threading.Lock()

    def stamp(self, response: ScriptedResponse) -> Callable[[RecordedRequest], ScriptedResponse]:
        def answer(request: RecordedRequest) -> ScriptedResponse:
            with self._lock:
                self.times.append(time.perf_counter())
                if not self.keep_bodies and len(self.server.requests) > 1:
                    # The server records every request; over 2,000 turns their parsed bodies
                    # would hold gigabytes (each carries the whole conversation so far).
                    earlier = self.server.requests[-2]
                    earlier.body, earlier.raw_body = None, b""
            return response

        return answer

    def reset(self, script: list[ScriptedResponse]) -> None:
        """Forget earlier requests; answer the next ones with ``script``, then with a short text."""
        with self._lock:
            self.times.clear()
        self.server.clear()  # also drops the recorded requests, which may be megabytes each
        self.server.push(*(self.stamp(response) for response in script))
        self.server.default = self.stamp(text_answer())


def text_answer() -> ScriptedResponse:
    return ScriptedResponse(steps=[TextStep("Hello from the benchmark server.")])


TOOL_CALLS = {"read": {"path": "notes.txt"}, "bash": {"command": "cat notes.txt"}, "ls": {"path": "."}}


def tool_turns(turns: int, tool: str = "read") -> list[ScriptedResponse]:
    calls = [ToolCallStep(tool, dict(TOOL_CALLS[tool]), id=f"call_{i}") for i in range(turns)]
    return [*(ScriptedResponse(steps=[call]) for call in calls), text_answer()]


def make_world(root: Path, server: FakeLLMServer) -> World:
    home = root / "home"
    agent = home / ".pi" / "agent"
    project = root / "project"
    agent.mkdir(parents=True)
    project.mkdir(parents=True)
    (project / "notes.txt").write_text(NOTE)
    provider = {
        "baseUrl": server.base_url("openai-completions"),
        "api": "openai-completions",
        "apiKey": "bench-key",
        "models": [{"id": MODEL, "name": "Fake", "contextWindow": 200000, "maxTokens": 8192}],
    }
    (agent / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
    (agent / "settings.json").write_text(json.dumps({"defaultProvider": "fake", "defaultModel": MODEL}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PI_", "OPENAI_", "ANTHROPIC_", "PYTHON"))}
    env.update(HOME=str(home), PI_CODING_AGENT_DIR=str(agent), PI_OFFLINE="1", NO_PROXY="127.0.0.1,localhost")
    env["TMPDIR"] = str(root)
    return World(home, agent, project, env)


@contextmanager
def collection_paused() -> Iterator[None]:
    """No garbage collection in this process (the server thread) while a child runs."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def run(program: Program, args: list[str], world: World, env: dict[str, str] | None = None) -> Run:
    read_end, write_end = os.pipe()
    command = [sys.executable, "-I", "-S", str(SPAWN), str(write_end), *program.command, *args]
    with collection_paused():
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**world.env, **(env or {})},
            cwd=world.project,
            pass_fds=(write_end,),
        )
        os.close(write_end)
        _out, err = process.communicate()
    with os.fdopen(read_end, "rb") as report:
        start, end, rss_kb, code, cpu = report.read().split()
    if int(code) != 0:
        raise RuntimeError(f"{program.name} {' '.join(args)} exited {int(code)}: {err.decode()[-2000:]}")
    return Run(float(start), float(end), int(rss_kb) / 1024, int(code), err, float(cpu))


# -- scenarios: each runs one program once and adds to its figures ------------------------------


@dataclass
class Scenario:
    figures: list[Figure]
    once: Callable[[Program, World, Clock], None]


def copy_session(source: Path, target: Path, cwd: Path) -> None:
    """Copy a generated session, its header naming ``cwd`` (Pi refuses a session of a missing one)."""
    with open(source, "rb") as src, open(target, "wb") as out:
        header = json.loads(src.readline())
        header["cwd"] = str(cwd)
        out.write(json.dumps(header).encode() + b"\n")
        shutil.copyfileobj(src, out, 1 << 20)


def version_scenario(wall: Figure) -> Scenario:
    def once(program: Program, world: World, clock: Clock) -> None:
        result = run(program, ["--version"], world)
        wall.add(program.name, result.end - result.start)

    return Scenario([wall], once)


def session_scenario(
    ttfr: Figure,
    rss: Figure,
    source: Path | None,
    cpu: Figure | None = None,
    *,
    first_open: bool = True,
    continued: bool = False,
    env: dict[str, str] | None = None,
) -> Scenario:
    """``pi -p hi``, with ``--session`` (a fresh copy of ``source``) when a source is given.

    ``first_open``: the session is opened for the first time (no index of an earlier open beside
    it); otherwise the index pi-harness left beside the copy on the previous run stays (the copy
    is byte for byte the same file, so the index still describes it): a session reopened.
    ``continued``: one copy per program, made by its first run; every later run continues it."""

    def once(program: Program, world: World, clock: Clock) -> None:
        args = ["-p", "hi"]
        if source is not None:
            target = world.project.parent / ("session-continued.jsonl" if continued else "session.jsonl")
            if not (continued and target.exists()):
                copy_session(source, target, world.project)  # each run appends to its own copy
            if first_open and not continued:
                target.with_name(target.name + ".idx").unlink(missing_ok=True)
            args = ["--session", str(target), *args]
        clock.reset([])
        result = run(program, args, world, env)
        ttfr.add(program.name, clock.times[0] - result.start)
        rss.add(program.name, result.rss_mb)
        if cpu is not None:
            cpu.add(program.name, result.cpu_s)

    return Scenario([ttfr, rss] if cpu is None else [ttfr, rss, cpu], once)


def harness_gaps(busy: list[tuple[float, float]]) -> float:
    """The time between the server's answers: from the end of the *second* answer to the start of
    the last request, less the server's own time in between (``FakeLLMServer.busy``). That is
    the client's share of the turns: reading the answer, running the tool, building and sending
    the next request. The first turn is left out: when the first request went out ahead of the
    session (pi-harness's ``startup.earlyRequest``), its gap holds the rest of startup, not a
    turn's work; it is also where a tool is used for the first time."""
    if len(busy) < 3:
        return 0.0
    inner = sum(end - start for start, end in busy[2:-1])
    return busy[-1][0] - busy[1][1] - inner


def turns_scenario(
    per_turn: Figure,
    rss: Figure,
    turns: int,
    tool: str,
    cpu: Figure | None = None,
    wall: Figure | None = None,
) -> Scenario:
    """``per_turn``: the harness time per tool turn (wall time less the server's, ``harness_gaps``);
    ``wall``: the wall time per turn, second to last request (as ``harness_gaps``, the first turn
    is left out)."""

    def once(program: Program, world: World, clock: Clock) -> None:
        clock.reset(tool_turns(turns, tool))
        result = run(program, ["-p", "go"], world)
        times = clock.times
        if len(times) != turns + 1:
            raise RuntimeError(f"{program.name}: {len(times)} requests for {turns} turns: {result.stderr[-500:]!r}")
        per_turn.add(program.name, harness_gaps(list(clock.server.busy)) / (turns - 1))
        if wall is not None:
            wall.add(program.name, (times[-1] - times[1]) / (turns - 1))
        rss.add(program.name, result.rss_mb)
        if cpu is not None:
            cpu.add(program.name, result.cpu_s)

    figures = [per_turn, rss, *(f for f in (cpu, wall) if f is not None)]
    return Scenario(figures, once)


def server_floor(floor: Figure, server: FakeLLMServer, clock: Clock, turns: int, tool: str, label: str) -> None:
    """The requests of the last run replayed by a bare keep-alive client (``http.client``): what the
    fake server and the loopback cost per turn, a floor under every program's figure."""
    bodies = [orjson.dumps(request.body) for request in server.requests]
    if len(bodies) != turns + 1:
        return
    clock.reset(tool_turns(turns, tool))
    connection = http.client.HTTPConnection(server.host, server.port)
    try:
        for body in bodies:
            connection.request("POST", "/v1/chat/completions", body=body, headers={"content-type": "application/json"})
            connection.getresponse().read()
    finally:
        connection.close()
    floor.add(label, (clock.times[-1] - clock.times[1]) / (turns - 1))
    floor.add(label + " gaps", harness_gaps(list(server.busy)) / (turns - 1))


def interleave(
    scenario: Scenario, programs: list[tuple[Program, World]], clock: Clock, pairs: int, *, warm: bool = True
) -> None:
    """A warm-up run of each program, then ``pairs`` rounds alternating which one goes first."""
    if warm:
        for program, world in programs:
            scenario.once(program, world, clock)
        for figure in scenario.figures:
            figure.values.clear()
    for round_index in range(pairs):
        order = programs if round_index % 2 == 0 else programs[::-1]
        for program, world in order:
            scenario.once(program, world, clock)


# -- report ---------------------------------------------------------------------------------------


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "MB":
        return f"{value:.1f} MiB"
    if unit == "ms":
        return f"{value * 1000:.2f} ms"
    return f"{value:.3f} s"


def table(figures: list[Figure], names: list[str]) -> str:
    ours, reference = names[0], names[1] if len(names) > 1 else None
    header = f"{'figure':<44}{'n':>3}{ours:>14}"
    if reference:
        header += f"{reference:>14}{'ratio':>8}{'goal':>8}"
    lines = [header]
    for figure in figures:
        mine = figure.median(ours)
        line = f"{figure.label:<44}{len(figure.values.get(ours, [])):>3}{fmt(mine, figure.unit):>14}"
        if reference:
            theirs = figure.median(reference)
            ratio = mine / theirs if mine is not None and theirs else None
            goal = f"<= {figure.goal:g}" if figure.goal is not None else ""
            flag = "" if ratio is None or figure.goal is None or ratio <= figure.goal else " !"
            ratio_text = f"{ratio:.3f}" if ratio is not None else "-"
            line += f"{fmt(theirs, figure.unit):>14}{ratio_text:>8}{goal:>8}{flag}"
        lines.append(line)
    return "\n".join(lines)


# A figure "grows linearly or better" when, between any two sizes, it grows by at most the
# factor the size does (exponent 1), with this much slack for the noise of single runs.
LINEAR_SLACK = 0.15


def growth_exponent(size_a: float, value_a: float, size_b: float, value_b: float) -> float:
    """k in value ∝ size**k between two points (0 for a figure that does not grow)."""
    if value_a <= 0 or value_b <= 0 or size_a == size_b:
        return 0.0
    return math.log(value_b / value_a) / math.log(size_b / size_a)


def growth_table(series: list[tuple[str, list[tuple[int, Figure]]]], names: list[str]) -> str:
    """Per program and figure: the value at each size, its growth per 10x of size between
    successive sizes (10**k), and a verdict: linear or better when no k exceeds 1."""
    lines: list[str] = []
    for title, points in series:
        for name in names:
            cells: list[str] = []
            worst = 0.0
            previous: tuple[int, float] | None = None
            for size, figure in points:
                value = figure.median(name)
                cell = f"{figure.label}: {fmt(value, figure.unit)}"
                if value is not None and previous is not None:
                    k = growth_exponent(previous[0], previous[1], size, value)
                    worst = max(worst, k)
                    cell += f" (x{10**k:.1f}/10x)"
                cells.append(cell)
                if value is not None:
                    previous = (size, value)
            verdict = "linear or better" if worst <= 1 + LINEAR_SLACK else f"WORSE THAN LINEAR (k={worst:.2f})"
            lines.append(f"{title:<28}{name:<12}" + ", ".join(cells) + f"  -> {verdict}")
    return "\n".join(lines)


def floor_note(floor: Figure, turn: Figure, names: list[str]) -> str:
    value = floor.median(names[0])
    if value is None:
        return ""
    note = f"the fake server alone (a bare client replaying the same requests): {fmt(value, 'ms')} per turn"
    theirs = turn.median(names[1]) if len(names) > 1 else None
    if theirs:
        note += f", a floor of {value / theirs:.3f} under the wall-time ratio"
    gaps = floor.median(names[0] + " gaps")
    if gaps is not None:
        note += f"; the bare client's own time between answers: {fmt(gaps, 'ms')} per turn"
    return note


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=5, help="interleaved pairs per figure (default 5)")
    parser.add_argument("--quick", action="store_true", help="2 pairs, 1 for the session and turn figures")
    parser.add_argument("--ours-only", action="store_true", help="do not run the reference Pi")
    parser.add_argument("--pi", type=Path, default=DEFAULT_REFERENCE, help="the reference's pi14 wrapper")
    parser.add_argument(
        "--pi-label",
        default="Pi 1.4.0",
        help="its column's name (e.g. an older pi-harness given as --pi, for before/after)",
    )
    parser.add_argument("--session-entries", type=int, default=50_000)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--tool", choices=sorted(TOOL_CALLS), default="read", help="the tool of each turn")
    parser.add_argument("--growth", action="store_true", help="also 1k/10k/50k/200k entries, 200/2000 turns")
    parser.add_argument("--growth-sessions", type=int, nargs="*", default=[1000, 10_000, 50_000, 200_000])
    parser.add_argument("--growth-turns", type=int, nargs="*", default=[200, 2000])
    parser.add_argument("--growth-pairs", type=int, default=1)
    parser.add_argument("--only", action="append", choices=["version", "print", "session", "turns"])
    args = parser.parse_args(argv)
    pairs = 2 if args.quick else args.pairs
    heavy_pairs = 1 if args.quick else max(1, (args.pairs + 1) // 2)
    wanted = set(args.only or ["version", "print", "session", "turns"])

    programs = [Program("pi-harness", [str(OURS)])]
    if not args.ours_only:
        if args.pi.exists():
            programs.append(Program(args.pi_label, [str(args.pi)]))
        else:
            print(f"reference not found at {args.pi}: measuring pi-harness only", file=sys.stderr)
    names = [p.name for p in programs]
    entries = f"{args.session_entries // 1000}k" if args.session_entries >= 1000 else str(args.session_entries)
    floor = Figure("turn_floor", "the fake server alone, per turn", "ms")
    figures = {
        "version": Figure("version", "pi --version: wall", "s", 0.08),
        "print_ttfr": Figure("print_ttfr", "pi -p: time to first request", "s", 0.2),
        "print_rss": Figure("print_rss", "pi -p: peak RSS", "MB", 0.25),
        "print_cold": Figure("print_cold", "  pi -p, nothing sent ahead: TTFR", "s"),
        "session_ttfr": Figure("session_ttfr", f"--session ({entries} entries): TTFR", "s", 0.15),
        "session_rss": Figure("session_rss", f"--session ({entries} entries): peak RSS", "MB", 0.35),
        "reopen_ttfr": Figure("reopen_ttfr", f"--session ({entries}), reopened: TTFR", "s", 0.15),
        "reopen_rss": Figure("reopen_rss", f"--session ({entries}), reopened: peak RSS", "MB", 0.35),
        "continued_ttfr": Figure("continued_ttfr", f"--session ({entries}), continued: TTFR", "s", 0.15),
        "continued_rss": Figure("continued_rss", f"--session ({entries}), continued: peak RSS", "MB", 0.35),
        "turn": Figure("turn", f"harness time per tool turn ({args.turns} turns)", "ms", 0.1),
        "turn_wall": Figure("turn_wall", f"  wall time per tool turn ({args.turns} turns)", "ms"),
        "turn_rss": Figure("turn_rss", f"peak RSS over {args.turns} turns", "MB", 0.2),
        # CPU time (user + system) of the same runs: less sensitive than wall time to a busy machine.
        "print_cpu": Figure("print_cpu", "  pi -p: CPU time of the run", "s"),
        "session_cpu": Figure("session_cpu", "  --session: CPU time of the run", "s"),
        "turn_cpu": Figure("turn_cpu", f"  {args.turns} turns: CPU time of the run", "s"),
    }
    print(load(), file=sys.stderr)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="pi-compare-") as tmp, FakeLLMServer(default=text_answer()) as server:
        root = Path(tmp)
        clock = Clock(server)
        worlds = [(p, make_world(root / str(i), server)) for i, p in enumerate(programs)]
        if "version" in wanted:
            interleave(version_scenario(figures["version"]), worlds, clock, pairs)
        if "print" in wanted:
            scenario = session_scenario(figures["print_ttfr"], figures["print_rss"], None, figures["print_cpu"])
            interleave(scenario, worlds, clock, pairs)
            cold = session_scenario(figures["print_cold"], Figure("rss", "", "MB"), None, env={"PI_EARLY_REQUEST": "0"})
            interleave(cold, worlds, clock, pairs, warm=False)
        if "session" in wanted:
            source = root / "session-source.jsonl"
            size = generate(source, args.session_entries)
            print(f"generated a session of {args.session_entries} entries, {size / 1e6:.1f} MB", file=sys.stderr)
            scenario = session_scenario(figures["session_ttfr"], figures["session_rss"], source, figures["session_cpu"])
            interleave(scenario, worlds, clock, heavy_pairs)
            reopen = session_scenario(figures["reopen_ttfr"], figures["reopen_rss"], source, first_open=False)
            interleave(reopen, worlds, clock, heavy_pairs)
            onward = session_scenario(figures["continued_ttfr"], figures["continued_rss"], source, continued=True)
            interleave(onward, worlds, clock, heavy_pairs)
        if "turns" in wanted:
            scenario = turns_scenario(
                figures["turn"], figures["turn_rss"], args.turns, args.tool, figures["turn_cpu"], figures["turn_wall"]
            )
            interleave(scenario, worlds, clock, heavy_pairs)
            scenario.once(*worlds[0], clock)  # its requests, replayed for the floor
            for figure in scenario.figures:
                figure.values[names[0]].pop()
            server_floor(floor, server, clock, args.turns, args.tool, names[0])
        order = ["version", "print_ttfr", "print_cold", "print_rss", "print_cpu"]
        order += ["session_ttfr", "session_rss", "session_cpu"]
        order += ["reopen_ttfr", "reopen_rss", "continued_ttfr", "continued_rss"]
        order += ["turn", "turn_wall", "turn_rss", "turn_cpu"]
        shown = [figures[key] for key in order if figures[key].values]
        print(table(shown, names))
        print(floor_note(floor, figures["turn"], names))
        if args.growth:
            print()
            print(growth(args, worlds, clock, root, names))
    print(f"{load()}; {time.perf_counter() - started:.0f} s in all", file=sys.stderr)
    return 0


def growth(
    args: argparse.Namespace, worlds: list[tuple[Program, World]], clock: Clock, root: Path, names: list[str]
) -> str:
    session_ttfr: list[tuple[int, Figure]] = []
    session_rss: list[tuple[int, Figure]] = []
    reopen_ttfr: list[tuple[int, Figure]] = []
    for entries in args.growth_sessions:
        label = f"{entries // 1000}k" if entries >= 1000 else str(entries)
        ttfr, rss, again = Figure("ttfr", label, "s"), Figure("rss", label, "MB"), Figure("reopen", label, "s")
        source = root / f"growth-{entries}.jsonl"
        generate(source, entries)
        interleave(session_scenario(ttfr, rss, source), worlds, clock, args.growth_pairs, warm=False)
        reopened = session_scenario(again, Figure("rss", label, "MB"), source, first_open=False)
        interleave(reopened, worlds, clock, args.growth_pairs, warm=False)
        source.unlink()
        session_ttfr.append((entries, ttfr))
        session_rss.append((entries, rss))
        reopen_ttfr.append((entries, again))
    clock.keep_bodies = False
    turn_time: list[tuple[int, Figure]] = []
    turn_total: list[tuple[int, Figure]] = []
    turn_rss: list[tuple[int, Figure]] = []
    for turns in args.growth_turns:
        label = str(turns)
        per_turn, rss = Figure("turn", label, "ms"), Figure("rss", label, "MB")
        interleave(turns_scenario(per_turn, rss, turns, args.tool), worlds, clock, args.growth_pairs, warm=False)
        total = Figure("total", label, "s")
        for name, values in per_turn.values.items():
            total.values[name] = [value * turns for value in values]
        turn_time.append((turns, per_turn))
        turn_total.append((turns, total))
        turn_rss.append((turns, rss))
    series = [
        ("--session: TTFR", session_ttfr),
        ("--session reopened: TTFR", reopen_ttfr),
        ("--session: peak RSS", session_rss),
        ("harness time per tool turn", turn_time),
        ("harness time, all turns", turn_total),
        ("peak RSS over the turns", turn_rss),
    ]
    return "growth (value at each size; growth per 10x of size; verdict):\n" + growth_table(series, names)


if __name__ == "__main__":
    raise SystemExit(main())
