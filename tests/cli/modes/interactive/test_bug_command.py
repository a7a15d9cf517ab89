"""``/bug [description]``: the crash notice points at it, and it writes a scrubbed local report."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pi_harness.cli.crash_log import record_crash
from pi_harness.cli.modes.interactive.cmd_bug import INCLUDE
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

from .harness import run_pi

AUTH_KEY = "stored-in-auth-json-8c2f4e6a"
ENV_TOKEN = "exported-token-3b5d7f9a1c"
SHAPED_KEY = "sk-ant-Qm4Rt7Yu2Io9Pa3Sd6Fg"
QUESTION = f"Why does {AUTH_KEY} fail? The token {ENV_TOKEN} and {SHAPED_KEY} too"
QUESTION_MARKER = "Why does"


def _answer(text: str) -> ScriptedResponse:
    return ScriptedResponse(steps=[TextStep(text)])


def _reports(agent_dir: Path) -> list[Path]:
    return sorted((agent_dir / "bug-reports").glob("bug-*.md"))


@pytest.fixture
def credentials(agent_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (agent_dir / "auth.json").write_text(json.dumps({"anthropic": {"type": "api_key", "key": AUTH_KEY}}))
    monkeypatch.setenv("SOME_DEPLOY_TOKEN", ENV_TOKEN)


async def test_bug_writes_a_report_with_the_scrubbed_excerpt(
    server: FakeLLMServer, project: Path, agent_dir: Path, credentials: None
) -> None:
    server.push(_answer("Let me check that."))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit(QUESTION)
        await pi.wait_for(lambda: "Let me check that." in pi.scrollback(), "the answer")
        await pi.idle()
        await pi.submit("/bug the answer was wrong")
        await pi.wait_for(lambda: pi.screen_has("messages of this session to the bug report?"), "the question")
        assert INCLUDE in pi.selected_row()
        await pi.press("enter")
        await pi.wait_for(lambda: pi.scrollback_has("Bug report written to"), "the report notice")
        [report] = _reports(agent_dir)
        assert pi.scrollback_has(str(report))
    text = report.read_text()
    assert "the answer was wrong" in text
    assert QUESTION_MARKER in text and "Let me check that." in text
    assert AUTH_KEY not in text and ENV_TOKEN not in text and SHAPED_KEY not in text
    assert "test-key" not in text  # the fake provider's apiKey in models.json
    assert "[redacted]" in text
    assert "- Model: fake/fake-model" in text
    assert "`retry.baseDelayMs`" in text and "`defaultModel`" in text
    assert "TERM=" in text and "120x40" in text


async def test_bug_without_the_transcript_and_cancelled(
    server: FakeLLMServer, project: Path, agent_dir: Path, credentials: None
) -> None:
    server.push(_answer("Noted."))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit(QUESTION)
        await pi.wait_for(lambda: "Noted." in pi.scrollback(), "the answer")
        await pi.idle()
        await pi.submit("/bug")
        await pi.wait_for(lambda: pi.screen_has("messages of this session to the bug report?"), "the question")
        await pi.press("escape")
        await pi.wait_for(lambda: pi.scrollback_has("Bug report cancelled"), "the cancel notice")
        assert not (agent_dir / "bug-reports").exists()
        await pi.submit("/bug")
        await pi.wait_for(lambda: pi.screen_has("messages of this session to the bug report?"), "the question again")
        await pi.press("down", "enter")  # No, leave the conversation out
        await pi.wait_for(lambda: pi.scrollback_has("Bug report written to"), "the report notice")
    [report] = _reports(agent_dir)
    text = report.read_text()
    assert QUESTION_MARKER not in text and "Noted." not in text
    assert "Left out by the user." in text and "(none given)" in text


async def test_crash_notice_names_the_record_and_bug_includes_it(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    try:
        raise RuntimeError("the renderer fell over")
    except RuntimeError as error:
        record_crash(error, now=datetime.now(UTC))
    async with run_pi() as pi:
        await pi.started()
        await pi.wait_for(lambda: pi.scrollback_has("RuntimeError: the renderer fell over"), "the crash notice")
        assert pi.scrollback_has(f"The crash record is in {agent_dir / 'crashes.json'}")
        assert pi.scrollback_has("run /bug in the interactive mode to write a bug report")
        await pi.submit("/bug")  # an empty session: nothing to ask
        await pi.wait_for(lambda: pi.scrollback_has("Bug report written to"), "the report notice")
    [report] = _reports(agent_dir)
    text = report.read_text()
    assert "RuntimeError: the renderer fell over" in text
    assert "The session has no messages." in text
