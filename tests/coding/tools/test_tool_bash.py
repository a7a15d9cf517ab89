from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_harness.agent.types import AgentTool, AgentToolResult
from pi_harness.ai.abort import AbortController, AbortSignal
from pi_harness.coding.tools import (
    ExecResult,
    ToolError,
    ToolOptions,
    create_bash_tool,
    execute_bash,
    kill_all_tracked_processes,
)
from pi_harness.coding.tools.bash_output import OutputCollector


class Procs:
    """Finds this test's processes by a unique ``sleep`` argument; kills leftovers at teardown."""

    def __init__(self) -> None:
        self.args: list[str] = []

    def new_arg(self) -> str:
        arg = f"{1000 + secrets.randbelow(1000)}.{secrets.randbelow(10**6):06d}"
        self.args.append(arg)
        return arg

    def find(self, argument: str) -> list[int]:
        """Live (non-zombie) ``sleep`` processes that have ``argument`` as one of their words.

        Only ``sleep`` itself counts: a wrapper such as ``setsid sleep N`` carries the argument too
        before it has exec'd, and matching it would let a test act before ``setsid`` took effect.
        """
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

    async def wait_for(self, *arguments: str) -> None:
        """Wait until every process runs (after its exec, so e.g. ``setsid`` has been applied)."""
        for _ in range(500):
            if all(self.find(argument) for argument in arguments):
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"processes {arguments} did not start")

    def cleanup(self) -> None:
        for argument in self.args:
            for pid in self.find(argument):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)


@pytest.fixture
def procs() -> Iterator[Procs]:
    if not sys.platform.startswith("linux"):
        pytest.skip("needs /proc")
    tracker = Procs()
    yield tracker
    tracker.cleanup()


async def error_of(awaitable: Awaitable[Any]) -> str:
    """The message of the ``ToolError`` the awaitable raises."""
    with pytest.raises(ToolError) as info:
        await awaitable
    return str(info.value)


@pytest.fixture(autouse=True)
def private_tempdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Full-output files land in the test's own directory, not in the shared /tmp."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def text(result: AgentToolResult) -> str:
    if not result["content"]:
        return ""  # the first update of a command, before any output
    first = result["content"][0]
    assert first["type"] == "text"
    return first["text"]


async def run(tool: AgentTool, command: str, **params: Any) -> AgentToolResult:
    return await tool.execute("call", {"command": command, **params}, None, None)


async def run_until(
    tool: AgentTool, command: str, marker: str, controller: AbortController, **params: Any
) -> asyncio.Task[AgentToolResult]:
    """Start the command and return once its streamed output contains ``marker``."""
    seen = asyncio.Event()

    def on_update(update: AgentToolResult) -> None:
        if marker in text(update):
            seen.set()

    task = asyncio.ensure_future(tool.execute("call", {"command": command, **params}, controller.signal, on_update))
    await asyncio.wait_for(seen.wait(), 10)
    return task


async def test_success_merges_stdout_and_stderr_in_order(tmp_path: Path) -> None:
    tool = create_bash_tool(str(tmp_path))
    result = await run(tool, "echo one; echo two >&2; echo three; pwd")
    assert text(result) == f"one\ntwo\nthree\n{tmp_path}\n"
    assert "details" not in result


async def test_no_output_and_closed_stdin(tmp_path: Path) -> None:
    tool = create_bash_tool(str(tmp_path))
    assert text(await run(tool, "true")) == "(no output)"
    assert text(await run(tool, "cat")) == "(no output)"  # stdin is /dev/null, cat ends at once


async def test_exit_codes_and_signals(tmp_path: Path) -> None:
    # Another exit code than 0 is an error result (not a raise), with the structured content.
    tool = create_bash_tool(str(tmp_path))
    result = await run(tool, "echo out; exit 7")
    assert result.get("isError") is True
    assert text(result) == "out\n\n\nCommand exited with code 7"
    structured = result.get("structuredContent")
    assert isinstance(structured, dict)
    assert structured["output"] == "out\n" and structured["exit_code"] == 7 and structured["truncated"] is False
    result = await run(tool, "exit 1")
    assert result.get("isError") is True and text(result) == "(no output)\n\nCommand exited with code 1"
    result = await run(tool, "kill -9 $$")
    assert text(result) == "(no output)\n\nCommand exited with code 137"


async def test_structured_content_of_a_success(tmp_path: Path) -> None:
    tool = create_bash_tool(str(tmp_path))
    result = await run(tool, "printf 'a\\nb'; sleep 0.2")
    assert "isError" not in result
    assert result.get("structuredContent") == {
        "output": "a\nb",
        "truncated": False,
        "exit_code": 0,
        "wall_time_seconds": pytest.approx(0.2, abs=0.15),
    }
    assert list(result["structuredContent"]) == ["output", "truncated", "exit_code", "wall_time_seconds"]  # type: ignore[call-overload]


async def test_structured_output_keeps_head_and_tail_beyond_one_megabyte(tmp_path: Path) -> None:
    tool = create_bash_tool(str(tmp_path))
    result = await run(tool, "head -c 600000 /dev/zero | tr '\\0' a; head -c 600000 /dev/zero | tr '\\0' b")
    structured = result.get("structuredContent")
    assert isinstance(structured, dict)
    output = structured["output"]
    assert isinstance(output, str)
    assert structured["truncated"] is True and structured["full_output_path"] == result["details"]["fullOutputPath"]  # type: ignore[index]
    omitted = 1_200_000 - 1024 * 1024
    assert output == "a" * 524288 + f"\n\n[... {omitted} bytes omitted ...]\n\n" + "b" * 524288


async def test_first_update_has_no_content(tmp_path: Path) -> None:
    updates: list[AgentToolResult] = []
    tool = create_bash_tool(str(tmp_path))
    await tool.execute("call", {"command": "echo hi"}, None, updates.append)
    assert updates[0] == {"content": []}


async def test_missing_working_directory(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    tool = create_bash_tool(str(missing))
    with pytest.raises(ToolError) as info:
        await run(tool, "echo hi")
    assert str(info.value) == f"Working directory does not exist: {missing}\nCannot execute bash commands."


async def test_session_environment_and_agent_bin_on_path(tmp_path: Path, agent_dir: Path) -> None:
    values = {
        "PI_SESSION_ID": "sess-1",
        "PI_SESSION_FILE": "/tmp/s.jsonl",
        "PI_PROVIDER": "openai",
        "PI_MODEL": "gpt-x",
        "PI_REASONING_LEVEL": "high",
    }
    tool = create_bash_tool(str(tmp_path), ToolOptions(env=lambda: values))
    command = 'echo "$PI_SESSION_ID|$PI_SESSION_FILE|$PI_PROVIDER|$PI_MODEL|$PI_REASONING_LEVEL"; echo "$PATH"'
    first, path = text(await run(tool, command)).splitlines()
    assert first == "sess-1|/tmp/s.jsonl|openai|gpt-x|high"
    assert path.split(os.pathsep)[0] == str(agent_dir / "bin")


async def test_prefix_spawn_hook_and_custom_shell(tmp_path: Path) -> None:
    tool = create_bash_tool(str(tmp_path), ToolOptions(shell_command_prefix="GREETING=hello"))
    assert text(await run(tool, 'echo "$GREETING"')) == "hello\n"

    def hook(context: dict[str, Any]) -> Any:
        return {**context, "command": "echo hooked-" + context["command"]}

    tool = create_bash_tool(str(tmp_path), ToolOptions(spawn_hook=hook))
    assert text(await run(tool, "cmd")) == "hooked-cmd\n"
    tool = create_bash_tool(str(tmp_path), ToolOptions(shell_path="/bin/sh"))
    assert text(await run(tool, "echo from-sh")) == "from-sh\n"
    tool = create_bash_tool(str(tmp_path), ToolOptions(shell_path="/no/such/shell", settings_path="/x/settings.json"))
    with pytest.raises(ToolError) as info:
        await run(tool, "true")
    assert str(info.value) == "Custom shell path not found: /no/such/shell\nPlease update shellPath in /x/settings.json"


async def test_streams_updates(tmp_path: Path) -> None:
    tool = create_bash_tool(str(tmp_path))
    updates: list[str] = []
    await tool.execute(
        "call", {"command": "echo first; sleep 0.2; echo second"}, None, lambda u: updates.append(text(u))
    )
    assert updates[0] == ""
    assert updates[1] == "first\n"
    assert updates[-1] == "first\nsecond\n"


async def test_truncation_by_lines_writes_the_full_output(tmp_path: Path) -> None:
    tool = create_bash_tool(str(tmp_path))
    result = await run(tool, "seq 1 3000")
    details = result["details"]
    path = details["fullOutputPath"]
    assert os.path.basename(path).startswith("pi-bash-") and path.endswith(".log")
    assert len(os.path.basename(path)) == len("pi-bash-") + 16 + len(".log")
    # As Pi counts: the final newline ends line 3000, it does not start a line 3001.
    expected_tail = "\n".join(str(n) for n in range(1001, 3001))
    assert text(result) == f"{expected_tail}\n\n[Showing lines 1001-3000 of 3000. Full output: {path}]"
    assert Path(path).read_text() == "".join(f"{n}\n" for n in range(1, 3001))
    assert details["truncation"]["truncatedBy"] == "lines"


async def test_exactly_2000_lines_is_not_truncated(tmp_path: Path) -> None:
    tool = create_bash_tool(str(tmp_path))
    result = await run(tool, "seq 1 2000")  # a final newline adds no line
    assert "details" not in result and text(result).endswith("2000\n")
    result = await run(tool, "seq 1 2000; printf x")  # an unfinished line 2001
    assert text(result).endswith(
        "[Showing lines 2-2001 of 2001. Full output: " + result["details"]["fullOutputPath"] + "]"
    )
    assert result["details"]["truncation"]["totalLines"] == 2001


async def test_truncation_by_bytes_and_partial_last_line(tmp_path: Path) -> None:
    tool = create_bash_tool(str(tmp_path))
    result = await run(tool, "yes \"$(printf '%099d' 0)\" | head -n 1000")
    path = result["details"]["fullOutputPath"]
    # 1000 lines of 100 bytes (the last newline ends line 1000): 512 lines fill 50 KB.
    assert text(result) == "\n".join(["0" * 99] * 512) + (
        f"\n\n[Showing lines 489-1000 of 1000 (50.0KB limit). Full output: {path}]"
    )
    assert os.path.getsize(path) == 100000
    result = await run(tool, "head -c 70000 /dev/zero | tr '\\0' x")
    path = result["details"]["fullOutputPath"]
    assert text(result) == "x" * 51200 + f"\n\n[Showing last 50.0KB of line 1 (line is 68.4KB). Full output: {path}]"
    assert result["details"]["truncation"]["lastLinePartial"] is True


async def test_exactly_50kb_is_not_truncated(tmp_path: Path) -> None:
    tool = create_bash_tool(str(tmp_path))
    result = await run(tool, "head -c 51200 /dev/zero | tr '\\0' x")
    assert text(result) == "x" * 51200 and "details" not in result
    result = await run(tool, "head -c 51201 /dev/zero | tr '\\0' x")
    assert result["details"]["truncation"]["lastLinePartial"] is True


async def test_error_output_is_truncated_too(tmp_path: Path) -> None:
    tool = create_bash_tool(str(tmp_path))
    result = await run(tool, "seq 1 3000; exit 2")
    assert result.get("isError") is True
    assert text(result).endswith(".log]\n\nCommand exited with code 2")
    assert "\n3000\n\n[Showing lines 1001-3000 of 3000. Full output: " in text(result)


async def test_abort_kills_the_whole_process_group(tmp_path: Path, procs: Procs) -> None:
    tool = create_bash_tool(str(tmp_path))
    controller = AbortController()
    a, b = procs.new_arg(), procs.new_arg()
    task = await run_until(tool, f"sleep {a} & sleep {b} & echo started; wait", "started", controller)
    await procs.wait_for(a, b)
    controller.abort()
    with pytest.raises(ToolError) as info:
        await task
    assert str(info.value) == "started\n\n\nCommand aborted"
    assert procs.find(a) == [] and procs.find(b) == []


async def test_abort_before_start(tmp_path: Path) -> None:
    controller = AbortController()
    controller.abort()
    assert (
        await error_of(create_bash_tool(str(tmp_path)).execute("c", {"command": "echo hi"}, controller.signal, None))
        == "Command aborted"
    )


async def test_timeout_kills_children_too(tmp_path: Path, procs: Procs) -> None:
    tool = create_bash_tool(str(tmp_path))
    a = procs.new_arg()
    with pytest.raises(ToolError) as info:
        await run(tool, f"(sleep {a}; echo never) & echo started; wait", timeout=0.3)
    assert str(info.value) == "started\n\n\nCommand timed out after 0.3 seconds"
    assert procs.find(a) == []


async def test_process_that_ignores_sigterm_is_killed(tmp_path: Path, procs: Procs) -> None:
    tool = create_bash_tool(str(tmp_path), ToolOptions(kill_grace=0.1))
    a = procs.new_arg()
    assert (await error_of(run(tool, f"trap '' TERM; echo ready; sleep {a}; true", timeout=0.2))).endswith(
        "Command timed out after 0.2 seconds"
    )
    assert procs.find(a) == []


async def test_shutdown_kills_running_commands(tmp_path: Path, procs: Procs) -> None:
    tool = create_bash_tool(str(tmp_path))
    controller = AbortController()
    a = procs.new_arg()
    task = await run_until(tool, f"sleep {a} & echo started; wait", "started", controller)
    await procs.wait_for(a)
    await asyncio.to_thread(kill_all_tracked_processes, 0.2)
    result = await task
    assert result.get("isError") is True and text(result).endswith("Command exited with code 143")
    assert procs.find(a) == []


async def test_escaped_processes_survive_by_default(tmp_path: Path, procs: Procs) -> None:
    tool = create_bash_tool(str(tmp_path))
    controller = AbortController()
    a = procs.new_arg()
    task = await run_until(tool, f"setsid sleep {a} & echo started; wait", "started", controller)
    await procs.wait_for(a)
    controller.abort()
    assert (await error_of(task)).endswith("Command aborted")
    assert procs.find(a)  # Pi's behaviour: setsid escapes the group kill (the fixture cleans up)


async def test_reap_orphans_kills_escaped_processes_on_abort(tmp_path: Path, procs: Procs) -> None:
    tool = create_bash_tool(str(tmp_path), ToolOptions(reap_orphans=True))
    controller = AbortController()
    a, b = procs.new_arg(), procs.new_arg()
    command = f"setsid sleep {a} & nohup sleep {b} >/dev/null 2>&1 & echo started; wait"
    task = await run_until(tool, command, "started", controller)
    await procs.wait_for(a, b)
    pids = procs.find(a) + procs.find(b)
    controller.abort()
    assert (await error_of(task)).endswith("Command aborted")
    assert procs.find(a) == [] and procs.find(b) == []
    # Not even zombies: the orphans were re-parented to us and reaped.
    assert [pid for pid in pids if Path(f"/proc/{pid}").exists()] == []


async def test_reap_orphans_after_a_successful_double_fork(tmp_path: Path, procs: Procs) -> None:
    tool = create_bash_tool(str(tmp_path), ToolOptions(reap_orphans=True))
    a, b = procs.new_arg(), procs.new_arg()
    command = f"( (sleep {a} >/dev/null 2>&1 &) & ); (setsid sleep {b} >/dev/null 2>&1 &); echo done"
    assert text(await run(tool, command)) == "done\n"
    assert procs.find(a) == [] and procs.find(b) == []


async def test_20mb_of_output_keeps_memory_bounded(tmp_path: Path) -> None:
    tool = create_bash_tool(str(tmp_path))
    page = os.sysconf("SC_PAGE_SIZE")

    def rss() -> int:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * page

    baseline = rss()
    peak = [baseline]
    sizes: list[int] = []

    def on_update(update: AgentToolResult) -> None:
        peak[0] = max(peak[0], rss())
        sizes.append(len(text(update).encode()))

    line = "x" * 49
    result = await tool.execute("call", {"command": f"yes {line} | head -c 20000000"}, None, on_update)
    path = result["details"]["fullOutputPath"]
    assert os.path.getsize(path) == 20_000_000
    assert max(sizes) <= 51200
    print(f"RSS growth while streaming 20 MB: {(peak[0] - baseline) / 1e6:.1f} MB")
    assert peak[0] - baseline < 15 * 1024 * 1024, f"RSS grew by {(peak[0] - baseline) / 1e6:.1f} MB"
    # The window plus a notice that names the log file (whose temp path can be of any length).
    assert len(text(result).encode()) < 51200 + 200 + len(path.encode())


def test_output_collector_counts_lines_as_pi(tmp_path: Path) -> None:
    for chunks, lines in (([], 0), ([b"a"], 1), ([b"a\n"], 1), ([b"a", b"\n"], 1), ([b"a\n", b"b"], 2), ([b"\n\n"], 2)):
        collector = OutputCollector(temp_dir=str(tmp_path))
        for chunk in chunks:
            collector.add(chunk)
        assert collector.total_lines == lines, chunks
        collector.close()


def test_a_truncated_update_names_the_full_output_file(tmp_path: Path) -> None:
    # As Pi's: once an update is cut (here by lines only, 2001 short lines), it points at the
    # whole output, written to the file from then on.
    collector = OutputCollector(temp_dir=str(tmp_path))
    collector.add(b"x\n" * 2000)
    assert collector.snapshot()[1] == {}
    collector.add(b"y\n")
    content, details = collector.snapshot()
    assert details["truncation"]["totalLines"] == 2001 and details["truncation"]["outputLines"] == 2000
    assert content.endswith("x\ny")
    collector.add(b"z\n")
    output = collector.finish()
    assert output["fullOutputPath"] == details["fullOutputPath"]
    assert Path(details["fullOutputPath"]).read_bytes() == b"x\n" * 2000 + b"y\nz\n"


def test_output_collector_keeps_only_a_bounded_window(tmp_path: Path) -> None:
    collector = OutputCollector(temp_dir=str(tmp_path))
    chunk = (b"z" * 99 + b"\n") * 655  # 65500 bytes, like one pipe read
    for _ in range(320):  # ~21 MB
        collector.add(chunk)
    output = collector.finish()
    assert collector.peak_buffered < 2 * 51200 + len(chunk)
    assert collector.total_bytes == 320 * len(chunk)
    assert os.path.getsize(output["fullOutputPath"]) == 320 * len(chunk)
    assert output["text"].endswith(
        f"[Showing lines 209089-209600 of 209600 (50.0KB limit). Full output: {output['fullOutputPath']}]"
    )


class _ScriptedBash:
    def __init__(self, outcome: Exception | ExecResult, output: bytes = b"partial\n") -> None:
        self.outcome = outcome
        self.output = output
        self.calls: list[tuple[str, str, dict[str, str]]] = []

    async def exec(
        self,
        command: str,
        cwd: str,
        *,
        on_data: Callable[[bytes], None],
        signal: AbortSignal | None,
        timeout: float | None,
        env: dict[str, str],
    ) -> ExecResult:
        self.calls.append((command, cwd, env))
        on_data(self.output)
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


async def test_custom_operations_report_outcomes_through_the_same_texts(tmp_path: Path) -> None:
    cases: list[tuple[Exception | ExecResult, str]] = [
        (Exception("aborted"), "partial\n\n\nCommand aborted"),
        (Exception("timeout:5"), "partial\n\n\nCommand timed out after 5 seconds"),
        (ExecResult(None), "partial\n\n\nCommand terminated without an exit code"),
        (RuntimeError("ssh: connection refused"), "ssh: connection refused"),
    ]
    for outcome, message in cases:
        ops = _ScriptedBash(outcome)
        tool = create_bash_tool("/remote/dir", ToolOptions(bash_operations=ops))
        with pytest.raises(Exception) as info:
            await run(tool, "make")
        assert str(info.value) == message
        assert ops.calls[0][:2] == ("make", "/remote/dir")
    ops = _ScriptedBash(ExecResult(0), b"remote ok\n")
    tool = create_bash_tool("/remote/dir", ToolOptions(bash_operations=ops))
    assert text(await run(tool, "make")) == "remote ok\n"


async def test_user_bash_execution(tmp_path: Path) -> None:
    deltas: list[str] = []
    result = await execute_bash(
        "printf '\\033[31mred\\033[0m\\r\\n'; echo plain; exit 2", str(tmp_path), on_data=deltas.append
    )
    assert result == {"output": "red\nplain\n", "exitCode": 2, "cancelled": False, "truncated": False}
    assert "".join(deltas) == "red\nplain\n"
    result = await execute_bash("seq 1 3000", str(tmp_path))
    assert result["truncated"] is True and result["exitCode"] == 0
    assert result["output"].startswith("1001\n") and result["output"].endswith("\n3000")
    assert "Showing" not in result["output"]
    assert Path(result["fullOutputPath"]).read_text().startswith("1\n2\n")


async def test_user_bash_cancellation(tmp_path: Path, procs: Procs) -> None:
    controller = AbortController()
    started = asyncio.Event()
    a = procs.new_arg()

    def on_data(chunk: str) -> None:
        if "started" in chunk:
            started.set()

    task = asyncio.ensure_future(
        execute_bash(f"sleep {a} & echo started; wait", str(tmp_path), signal=controller.signal, on_data=on_data)
    )
    await asyncio.wait_for(started.wait(), 10)
    controller.abort()
    result = await task
    assert result == {"output": "started\n", "exitCode": None, "cancelled": True, "truncated": False}
    assert procs.find(a) == []
