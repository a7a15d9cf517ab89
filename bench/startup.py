"""Startup benchmark of the ``pi`` command: how long until it is useful, and how much memory.

    .venv/bin/python bench/startup.py               # every scenario, 7 runs each (sessions: 3)
    .venv/bin/python bench/startup.py --runs 15 --only print

Scenarios (each a fresh ``pi`` process; the median of the runs is printed):

* ``version``: ``pi --version`` until exit.
* ``print``: ``pi -p hi`` against a loopback fake LLM server run inside this process. TTFR (time to
  first request) is taken when the server hands the request to its response callable, i.e. after
  the whole request arrived; ``exit`` when the process has ended (answer printed, session saved).
* ``rpc``: ``pi --mode rpc`` until the response to a first ``get_state``.
* ``session-10k`` / ``session-50k``: ``pi --session FILE -p hi`` with a generated session of that
  many message entries (the same generator as ``bench/sessions.py``; ~25 MB for 50k); TTFR
  includes sending the whole context to the server.

Bytecode: an installed package has its ``.pyc`` files, so the children get a bytecode cache
(``PYTHONPYCACHEPREFIX`` in the benchmark's temporary directory, filled by a warm-up run) even
when ``PYTHONDONTWRITEBYTECODE`` is set; ``--no-bytecode-cache`` measures compiling every module
on every start instead. Peak RSS is the child's ``ru_maxrss`` (``os.wait4``). Targets on the reference machine:
``--version`` < 0.15 s, print TTFR < 0.3 s, print peak RSS < 60 MB, 50k-entry session TTFR < 1 s.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sessions import generate  # bench/sessions.py, found through the path above

from pi_harness.testing.fake_llm import FakeLLMServer, RecordedRequest, ScriptedResponse, TextStep

PI = Path(sys.executable).with_name("pi")
TARGETS = {
    ("version", "exit_s"): 0.15,
    ("print", "ttfr_s"): 0.3,
    ("print", "peak_mb"): 60.0,
    ("session-50k", "ttfr_s"): 1.0,
}


@dataclass
class Sample:
    exit_s: float
    peak_mb: float
    ttfr_s: float | None = None


@dataclass
class Result:
    name: str
    samples: list[Sample] = field(default_factory=list)

    def median(self, attribute: str) -> float | None:
        values = [getattr(s, attribute) for s in self.samples if getattr(s, attribute) is not None]
        return statistics.median(values) if values else None


class Clock:
    """Timestamps the server's requests (the response callable runs when a request has arrived).

    The server parses each request body before calling it; for a 50k-entry session that is a
    10+ MB JSON document. To keep that cost (which is not pi's) small, the recorded requests are
    dropped before each run and this process does no garbage collection while a child runs.
    """

    def __init__(self) -> None:
        self.request_times: list[float] = []
        self.server: FakeLLMServer | None = None
        self._lock = threading.Lock()

    def answer(self, request: RecordedRequest) -> ScriptedResponse:
        with self._lock:
            self.request_times.append(time.perf_counter())
        return ScriptedResponse(steps=[TextStep("Hello from the benchmark server.")])

    def reset(self) -> None:
        with self._lock:
            self.request_times.clear()
        if self.server is not None:
            self.server.clear()

    def first(self) -> float | None:
        with self._lock:
            return self.request_times[0] if self.request_times else None


def wait_with_rusage(process: subprocess.Popen[bytes]) -> tuple[int, float]:
    """Exit status and peak RSS (MB) of a child, reaped with ``wait4``."""
    _pid, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, usage.ru_maxrss / 1024  # kilobytes on Linux


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def run_once(args: list[str], env: dict[str, str], cwd: Path, clock: Clock | None) -> Sample:
    if clock is not None:
        clock.reset()
    with collection_paused():
        return _run_once(args, env, cwd, clock)


def _run_once(args: list[str], env: dict[str, str], cwd: Path, clock: Clock | None) -> Sample:
    start = time.perf_counter()
    process = subprocess.Popen(
        [str(PI), *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd
    )
    out, err = process.stdout, process.stderr
    assert out is not None and err is not None
    # Drain both pipes while waiting so the child never blocks on a full pipe.
    drained: dict[str, bytes] = {}
    readers = [
        threading.Thread(target=lambda: drained.__setitem__("out", out.read())),
        threading.Thread(target=lambda: drained.__setitem__("err", err.read())),
    ]
    for reader in readers:
        reader.start()
    code, peak = wait_with_rusage(process)
    end = time.perf_counter()
    for reader in readers:
        reader.join()
    if code != 0:
        raise RuntimeError(f"pi {' '.join(args)} exited {code}: {drained.get('err', b'').decode()[-2000:]}")
    first = clock.first() if clock is not None else None
    return Sample(exit_s=end - start, peak_mb=peak, ttfr_s=(first - start) if first is not None else None)


def run_rpc_once(env: dict[str, str], cwd: Path) -> Sample:
    """``pi --mode rpc``: time until the first response (the process is then told to stop)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [str(PI), "--mode", "rpc"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b'{"id":"1","type":"get_state"}\n')
    process.stdin.flush()
    line = process.stdout.readline()
    ready = time.perf_counter()
    if json.loads(line).get("id") != "1":
        raise RuntimeError(f"unexpected first record: {line[:200]!r}")
    process.stdin.close()
    process.stdout.read()
    code, peak = wait_with_rusage(process)
    if code != 0:
        raise RuntimeError(f"pi --mode rpc exited {code}")
    return Sample(exit_s=ready - start, peak_mb=peak)


def setup_home(root: Path, server: FakeLLMServer, *, bytecode_cache: bool) -> tuple[dict[str, str], Path]:
    home = root / "home"
    agent_dir = home / ".pi" / "agent"
    agent_dir.mkdir(parents=True)
    project = root / "project"
    project.mkdir()
    (agent_dir / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "fake": {
                        "baseUrl": server.base_url("openai-completions"),
                        "api": "openai-completions",
                        "apiKey": "bench-key",
                        "models": [{"id": "fake-model", "name": "Fake", "contextWindow": 200000, "maxTokens": 8192}],
                    }
                }
            }
        )
    )
    (agent_dir / "settings.json").write_text(json.dumps({"defaultProvider": "fake", "defaultModel": "fake-model"}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PI_", "OPENAI_", "ANTHROPIC_"))}
    env.update(
        HOME=str(home),
        PI_CODING_AGENT_DIR=str(agent_dir),
        PI_OFFLINE="1",
        NO_PROXY="127.0.0.1,localhost",
    )
    if bytecode_cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env, project


def scenario(name: str, runs: int, once: Callable[[], Sample]) -> Result:
    result = Result(name)
    once()  # warm the file-system and bytecode caches
    for _ in range(runs):
        result.samples.append(once())
    return result


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    return f"{value * 1000:.0f} ms" if unit == "s" else f"{value:.1f} MB"


def verdict(name: str, attribute: str, value: float | None) -> str:
    target = TARGETS.get((name, attribute))
    if target is None or value is None:
        return ""
    return " ok" if value < target else f" (target < {fmt(target, 's' if attribute.endswith('_s') else 'mb')})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--session-runs", type=int, default=3)
    parser.add_argument("--only", action="append", help="scenario name (repeatable)")
    parser.add_argument("--no-bytecode-cache", action="store_true", help="compile every module on every start")
    args = parser.parse_args(argv)
    wanted = set(args.only or ["version", "print", "rpc", "session-10k", "session-50k"])

    clock = Clock()
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="pi-startup-bench-") as tmp, FakeLLMServer(default=clock.answer) as server:
        clock.server = server
        root = Path(tmp)
        env, project = setup_home(root, server, bytecode_cache=not args.no_bytecode_cache)
        if "version" in wanted:
            results.append(scenario("version", args.runs, lambda: run_once(["--version"], env, project, None)))
        if "print" in wanted:
            results.append(scenario("print", args.runs, lambda: run_once(["-p", "hi"], env, project, clock)))
        if "rpc" in wanted:
            results.append(scenario("rpc", args.runs, lambda: run_rpc_once(env, project)))
        for size in (10_000, 50_000):
            name = f"session-{size // 1000}k"
            if name not in wanted:
                continue
            source = root / f"source-{size}.jsonl"
            megabytes = generate(source, size) / 1e6
            print(f"generated {name}: {megabytes:.1f} MB", file=sys.stderr)
            target = root / f"run-{size}.jsonl"

            def once(source: Path = source, target: Path = target) -> Sample:
                shutil.copyfile(source, target)
                return run_once(["--session", str(target), "-p", "hi"], env, project, clock)

            results.append(scenario(name, args.session_runs, once))

    print(f"{'scenario':<14}{'runs':>5}{'TTFR':>12}{'exit/ready':>14}{'peak RSS':>12}")
    for result in results:
        ttfr, exit_s, peak = result.median("ttfr_s"), result.median("exit_s"), result.median("peak_mb")
        print(
            f"{result.name:<14}{len(result.samples):>5}{fmt(ttfr, 's'):>12}{fmt(exit_s, 's'):>14}{fmt(peak, 'mb'):>12}"
        )
    checks = [
        f"  {name} {attribute.removesuffix('_s').removesuffix('_mb')}: "
        f"{fmt(r.median(attribute), 's' if attribute.endswith('_s') else 'mb')}"
        f"{verdict(name, attribute, r.median(attribute))}"
        for (name, attribute) in TARGETS
        for r in results
        if r.name == name
    ]
    if checks:
        print("targets:")
        print("\n".join(checks))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
