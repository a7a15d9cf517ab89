"""Print mode and startup exit codes, run as a user would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _pi_env import PiEnv

from pi_harness.testing.fake_llm import HTTPErrorSpec, ScriptedResponse, TextStep

ABORTING_EXTENSION = """
def extension(pi):
    async def on_update(event, ctx):
        ctx.abort()

    pi.on("message_update", on_update)
"""


def test_two_messages_run_one_after_another_and_only_the_last_answer_is_printed(pi_env: PiEnv) -> None:
    pi_env.server.push(
        ScriptedResponse(steps=[TextStep("first answer")]),
        ScriptedResponse(steps=[TextStep("second answer")]),
    )
    result = pi_env.run("-p", "one", "two")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "second answer\n"
    assert len(pi_env.server.requests) == 2
    second = json.dumps(pi_env.server.requests[1].json["messages"])
    assert "one" in second and "first answer" in second and "two" in second


def test_a_stream_error_goes_to_stderr_with_exit_1(pi_env: PiEnv) -> None:
    pi_env.server.push(
        ScriptedResponse(steps=[TextStep("partial")], stream_error=HTTPErrorSpec(400, "context blew up", "bad"))
    )
    result = pi_env.run("-p", "hi")
    assert result.returncode == 1
    assert "context blew up" in result.stderr
    assert result.stdout == ""


def test_an_aborted_answer_exits_1_with_request_aborted(pi_env: PiEnv) -> None:
    extension = pi_env.cwd / "abort_ext.py"
    extension.write_text(ABORTING_EXTENSION)
    pi_env.server.push(ScriptedResponse(steps=[TextStep("a long answer " * 20, chunks=20)], chunk_delay_ms=20))
    result = pi_env.run("-e", str(extension), "-p", "hi")
    assert result.returncode == 1
    assert "abort" in result.stderr.lower()
    assert pi_env.server.cancelled_streams == 1
    assert result.stdout == ""


def test_length_stop_is_a_failure(pi_env: PiEnv) -> None:
    # The whole output budget was used: a real truncation, not a context overflow to recover from.
    pi_env.server.push(
        ScriptedResponse(steps=[TextStep("cut off mid")], stop_reason="length", usage={"input": 10, "output": 4096})
    )
    result = pi_env.run("-p", "hi")
    assert result.returncode == 1
    assert result.stderr == "Request length: the response hit the output token limit\n"
    assert result.stdout == "cut off mid\n"  # the partial answer is still printed (docs/json-mode.md)
    assert len(pi_env.server.requests) == 1


@pytest.mark.parametrize("mode", [["-p"], ["--mode", "json"]])
def test_a_prompt_that_raises_exits_1(pi_env: PiEnv, mode: list[str]) -> None:
    # A built-in provider without credentials: the prompt call itself fails, before any request.
    result = pi_env.run("--provider", "anthropic", "--model", "claude-sonnet-4-5", *mode, "hi")
    assert result.returncode == 1
    assert "No API key found for anthropic" in result.stderr
    assert pi_env.server.requests == []


def test_no_model_at_all(pi_env: PiEnv) -> None:
    (pi_env.agent_dir / "models.json").unlink()
    (pi_env.agent_dir / "settings.json").unlink()
    result = pi_env.run("-p", "hi")
    assert result.returncode == 1
    assert result.stderr.startswith("No models available.")


@pytest.mark.parametrize("mode", ["text", "json"])
def test_no_model_and_nothing_to_send_ends_well(pi_env: PiEnv, mode: str) -> None:
    # As Pi 1.4.0: a model is needed only for a prompt; ``pi -p`` with empty stdin sends none.
    (pi_env.agent_dir / "models.json").unlink()
    (pi_env.agent_dir / "settings.json").unlink()
    result = pi_env.run("--mode", mode, "-p")
    assert (result.returncode, result.stderr) == (0, "")
    if mode == "json":
        assert json.loads(result.stdout)["type"] == "session"  # the header, and nothing else
    else:
        assert result.stdout == ""
    assert pi_env.run("--mode", mode, "-p", input="hi\n").returncode == 1  # piped text is a prompt


def test_api_key_needs_a_model(pi_env: PiEnv) -> None:
    result = pi_env.run("--api-key", "sk-x", "-p", "hi")
    assert result.returncode == 1
    assert "--api-key requires a model to be specified via --model, --provider/--model, or --models" in result.stderr


def test_api_key_with_a_model_is_used_for_the_request(pi_env: PiEnv) -> None:
    pi_env.server.push(ScriptedResponse(steps=[TextStep("ok")]))
    result = pi_env.run("--model", "fake/fake-model", "--api-key", "sk-runtime", "-p", "hi")
    assert result.returncode == 0, result.stderr
    assert pi_env.server.requests[0].headers["authorization"] == "Bearer sk-runtime"


def test_unknown_session(pi_env: PiEnv) -> None:
    result = pi_env.run("--session", "nosuchsession", "-p", "hi")
    assert result.returncode == 1
    assert "No session found matching 'nosuchsession'" in result.stderr


def test_unknown_model(pi_env: PiEnv) -> None:
    result = pi_env.run("--model", "no-such-model-anywhere", "-p", "hi")
    assert result.returncode == 1
    assert "no-such-model-anywhere" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--no-such-flag", "-p", "hi"], "Unknown option: --no-such-flag"),
        (["-Q", "-p", "hi"], "Unknown option: -Q"),
        (["--mode", "xml", "-p", "hi"], 'Invalid mode "xml". Valid values: text, json, rpc'),
        (["-p", "hi", "--model"], "Missing value for --model"),
        (["--fork", "abc", "--no-session", "-p", "hi"], "--fork cannot be combined with --no-session"),
        (["--session-id", "abc", "--continue", "-p", "hi"], "--session-id cannot be combined with --continue"),
        (["--mode", "rpc", "@notes.txt"], "@file arguments are not supported in RPC mode"),
        (["-p", "@missing.txt"], "File not found"),
    ],
)
def test_argument_errors_exit_1(pi_env: PiEnv, args: list[str], message: str) -> None:
    result = pi_env.run(*args)
    assert result.returncode == 1
    assert message in result.stderr
    assert result.stdout == ""
    assert pi_env.server.requests == []


def test_version_and_help(pi_env: PiEnv) -> None:
    version = pi_env.run("--version")
    assert version.returncode == 0 and version.stdout.strip()
    help_text = pi_env.run("--help")
    assert help_text.returncode == 0 and "--mode" in help_text.stdout


def test_export_writes_html(pi_env: PiEnv) -> None:
    pi_env.server.push(ScriptedResponse(steps=[TextStep("An answer worth keeping.")]))
    assert pi_env.run("-p", "Remember this").returncode == 0
    [session_file] = pi_env.sessions()
    target = pi_env.cwd / "out" / "session.html"
    result = pi_env.run("--export", str(session_file), str(target))
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"Exported to: {target}\n"
    page = target.read_text()
    assert "Remember this" in page and "An answer worth keeping." in page


def test_export_of_a_missing_file_fails(pi_env: PiEnv, tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    result = pi_env.run("--export", str(missing))
    assert result.returncode == 1
    assert result.stderr.startswith("Error: ")
    assert str(missing) in result.stderr
    assert list(pi_env.cwd.glob("*.html")) == []
