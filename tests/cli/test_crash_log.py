from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from _cli_helpers import RunPi

from pi_harness.cli.crash_log import MAX_CRASH_RECORDS, announce_previous_crash, read_crash_records, record_crash

NOW = datetime(2026, 5, 10, 12, 0, tzinfo=UTC)


def boom(message: str) -> ValueError:
    try:
        raise ValueError(message)
    except ValueError as exc:
        return exc


def test_crash_is_recorded_with_traceback(agent_dir: Path) -> None:
    path = record_crash(boom("first"), now=NOW)
    assert path == agent_dir / "crashes.json"
    [record] = json.loads(path.read_text())
    assert record["error"] == "ValueError: first"
    assert record["timestamp"] == "2026-05-10T12:00:00.000Z"
    assert "Traceback" in record["stack"] and "raise ValueError(message)" in record["stack"]
    assert record["announced"] is False


def test_at_most_five_records_are_kept(agent_dir: Path) -> None:
    for i in range(7):
        record_crash(boom(f"crash {i}"), now=NOW + timedelta(minutes=i))
    records = read_crash_records(agent_dir / "crashes.json")
    assert len(records) == MAX_CRASH_RECORDS
    assert [r["error"] for r in records] == [f"ValueError: crash {i}" for i in range(2, 7)]


def test_announced_once_on_the_next_start(agent_dir: Path) -> None:
    assert announce_previous_crash(now=NOW) is None
    record_crash(boom("kaput\nsecond line"), now=NOW - timedelta(hours=1))
    notice = announce_previous_crash(now=NOW)
    assert notice is not None
    assert notice.startswith("pi-harness crashed on 2026-05-10")
    assert ": ValueError: kaput. " in notice
    assert notice.endswith(f"The crash record is in {agent_dir / 'crashes.json'}; "
                           "run /bug in the interactive mode to write a bug report.")  # fmt: skip
    assert announce_previous_crash(now=NOW) is None
    assert all(r["announced"] for r in read_crash_records(agent_dir / "crashes.json"))


def test_several_crashes_name_the_newest(agent_dir: Path) -> None:
    record_crash(boom("older"), now=NOW - timedelta(days=2))
    record_crash(boom("newer"), now=NOW - timedelta(days=1))
    notice = announce_previous_crash(now=NOW)
    assert notice is not None
    assert "(2 crashes in the last 7 days): ValueError: newer." in notice


def test_records_older_than_seven_days_are_not_announced(agent_dir: Path) -> None:
    record_crash(boom("ancient"), now=NOW - timedelta(days=8))
    assert announce_previous_crash(now=NOW) is None


def test_damaged_file_is_replaced_by_a_valid_one(agent_dir: Path) -> None:
    (agent_dir / "crashes.json").write_text("{not json")
    assert announce_previous_crash(now=NOW) is None
    record_crash(boom("after damage"), now=NOW)
    assert [r["error"] for r in read_crash_records(agent_dir / "crashes.json")] == ["ValueError: after damage"]


CRASHING_RUNNER = r"""
import sys, types
# Stand-in for the session runner (pi_harness.cli.run), which fails in an unexpected way.
runner = types.ModuleType("pi_harness.cli.run")
def run_session(parsed):
    raise RuntimeError("unexpected failure in " + parsed.messages[0])
runner.run_session = run_session
sys.modules["pi_harness.cli.run"] = runner
from pi_harness.cli.main import main
sys.exit(main(["hello"]))
"""


def test_main_records_an_uncaught_exception_and_exits_1(run_python: RunPi, agent_dir: Path) -> None:
    result = run_python(CRASHING_RUNNER)
    assert result.returncode == 1
    assert "RuntimeError: unexpected failure in hello" in result.stderr
    assert str(agent_dir / "crashes.json") in result.stderr
    [record] = read_crash_records(agent_dir / "crashes.json")
    assert record["error"] == "RuntimeError: unexpected failure in hello"
    assert "hello" not in json.dumps({k: v for k, v in record.items() if k not in ("error", "stack")})
    notice = announce_previous_crash()
    assert notice is not None and "RuntimeError: unexpected failure in hello" in notice
