"""The bug report of ``/bug``: content, scrubbing of credentials, and the file it is written to."""

from __future__ import annotations

import json
import platform
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pi_harness.__about__ import __version__
from pi_harness.cli.crash_log import record_crash
from pi_harness.coding.bug_report import (
    REDACTED,
    BugReportInputs,
    Scrubber,
    build_bug_report,
    collect_secrets,
    create_bug_report,
    read_settings_file,
    settings_keys,
    terminal_info,
    write_bug_report,
)
from pi_harness.coding.bug_report.excerpt import transcript_excerpt
from pi_harness.coding.crash_records import recent_crashes

NOW = datetime(2026, 5, 10, 12, 0, tzinfo=UTC)
AUTH_KEY = "auth-json-key-4f1c9a7e2b"
OAUTH_REFRESH = "oauth-refresh-7d3e1f0a9c"
MODELS_KEY = "models-json-key-93b2c1d0"
MODELS_HEADER = "header-value-5a6b7c8d9e"
REFERENCED = "referenced-by-dollar-name-1a2b"
ENV_API_KEY = "env-api-key-0a9b8c7d6e"
ENV_TOKEN = "env-token-11aa22bb33"
ENV_SECRET = "env-secret-44cc55dd66"
BEARER_LOOKING = "sk-proj-Zx81Qw72Er63Ty54Ui45"
ALL_SECRETS = (AUTH_KEY, OAUTH_REFRESH, MODELS_KEY, MODELS_HEADER, REFERENCED, ENV_API_KEY, ENV_TOKEN, ENV_SECRET,
               BEARER_LOOKING)  # fmt: skip
ENV = {
    "SOME_SERVICE_API_KEY": ENV_API_KEY,
    "DEPLOY_TOKEN": ENV_TOKEN,
    "APP_SECRET": ENV_SECRET,
    "CUSTOM_REFERENCE": REFERENCED,
    "TERM": "xterm-256color",
    "LANG": "C.UTF-8",
}


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def _assistant(text: str, **extra: Any) -> dict[str, Any]:
    message = {"role": "assistant", "content": [{"type": "text", "text": text}], "provider": "fake",
               "model": "fake-model", "stopReason": "stop", "timestamp": 2}  # fmt: skip
    return {**message, **extra}


def _write_credentials(agent_dir: Path) -> None:
    (agent_dir / "auth.json").write_text(json.dumps({
        "anthropic": {"type": "api_key", "key": AUTH_KEY},
        "openai-codex": {"type": "oauth", "access": "oauth-access-0f9e8d7c6b", "refresh": OAUTH_REFRESH,
                         "expires": 1},
    }))  # fmt: skip
    (agent_dir / "models.json").write_text(json.dumps({"providers": {
        "local": {"baseUrl": "http://127.0.0.1:1/v1", "apiKey": MODELS_KEY, "headers": {"X-Org": MODELS_HEADER},
                  "models": [{"id": "m"}]},
        "other": {"apiKey": "$CUSTOM_REFERENCE"},
    }}))  # fmt: skip


def _leaky_transcript() -> list[dict[str, Any]]:
    tool_call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": f"echo {ENV_TOKEN}"}}
    found = {"type": "text", "text": f"Found {ENV_API_KEY} in the environment"}
    output = {"type": "text", "text": f"{ENV_TOKEN}\n{ENV_SECRET} {REFERENCED} {OAUTH_REFRESH}"}
    return [
        _user(f"my keys are {AUTH_KEY}, {MODELS_KEY} and {BEARER_LOOKING}; header {MODELS_HEADER}"),
        _assistant("I will look.", content=[found, tool_call]),
        {"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "isError": False, "timestamp": 3,
         "content": [output]},
    ]  # fmt: skip


def test_configured_credentials_and_key_shapes_never_reach_the_report(agent_dir: Path) -> None:
    _write_credentials(agent_dir)
    inputs = BugReportInputs(
        description=f"it printed {AUTH_KEY} and {ENV_TOKEN}",
        messages=_leaky_transcript(),
        transcript=_leaky_transcript(),
        extensions=[f"/ext/{ENV_SECRET}.py"],
        created=NOW,
    )
    path = create_bug_report(inputs, agent_dir, env=ENV)
    text = path.read_text()
    leaked = [secret for secret in ALL_SECRETS if secret in text]
    assert leaked == []
    assert text.count(REDACTED) >= len(ALL_SECRETS)
    assert "my keys are [redacted], [redacted] and [redacted]" in text
    assert "[tool call bash]" in text and "Found [redacted] in the environment" in text


def test_collect_secrets_reads_auth_models_and_credential_like_variables(agent_dir: Path) -> None:
    _write_credentials(agent_dir)
    secrets = collect_secrets(auth_file=agent_dir / "auth.json", models_file=agent_dir / "models.json", env=ENV)
    for secret in (AUTH_KEY, OAUTH_REFRESH, MODELS_KEY, MODELS_HEADER, REFERENCED, ENV_API_KEY, ENV_TOKEN, ENV_SECRET):
        assert secret in secrets
    assert "xterm-256color" not in secrets and "C.UTF-8" not in secrets  # ordinary variables stay
    assert "api_key" not in secrets  # a credential's type is not a secret


def test_missing_or_damaged_credential_files_yield_only_the_environment(agent_dir: Path) -> None:
    (agent_dir / "auth.json").write_text("{broken")
    secrets = collect_secrets(auth_file=agent_dir / "auth.json", models_file=agent_dir / "absent.json", env=ENV)
    assert sorted(secrets) == sorted([ENV_API_KEY, ENV_TOKEN, ENV_SECRET])


def test_scrubber_removes_credential_shapes_and_keeps_ordinary_text() -> None:
    scrub = Scrubber()
    samples = {
        "Authorization: Bearer abcdef1234567890": "Authorization: Bearer [redacted]",
        "token=abcdefgh12345678 next": "token=[redacted] next",
        '"apiKey": "lit3ral-v4lue-xyz"': '"apiKey": "[redacted]"',
        "https://host/v1?key=AIzaSomething&x=1": "https://host/v1?key=[redacted]&x=1",
        "https://user:hunter22@example.com/": "https://user:[redacted]@example.com/",
        "ghp_abcdefghijklmnopqrstuvwxyz0123": "[redacted]",
    }
    for raw, expected in samples.items():
        assert scrub(raw) == expected
    ordinary = "maxTokens: 4096, 12 tokens used, see sk-short and the token budget"
    assert scrub(ordinary) == ordinary


def test_a_secret_cut_by_the_message_limit_is_removed_whole() -> None:
    secret = "abcdefghij0123456789-not-a-known-shape"
    message = _user("x" * 90 + secret)
    [*_, body, _fence, _blank] = transcript_excerpt([message], Scrubber([secret]), max_chars=100)
    assert secret[:10] not in body  # it was scrubbed before the cut, not cut into an unmatched half
    assert body.startswith("x" * 90 + REDACTED[:10])


def test_excerpt_has_the_last_messages_each_cut(agent_dir: Path) -> None:
    messages = [_user(f"message number {i} " + "y" * 300) for i in range(30)]
    messages.append(_assistant("", stopReason="error", errorMessage="429 rate limited"))
    text = build_bug_report(
        BugReportInputs(messages=messages, transcript=messages, excerpt_messages=5, max_message_chars=100, created=NOW),
        Scrubber(),
    )
    assert "message number 25 " not in text and "message number 26 " in text
    assert "#### 31. assistant (fake/fake-model, error)" in text
    assert "more characters]" in text
    assert "- fake/fake-model: 429 rate limited" in text  # failed responses are listed with or without it


def test_left_out_transcript_keeps_the_conversation_out(agent_dir: Path) -> None:
    messages = [_user("private question about the merger")]
    text = build_bug_report(BugReportInputs(messages=messages, transcript=None, created=NOW), Scrubber())
    assert "private question" not in text
    assert "Left out by the user." in text


def test_settings_appear_as_keys_without_values(agent_dir: Path, tmp_path: Path) -> None:
    settings = {"defaultProvider": "secretive-provider", "compaction": {"enabled": False, "keepRecentTokens": 12345},
                "packages": ["npm:some-private-package"], "theme": {}}  # fmt: skip
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(settings))
    loaded = read_settings_file(path)
    assert loaded == settings
    assert settings_keys(settings) == ["defaultProvider", "compaction.enabled", "compaction.keepRecentTokens",
                                       "packages", "theme"]  # fmt: skip
    text = build_bug_report(
        BugReportInputs(global_settings=loaded, project_settings=None, project_trusted=False, created=NOW), Scrubber()
    )
    assert "`compaction.keepRecentTokens`" in text
    for value in ("secretive-provider", "12345", "some-private-package"):
        assert value not in text
    assert "Project .pi/settings.json: no settings file (project not trusted: not loaded)" in text
    assert read_settings_file(tmp_path / "missing.json") is None


TERMINAL_ENV = {
    "TERM": "screen-256color",
    "TMUX": "/tmp/t,1,0",
    "TERM_PROGRAM": "WezTerm",
    "TERM_PROGRAM_VERSION": "2024",
}


def test_environment_model_terminal_description_and_extensions() -> None:
    inputs = BugReportInputs(
        description="The footer flickers after /resume",
        model="fake/fake-model",
        thinking_level="high",
        terminal=terminal_info(TERMINAL_ENV, (100, 30)),
        extensions=["builtin:mcp", "/home/u/.pi/agent/extensions/mine.py"],
        extension_errors=["/x/broken.py: SyntaxError"],
        created=NOW,
    )
    text = build_bug_report(inputs, Scrubber())
    assert "The footer flickers after /resume" in text
    assert f"- pi-harness: {__version__}" in text
    assert f"- Python: {platform.python_version()} ({platform.python_implementation()})" in text
    assert "- Model: fake/fake-model, thinking high" in text
    assert "TERM=screen-256color, 100x30, program WezTerm 2024, inside tmux" in text
    assert "- builtin:mcp" in text and "- failed: /x/broken.py: SyntaxError" in text
    assert "Written 2026-05-10 12:00:00 UTC" in text and "no upload service" in text


def _boom(message: str) -> ValueError:
    try:
        raise ValueError(message)
    except ValueError as error:
        return error


def test_the_newest_crashes_are_summarised(agent_dir: Path) -> None:
    for i in range(5):
        record_crash(_boom(f"crash {i}\ndetails"), now=NOW + timedelta(minutes=i))
    crashes = recent_crashes(agent_dir, limit=3)
    assert [c.error for c in crashes] == ["ValueError: crash 4", "ValueError: crash 3", "ValueError: crash 2"]
    assert crashes[0].stack_tail.splitlines()[-2:] == ["ValueError: crash 4", "details"]
    text = build_bug_report(BugReportInputs(crashes=crashes, created=NOW), Scrubber())
    assert "ValueError: crash 4" in text and "raise ValueError(message)" in text
    assert "ValueError: crash 1" not in text
    assert recent_crashes(agent_dir / "nowhere") == []


def test_the_report_file_is_private_and_never_overwritten(agent_dir: Path) -> None:
    (agent_dir / "bug-reports").mkdir(mode=0o755)
    first = write_bug_report("one\n", agent_dir, now=NOW)
    second = write_bug_report("two\n", agent_dir, now=NOW)
    assert first == agent_dir / "bug-reports" / "bug-20260510-120000.md"
    assert second != first and second.parent == first.parent
    assert (first.read_text(), second.read_text()) == ("one\n", "two\n")
    assert stat.S_IMODE(first.stat().st_mode) == 0o600
    assert stat.S_IMODE(first.parent.stat().st_mode) == 0o700
