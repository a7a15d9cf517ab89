"""The early first request of ``pi -p`` (``cli/early_request``, ``pi_harness/early_exchange.py``),
over real ``pi`` processes and the loopback fake LLM server.

A run records its first request in ``<agentDir>/cache/early-requests``; a later run of the same
command in the same place sends it before its session has loaded, and its session adopts that
connection only when its own request is byte for byte the same. What the server answers is
always the session's own request, whatever the record says.
"""

from __future__ import annotations

import json
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from _cli_helpers import PI
from _early_world import KEY, World, echo, last_user_text, make_world

from pi_harness.testing.fake_llm import FakeLLMServer


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with FakeLLMServer(default=echo) as server:
        yield make_world(tmp_path / "w", server)


def test_a_repeated_command_sends_its_recorded_request_ahead_and_the_session_adopts_it(world: World) -> None:
    first = world.pi("-p", "first question")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "answer to first question"
    [path] = world.records()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    world.run_until_recorded("-p", "warm-up")
    adopted_before = world.record()["adopted"]
    assert isinstance(adopted_before, int)

    for prompt in ("second question", "third question"):
        world.server.clear()
        result = world.pi("-p", prompt)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == f"answer to {prompt}"
        # One request per run: the one sent ahead was the session's own, not a second one.
        assert [last_user_text(r) for r in world.server.requests] == [prompt]
    record = world.record()
    assert record["adopted"] == adopted_before + 2
    assert record["disabled"] is False


def test_the_adopted_request_is_the_bytes_the_session_sends_without_it(world: World) -> None:
    world.run_until_recorded("-p", "warm-up")
    assert world.pi("-p", "same words").returncode == 0
    assert world.record()["adopted"] == 1
    ahead = world.server.requests[-1]
    world.server.clear()
    assert world.pi("-p", "same words", PI_EARLY_REQUEST="0").returncode == 0
    [plain] = world.server.requests
    assert ahead.raw_body == plain.raw_body
    assert ahead.headers == plain.headers


def test_a_changed_project_file_is_not_answered_by_the_old_request(world: World) -> None:
    world.run_until_recorded("-p", "warm-up")
    (world.project / "AGENTS.md").write_text("Always answer in haiku.\n")
    result = world.pi("-p", "with context")
    assert result.returncode == 0, result.stderr
    [request] = world.server.requests
    assert "Always answer in haiku." in request.raw_body.decode()
    assert world.record().get("adopted") == 0  # recorded anew for the new state of the project


def test_a_changed_setting_is_not_answered_by_the_old_request(world: World) -> None:
    world.run_until_recorded("-p", "warm-up")
    settings = {"defaultProvider": "fake", "defaultModel": "fake-model", "defaultThinkingLevel": "off"}
    (world.agent / "settings.json").write_text(json.dumps(settings) + "\n")
    assert world.pi("-p", "after the change").returncode == 0
    assert len(world.server.requests) == 1
    assert world.record().get("adopted") == 0


def test_a_record_that_no_longer_matches_is_answered_by_the_session_and_then_disabled(world: World) -> None:
    world.run_until_recorded("-p", "warm-up")
    record = world.record()
    body = record["body"]
    assert isinstance(body, list) and "expert" in body[0]
    world.write_record({**record, "body": [body[0].replace("expert", "TAMPERED"), body[1]]})

    result = world.pi("-p", "after tampering")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "answer to after tampering"  # never the tampered request's answer
    honest = [r for r in world.server.requests if b"TAMPERED" not in r.raw_body]
    assert len(honest) == 1
    assert world.record()["disabled"] is True

    world.server.clear()
    assert world.pi("-p", "once more").stdout.strip() == "answer to once more"
    [request] = world.server.requests  # a disabled record sends nothing ahead
    assert b"TAMPERED" not in request.raw_body


def test_a_key_from_the_environment_is_never_written_into_the_record(tmp_path: Path) -> None:
    with FakeLLMServer(default=echo) as server:
        world = make_world(tmp_path / "w", server, api_key="$PI_TEST_EARLY_KEY")
        secret = "sk-early-secret-0123456789"
        world.env["PI_TEST_EARLY_KEY"] = secret
        world.run_until_recorded("-p", "warm-up")
        assert world.pi("-p", "keyed").returncode == 0
        assert world.record()["adopted"] == 1
        assert server.requests[-1].headers["authorization"] == f"Bearer {secret}"
        [path] = world.records()
        assert secret.encode() not in path.read_bytes()

        server.clear()
        world.env["PI_TEST_EARLY_KEY"] = "sk-another-secret-9876543210"
        assert world.pi("-p", "rekeyed").returncode == 0
        [request] = server.requests
        assert request.headers["authorization"] == "Bearer sk-another-secret-9876543210"


def test_a_key_from_models_json_is_read_there_again_not_copied(world: World) -> None:
    world.run_until_recorded("-p", "warm-up")
    [path] = world.records()
    assert KEY.encode() not in path.read_bytes()
    assert world.pi("-p", "keyed").returncode == 0
    assert world.record()["adopted"] == 1
    assert world.server.requests[-1].headers["authorization"] == f"Bearer {KEY}"


def test_json_mode_is_recorded_and_sent_ahead_too(world: World) -> None:
    world.run_until_recorded("--mode", "json", "warm-up")
    result = world.pi("--mode", "json", "in json")
    assert result.returncode == 0, result.stderr
    assert world.record()["adopted"] == 1
    assert [last_user_text(r) for r in world.server.requests] == ["in json"]
    assert '"answer to in json"' in result.stdout or "answer to in json" in result.stdout


def test_switched_off_nothing_is_recorded(world: World) -> None:
    for _ in range(2):
        assert world.pi("-p", "plain", PI_EARLY_REQUEST="0").returncode == 0
    assert world.records() == []


def test_piped_input_and_rpc_mode_record_nothing(world: World) -> None:
    piped = subprocess.run(
        [str(PI), "-p", "with piped input"],
        cwd=world.project,
        env=world.env,
        input="more text",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert piped.returncode == 0, piped.stderr
    rpc = world.pi("--mode", "rpc", "ignored", stdin=subprocess.DEVNULL)
    assert rpc.returncode == 0, rpc.stderr
    assert world.records() == []


def test_a_prompt_that_startup_rewrites_is_not_sent_ahead(world: World) -> None:
    (world.project / "notes.txt").write_text("file body\n")
    for _ in range(3):
        assert world.pi("-p", "@notes.txt").returncode == 0
    assert world.records() == []


def test_the_setting_switches_recording_off_and_a_record_made_before_is_not_used(world: World) -> None:
    world.run_until_recorded("-p", "warm-up")
    settings = {"defaultProvider": "fake", "defaultModel": "fake-model", "startup": {"earlyRequest": False}}
    (world.agent / "settings.json").write_text(json.dumps(settings))
    for prompt in ("one", "two"):
        world.server.clear()
        assert world.pi("-p", prompt).stdout.strip() == f"answer to {prompt}"
        assert len(world.server.requests) == 1
    assert world.record()["adopted"] == 0  # the old record, never used since the settings changed
