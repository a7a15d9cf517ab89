"""Small coding tasks against a real local model: pi-harness next to Pi 1.4.0.

    /work/shared/tools/localllm/setup                       # once (LOCALLLM_HOME=...)
    RAW=1 /work/shared/tools/localllm/start 18080 &          # plain llama-server
    .venv/bin/python bench/real_model.py --url http://127.0.0.1:18080 --trials 3
    .venv/bin/python bench/real_model.py --url ... --only hello,rename --harness ours

On a machine whose cores are shared, run each harness against a server of its own, at the same
time, so both meet the same load and each keeps its own prompt cache (one thread per server, at
a higher priority: see bench/results/ for why):

    RAW=1 THREADS=1 nice -n -5 start 18080 & RAW=1 THREADS=1 nice -n -5 start 18081 &
    .venv/bin/python bench/real_model.py --url http://127.0.0.1:18080 --harness ours -v &
    .venv/bin/python bench/real_model.py --url http://127.0.0.1:18081 --harness pi -v

Every task starts from a fresh temporary project (a few files), gives the agent one prompt in
print mode (``--mode json``, no session file) and is judged by a shell command run in the
project afterwards (exit status 0 = success). Both harnesses get the same isolated agent dir
with a ``models.json`` naming the server as provider ``localllm`` (openai-completions), a fresh
HOME, ``PI_OFFLINE=1``, and the same per-trial time limit. The harnesses take turns on each
task (who goes first alternates), so load changes fall on both alike; each harness runs in
fixed paths, so its system prompt is the same for every task.

Printed per harness: successes / trials, and over all trials the mean assistant turns, tokens
(input + output as the server counted them) and wall time; with ``--verbose`` one line per trial.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OURS = [str(ROOT / ".venv" / "bin" / "pi")]
PI14 = Path("/work/pi-ref/pi14")
MODEL_ID = "qwen2.5-coder-1.5b-instruct"


@dataclass(frozen=True)
class Task:
    name: str
    prompt: str
    check: str  # shell command, run in the project; exit 0 = solved
    files: dict[str, str] = field(default_factory=dict)


TASKS: tuple[Task, ...] = (
    Task(
        "hello",
        "Create hello.py that prints exactly: hello world. Then run it with python3.",
        "python3 hello.py | grep -qx 'hello world'",
    ),
    Task(
        "fix-test",
        "The test in test_calc.py fails. Fix the bug in calc.py (not the test).",
        "python3 test_calc.py && grep -q 'a + b' calc.py",
        {
            "calc.py": "def add(a, b):\n    return a - b\n",
            "test_calc.py": "from calc import add\n\nassert add(2, 3) == 5\nprint('ok')\n",
        },
    ),
    Task(
        "rename",
        "Rename the function greet to welcome in util.py and in main.py.",
        "! grep -q greet util.py main.py && python3 main.py | grep -q Hi",
        {
            "util.py": "def greet(name):\n    return 'Hi ' + name\n",
            "main.py": "from util import greet\n\nprint(greet('Ann'))\n",
        },
    ),
    Task(
        "notes",
        "Create a file notes.txt whose only content is the word done.",
        "grep -qx done notes.txt",
    ),
    Task(
        "add-function",
        "Add a function square(x) that returns x * x to mathx.py.",
        "python3 -c 'import mathx; assert mathx.square(4) == 16; assert mathx.cube(2) == 8'",
        {"mathx.py": "def cube(x):\n    return x * x * x\n"},
    ),
    Task(
        "syntax",
        "broken.py has a syntax error. Fix it so that it runs and prints 6.",
        "python3 broken.py | grep -qx 6",
        {"broken.py": "def total(items)\n    return sum(items)\n\nprint(total([1, 2, 3]))\n"},
    ),
    Task(
        "config-port",
        "In config.py change PORT from 8000 to 9090.",
        "python3 -c 'import config; assert config.PORT == 9090; assert config.HOST == \"localhost\"'",
        {"config.py": 'HOST = "localhost"\nPORT = 8000\n'},
    ),
    Task(
        "json-file",
        'Create data.json containing a JSON object with the key "name" set to "pi".',
        'python3 -c \'import json; assert json.load(open("data.json"))["name"] == "pi"\'',
    ),
    Task(
        "count-lines",
        "Count the lines of words.txt and write just the number into count.txt.",
        "grep -qx ' *4 *' count.txt",
        {"words.txt": "apple\nbanana\ncherry\ndate\n"},
    ),
    Task(
        "package",
        "Create the Python package app: a directory app with an empty __init__.py file in it.",
        "test -f app/__init__.py && python3 -c 'import app'",
    ),
    Task(
        "uppercase",
        "Write upper.py that reads input.txt and prints its content in upper case. Run it.",
        "python3 upper.py | grep -qx 'SHOUT'",
        {"input.txt": "shout\n"},
    ),
    Task(
        "remove-debug",
        "Remove the debug print line from app.py, keep everything else.",
        "! grep -q DEBUG app.py && python3 app.py | grep -qx 3",
        {"app.py": "x = 1 + 2\nprint('DEBUG', x)\nprint(x)\n"},
    ),
)


@dataclass
class Trial:
    harness: str
    task: str
    ok: bool
    turns: int
    tokens: int
    seconds: float
    note: str = ""


def models_json(url: str, context_window: int) -> dict[str, object]:
    base = url.rstrip("/")
    base = base if base.endswith("/v1") else f"{base}/v1"
    return {
        "providers": {
            "localllm": {
                "baseUrl": base,
                "api": "openai-completions",
                "apiKey": "local",
                "models": [
                    {
                        "id": MODEL_ID,
                        "name": "Qwen2.5 Coder 1.5B (local)",
                        "contextWindow": context_window,
                        "maxTokens": 1024,
                        "input": ["text"],
                        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                        "compat": {
                            "supportsStore": False,
                            "supportsDeveloperRole": False,
                            "maxTokensField": "max_tokens",
                        },
                    }
                ],
            }
        }
    }


def command(harness: str) -> list[str]:
    return OURS if harness == "pi-harness" else [str(PI14)]


def run_trial(
    harness: str, task: Task, url: str, context_window: int, limit: float, work: Path, keep: Path | None = None
) -> Trial:
    # The same paths for every trial of a harness: the working directory is in the system
    # prompt, and llama-server's prompt cache (one slot) then keeps the whole shared prefix.
    tmp = work / harness
    shutil.rmtree(tmp, ignore_errors=True)
    home = tmp / "home"
    agent = home / "agent"
    project = tmp / "project"
    agent.mkdir(parents=True)
    project.mkdir()
    (agent / "models.json").write_text(json.dumps(models_json(url, context_window)), encoding="utf-8")
    for name, text in task.files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text, encoding="utf-8")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "PI_CODING_AGENT_DIR": str(agent),
        "PI_OFFLINE": "1",
        "TERM": "dumb",
        "LANG": "C.UTF-8",
    }
    if harness == "pi-harness" and os.environ.get("PYTHONPATH"):
        # e.g. a frozen copy of src/, so that editing the worktree does not change a running bench
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    argv = [*command(harness), "--mode", "json", "--no-session", "--model", f"localllm/{MODEL_ID}", task.prompt]
    started = time.monotonic()
    note = ""
    try:
        done = subprocess.run(argv, check=False, cwd=project, env=env, capture_output=True, text=True, timeout=limit)
        output = done.stdout
        if done.returncode != 0:
            note = f"exit {done.returncode}: {done.stderr.strip()[-200:]}"
    except subprocess.TimeoutExpired as exc:
        raw = exc.stdout or b""
        output = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        note = "time limit"
    seconds = time.monotonic() - started
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        (keep / f"{harness}-{task.name}-{int(time.time())}.jsonl").write_text(output, encoding="utf-8")
    turns, tokens, error = _usage(output)
    note = note or error
    check = subprocess.run(task.check, check=False, shell=True, cwd=project, capture_output=True, timeout=60)
    return Trial(harness, task.name, check.returncode == 0, turns, tokens, seconds, note)


def _usage(output: str) -> tuple[int, int, str]:
    """Assistant turns, tokens, and the error of the last turn when it failed."""
    turns = tokens = 0
    error = ""
    for line in output.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        message = event.get("message") if isinstance(event, dict) and event.get("type") == "message_end" else None
        if isinstance(message, dict) and message.get("role") == "assistant":
            turns += 1
            usage = message.get("usage") or {}
            tokens += int(usage.get("input") or 0) + int(usage.get("output") or 0)
            error = str(message.get("errorMessage") or "")[:120] if message.get("stopReason") == "error" else ""
    return turns, tokens, error


def summarize(trials: list[Trial], harnesses: list[str]) -> str:
    lines = [f"{'harness':<12} {'success':>9} {'rate':>6} {'turns':>6} {'tokens':>8} {'wall s':>7}"]
    for harness in harnesses:
        mine = [t for t in trials if t.harness == harness]
        if not mine:
            continue
        wins = sum(t.ok for t in mine)
        lines.append(
            f"{harness:<12} {wins:>4}/{len(mine):<4} {wins / len(mine):>6.0%} "
            f"{statistics.mean(t.turns for t in mine):>6.1f} {statistics.mean(t.tokens for t in mine):>8.0f} "
            f"{statistics.mean(t.seconds for t in mine):>7.1f}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default=os.environ.get("PI_REAL_MODEL_URL", "http://127.0.0.1:8080"))
    parser.add_argument("--trials", type=int, default=1, help="runs of every task per harness")
    parser.add_argument("--only", default="", help="comma list of task names")
    parser.add_argument("--harness", choices=("both", "ours", "pi"), default="both")
    parser.add_argument("--limit", type=float, default=420.0, help="seconds per trial")
    parser.add_argument("--context-window", type=int, default=8192)
    parser.add_argument("--verbose", "-v", action="store_true")
    parser.add_argument("--keep", type=Path, default=None, help="directory for each trial's JSON event stream")
    args = parser.parse_args()
    tasks = [t for t in TASKS if not args.only or t.name in args.only.split(",")]
    harnesses = ["pi-harness", "pi-1.4.0"]
    if args.harness == "ours" or (args.harness == "both" and not PI14.exists()):
        harnesses = ["pi-harness"]
    elif args.harness == "pi":
        harnesses = ["pi-1.4.0"]
    if not shutil.which(OURS[0]):
        print(f"missing {OURS[0]}: create the venv first", file=sys.stderr)
        return 2
    trials: list[Trial] = []
    work = Path(tempfile.mkdtemp(prefix="real-model-bench-"))
    for trial in range(args.trials):
        for number, task in enumerate(tasks):
            # Both harnesses on each task in turn, who goes first alternating, so that a change
            # of machine load during the run falls on both alike.
            order = harnesses if (trial + number) % 2 == 0 else list(reversed(harnesses))
            for harness in order:
                result = run_trial(harness, task, args.url, args.context_window, args.limit, work, args.keep)
                trials.append(result)
                if args.verbose:
                    print(
                        f"{result.harness:<12} {result.task:<14} {'ok ' if result.ok else 'FAIL'} "
                        f"turns={result.turns} tokens={result.tokens} {result.seconds:.0f}s {result.note}",
                        flush=True,
                    )
        if args.verbose and trial + 1 < args.trials:
            print(f"after round {trial + 1}:\n{summarize(trials, harnesses)}", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    print(f"{len(tasks)} tasks x {args.trials} trials against {args.url} ({MODEL_ID})")
    print(summarize(trials, harnesses))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
