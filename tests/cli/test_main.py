"""End-to-end checks of ``pi`` on the paths that finish before a session starts."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from _cli_helpers import RunPi

from pi_harness.__about__ import __version__
from pi_harness.cli.flags import FLAGS
from pi_harness.cli.help import format_help
from pi_harness.cli.main import setup_process

FORBIDDEN_PREFIXES = (
    "pi_harness.ai.providers",
    "pi_harness.tui",
    "pi_harness.coding.session_store",
    "prompt_toolkit",
    "rich",
    "httpx2",
    "httpx",
    "asyncio",  # imported by the session and --list-models paths only (cli/lazy_ssl.py)
    "ssl",
)


@pytest.mark.parametrize("flag", ["--version", "-v"])
def test_version(run_pi: RunPi, flag: str) -> None:
    result = run_pi(flag)
    assert result.returncode == 0
    assert result.stdout == f"{__version__}\n"
    assert result.stderr == ""


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_lists_every_flag(run_pi: RunPi, flag: str) -> None:
    result = run_pi(flag)
    assert result.returncode == 0
    assert result.stdout.startswith("pi - ")
    for spec in FLAGS:
        assert f"--{spec.long}" in result.stdout
        if spec.short:
            assert f"--{spec.long}, -{spec.short}" in result.stdout
    assert "pi auth check" in result.stdout


def test_help_shows_extension_flags() -> None:
    class Flag:
        def __init__(self, name: str, type: str, description: str | None) -> None:
            self.name, self.type, self.description = name, type, description

    text = format_help("1.0", [Flag("plan", "boolean", "Start in plan mode"), Flag("out", "string", None)])
    assert "Extension flags:" in text
    assert "--plan" in text and "Start in plan mode" in text
    assert "--out <value>" in text


@pytest.mark.parametrize("module", ["pi_harness", "pi_harness.cli.main"])
def test_python_dash_m_entry_points(run_python: RunPi, module: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", module, "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0
    assert result.stdout.strip() == __version__


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_import_nothing_heavy(run_python: RunPi, flag: str) -> None:
    code = (
        "import sys, io, contextlib\n"
        "from pi_harness.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main([{flag!r}])\n"
        "print(code)\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "0"
    loaded = [name for name in lines[1:] if name.startswith(FORBIDDEN_PREFIXES)]
    assert loaded == []


def test_importtime_of_version(run_python: RunPi) -> None:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pi_harness.cli.main", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0
    imported = [line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if "|" in line]
    assert "pi_harness.cli.timing" in imported  # the measurement itself works
    assert [name for name in imported if name.startswith(FORBIDDEN_PREFIXES)] == []
    assert not any(name.startswith("pi_harness.ai") for name in imported)


def test_argument_errors_exit_1_and_warnings_are_printed(run_pi: RunPi) -> None:
    result = run_pi("-x", "--version")
    assert result.returncode == 1
    assert result.stderr == "Error: Unknown option: -x\n"
    assert result.stdout == ""

    result = run_pi("--thinking", "huge", "--version")
    assert result.returncode == 0
    assert result.stderr.startswith('Warning: Invalid thinking level "huge".')
    assert result.stdout == f"{__version__}\n"


def test_rpc_with_file_arguments_is_an_error(run_pi: RunPi) -> None:
    result = run_pi("--mode", "rpc", "@notes.md")
    assert result.returncode == 1
    assert result.stderr == "Error: @file arguments are not supported in RPC mode\n"


@pytest.mark.parametrize(
    ("command", "usage"),
    [("install", "install"), ("remove", "remove"), ("uninstall", "remove"), ("update", "update"), ("list", "list")],
)
def test_package_commands_are_dispatched(run_pi: RunPi, command: str, usage: str) -> None:
    result = run_pi(command, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Usage:\n  pi {usage} ")


def test_setup_process_sets_markers_and_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    # setenv first so that monkeypatch restores (removes) the values after the test
    for name in ("PI_CODING_AGENT", "AI_AGENT", "PI_OFFLINE", "PI_SKIP_VERSION_CHECK"):
        monkeypatch.setenv(name, "unset")
    monkeypatch.delenv("PI_OFFLINE")
    monkeypatch.delenv("PI_SKIP_VERSION_CHECK")
    setup_process(["-p", "hi"], quiet_warnings=False)
    assert os.environ["PI_CODING_AGENT"] == "true"
    assert os.environ["AI_AGENT"] == "pi"
    assert "PI_OFFLINE" not in os.environ

    setup_process(["--", "--offline"], quiet_warnings=False)  # after "--" it is a message
    assert "PI_OFFLINE" not in os.environ

    setup_process(["--offline"], quiet_warnings=False)
    assert os.environ["PI_OFFLINE"] == "1" and os.environ["PI_SKIP_VERSION_CHECK"] == "1"


@pytest.mark.parametrize("value", ["1", "true", "YES"])
def test_offline_environment_is_normalised(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("PI_CODING_AGENT", "x")
    monkeypatch.setenv("AI_AGENT", "x")
    monkeypatch.setenv("PI_OFFLINE", value)
    monkeypatch.setenv("PI_SKIP_VERSION_CHECK", "0")
    setup_process([], quiet_warnings=False)
    assert os.environ["PI_OFFLINE"] == "1" and os.environ["PI_SKIP_VERSION_CHECK"] == "1"


def test_a_reader_that_goes_away_ends_the_command_with_1() -> None:
    from _cli_helpers import PI

    process = subprocess.Popen([str(PI), "config"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    assert process.wait(timeout=60) == 1
    stderr = process.stderr.read().decode()
    process.stderr.close()
    assert "Traceback" not in stderr and "crashed" not in stderr
