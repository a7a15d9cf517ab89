"""What the fault tests check after pi has gone: the exit came in time, the session is whole."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import time
from pathlib import Path

# Generous: a test fails only when pi is really stuck, never because the machine is slow.
EXIT_WITHIN_S = 10.0


def wait_exit(process: subprocess.Popen[bytes], timeout: float = EXIT_WITHIN_S) -> int:
    """The exit code; fails (after killing it) when pi is still running after ``timeout``."""
    try:
        process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise AssertionError(f"pi still running {timeout} s after being asked to stop") from None
    return process.returncode


def wait_for_file(path: Path, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text()
        time.sleep(0.01)
    raise AssertionError(f"{path} never appeared")


def check_session(path: Path) -> list[dict[str, object]]:
    """Every line is a JSON object and every tool call of an assistant message has a result."""
    entries: list[dict[str, object]] = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        try:
            entry = json.loads(line)
        except ValueError as exc:
            raise AssertionError(f"{path}:{number} is not JSON: {line!r}") from exc
        assert isinstance(entry, dict), f"{path}:{number} is not an object"
        entries.append(entry)
    calls: list[str] = []
    results: set[str] = set()
    for entry in entries:
        message = entry.get("message")
        if entry.get("type") != "message" or not isinstance(message, dict):
            continue
        if message.get("role") == "assistant":
            calls += [str(b.get("id")) for b in message.get("content", []) if b.get("type") == "toolCall"]
        elif message.get("role") == "toolResult":
            results.add(str(message.get("toolCallId")))
    missing = [call for call in calls if call not in results]
    assert not missing, f"tool calls without a result in {path}: {missing}"
    return entries


def tool_results(entries: list[dict[str, object]]) -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    for entry in entries:
        message = entry.get("message")
        if isinstance(message, dict) and message.get("role") == "toolResult":
            found.append(message)
    return found


class Procs:
    """Finds this test's ``sleep`` processes by a unique argument; kills leftovers at the end."""

    def __init__(self) -> None:
        self.args: list[str] = []

    def new_arg(self) -> str:
        arg = f"{1000 + secrets.randbelow(1000)}.{secrets.randbelow(10**6):06d}"
        self.args.append(arg)
        return arg

    def find(self, argument: str) -> list[int]:
        """Live ``sleep`` processes with ``argument`` among their words (only ``sleep`` itself:
        a wrapper such as ``setsid sleep N`` carries the argument too before it has exec'd)."""
        found: list[int] = []
        needle = argument.encode()
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/cmdline", "rb") as handle:
                    words = handle.read().split(b"\0")
                with open(f"/proc/{name}/stat", "rb") as handle:
                    state = handle.read().rsplit(b")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if words and os.path.basename(words[0]) == b"sleep" and needle in words and state != b"Z":
                found.append(int(name))
        return found

    def wait_for(self, argument: str, timeout: float = 20) -> list[int]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.find(argument)
            if found:
                return found
            time.sleep(0.01)
        raise AssertionError(f"process {argument} did not start")

    def gone(self, argument: str, timeout: float = 5) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.find(argument):
                return True
            time.sleep(0.02)
        return False

    def kill_all(self) -> None:
        for argument in self.args:
            for pid in self.find(argument):
                try:
                    os.kill(pid, 9)
                except OSError:
                    pass


# One extension for the whole fault matrix: ``faults`` maps an event to what its handler does
# (``raise``, ``hang``, ``stubborn`` = hang and swallow the cancellation, ``sleep``, ``cancel``,
# ``exit``, ``log``); every handler first appends the event's name to the marks file, so a test
# knows when a fault is under way.
FAULT_EXTENSION = """
import asyncio
import time

FAULTS = {faults!r}
MARKS = {marks!r}


def extension(pi):
    def make(event, fault):
        async def handler(ev, ctx):
            with open(MARKS, "a") as marks:
                marks.write(event + "\\n")
            if fault == "raise":
                raise RuntimeError("boom in " + event)
            if fault == "hang":
                await asyncio.Event().wait()
            if fault == "stubborn":
                try:
                    await asyncio.Event().wait()
                except asyncio.CancelledError:
                    await asyncio.Event().wait()
            if fault == "sleep":
                time.sleep(60)
            if fault == "cancel":
                raise asyncio.CancelledError()
            if fault == "exit":
                raise SystemExit(7)
            return None

        return handler

    for event, fault in FAULTS.items():
        pi.on(event, make(event, fault))
"""


def fault_extension(directory: Path, faults: dict[str, str]) -> tuple[Path, Path]:
    """The extension file and its marks file."""
    marks = directory / "marks.log"
    extension = directory / "fault_ext.py"
    extension.write_text(FAULT_EXTENSION.format(faults=faults, marks=str(marks)))
    return extension, marks


def marks(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def wait_for_mark(path: Path, event: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if event in marks(path):
            return
        time.sleep(0.01)
    raise AssertionError(f"no {event} handler ran; marks: {marks(path)}")
