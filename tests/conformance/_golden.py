"""Reading and writing the goldens of one scenario: tests/fixtures/conformance/<scenario>/.

| File | Content |
|---|---|
| ``run-N.json`` | run N: mode, command-line arguments, exit code, stderr, client errors |
| ``run-N.events.jsonl`` | json and rpc runs: every stdout record, one per line, in order |
| ``run-N.stdout.txt`` | print runs: stdout |
| ``session-N.jsonl`` | the N-th session file written (creation order) |
| ``requests.json`` | the request bodies the fake server received, in order |

Everything is normalised (see ``_normalize``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from _programs import GOLDENS


def _dump_line(record: Any) -> str:
    return json.dumps(record, ensure_ascii=False, sort_keys=False, separators=(",", ":"))


def write(name: str, golden: dict[str, Any], args: list[list[str]], root: Path = GOLDENS) -> Path:
    target = root / name
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    for number, run in enumerate(golden["runs"], 1):
        meta = {
            "mode": run["mode"],
            "args": args[number - 1],
            "exit_code": run["exit_code"],
            "stderr": run["stderr"],
            "errors": run["errors"],
        }
        (target / f"run-{number}.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
        if run["mode"] == "print":
            (target / f"run-{number}.stdout.txt").write_text(run["stdout"])
        else:
            lines = [_dump_line(record) for record in run["records"]]
            (target / f"run-{number}.events.jsonl").write_text("".join(line + "\n" for line in lines))
    for number, entries in enumerate(golden["sessions"], 1):
        (target / f"session-{number}.jsonl").write_text("".join(_dump_line(e) + "\n" for e in entries))
    (target / "requests.json").write_text(json.dumps(golden["requests"], indent=1, ensure_ascii=False) + "\n")
    return target


def exists(name: str, root: Path = GOLDENS) -> bool:
    return (root / name / "requests.json").is_file()


def read(name: str, root: Path = GOLDENS) -> dict[str, Any]:
    source = root / name
    runs: list[dict[str, Any]] = []
    number = 1
    while (source / f"run-{number}.json").is_file():
        meta = json.loads((source / f"run-{number}.json").read_text())
        run: dict[str, Any] = {
            "mode": meta["mode"],
            "exit_code": meta["exit_code"],
            "stderr": meta["stderr"],
            "errors": meta["errors"],
        }
        if meta["mode"] == "print":
            run["stdout"] = (source / f"run-{number}.stdout.txt").read_text()
        else:
            text = (source / f"run-{number}.events.jsonl").read_text()
            run["records"] = [json.loads(line) for line in text.split("\n") if line.strip()]
        runs.append(run)
        number += 1
    sessions: list[list[Any]] = []
    number = 1
    while (source / f"session-{number}.jsonl").is_file():
        text = (source / f"session-{number}.jsonl").read_text()
        sessions.append([json.loads(line) for line in text.split("\n") if line.strip()])
        number += 1
    requests = json.loads((source / "requests.json").read_text())
    return {"runs": runs, "sessions": sessions, "requests": requests}
