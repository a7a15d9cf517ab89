from __future__ import annotations

import subprocess
import sys

from _cli_helpers import RunPi

TAKEOVER = r"""
import logging, os, subprocess, sys
from pi_harness.cli.stdout_guard import take_over_stdout

print("before")
guard = take_over_stdout()
print("stray print")
logging.basicConfig(stream=sys.stdout, level=logging.INFO)
logging.info("stray log")
os.write(1, b"stray fd write\n")
subprocess.run([sys.executable, "-c", "print('child output')"], check=True)
guard.raw.write_line('{"type":"agent_start"}')
guard.raw.write(b'{"type":"agent_end"}\n')
guard.restore()
print("after")
"""


def test_stray_output_goes_to_stderr_and_protocol_output_to_stdout(run_python: RunPi) -> None:
    result = run_python(TAKEOVER)
    assert result.returncode == 0, result.stderr
    assert result.stdout == 'before\n{"type":"agent_start"}\n{"type":"agent_end"}\nafter\n'
    for stray in ("stray print", "stray log", "stray fd write", "child output"):
        assert stray in result.stderr


BROKEN_PIPE = r"""
import sys
from pi_harness.cli.stdout_guard import take_over_stdout

guard = take_over_stdout()
sys.stdin.readline()  # wait until the reader has gone away
for _ in range(3):
    guard.raw.write_line('{"type":"message_update"}')
sys.stderr.write("still running\n")
sys.exit(0)
"""


def test_broken_pipe_exits_with_code_1() -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", BROKEN_PIPE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stdin is not None
    process.stdout.close()
    process.stdin.write(b"go\n")
    process.stdin.close()
    assert process.wait(timeout=60) == 1
    assert process.stderr is not None
    assert b"still running" not in process.stderr.read()
    process.stderr.close()


def test_raw_writer_calls_the_broken_pipe_handler(run_python: RunPi) -> None:
    code = r"""
import os, sys
from pi_harness.cli.stdout_guard import RawStdout
read_end, write_end = os.pipe()
os.close(read_end)
calls = []
raw = RawStdout(write_end, on_broken_pipe=lambda: calls.append(1))
raw.write_line("x")
raw.write_line("y")
print(len(calls), raw.broken)
"""
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "2 True"
