"""Configuration seen through sessions: trust decisions, auth.json, models.json keys, settings."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from _agent_session_helpers import API

from pi_harness.coding.config.auth import AuthStorage
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.config.trust import TrustStore
from pi_harness.coding.extensions.types import ExtensionErrorRecord
from pi_harness.coding.sdk import create_agent_session, resolve_project_trust
from pi_harness.coding.session_runtime.services import durability, tool_options_from_settings
from pi_harness.coding.session_store import SessionManager
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

TRUST_EXTENSION = """
def extension(pi):
    @pi.on("project_trust")
    def decide(event, ctx=None):
        if "boom" in event.cwd:
            raise RuntimeError("cannot decide")
        return "yes" if event.cwd.endswith("{suffix}") else None
"""


def protected_project(root: Path, name: str) -> Path:
    project = root / name
    (project / ".pi").mkdir(parents=True)
    (project / ".pi" / "settings.json").write_text("{}")
    return project


async def test_trust_cli_flags_win(tmp_path: Path, agent_dir: Path) -> None:
    project = protected_project(tmp_path, "p")
    approved = await resolve_project_trust(project, approve=True)
    assert (approved.trusted, approved.source) == (True, "cli")
    denied = await resolve_project_trust(project, approve=False)
    assert (denied.trusted, denied.source) == (False, "cli")
    assert str((project / ".pi" / "settings.json").resolve()) in denied.resources


async def test_trust_asks_user_level_extensions_only(tmp_path: Path, agent_dir: Path) -> None:
    extensions = agent_dir / "extensions"
    extensions.mkdir()
    (extensions / "trust.py").write_text(TRUST_EXTENSION.replace("{suffix}", "trusted-by-ext"))
    project = protected_project(tmp_path, "trusted-by-ext")
    # A project extension must not get a say: it is behind the gate itself.
    (project / ".pi" / "extensions").mkdir()
    (project / ".pi" / "extensions" / "self.py").write_text(TRUST_EXTENSION.replace("{suffix}", ""))
    decision = await resolve_project_trust(project)
    assert (decision.trusted, decision.source) == (True, "extension")

    other = protected_project(tmp_path, "other")
    undecided = await resolve_project_trust(other)
    assert (undecided.trusted, undecided.source) == (None, "default")
    assert undecided.needs_prompt and undecided.effective(interactive=False) is False


async def test_failing_trust_handler_falls_back_to_the_saved_decision(tmp_path: Path, agent_dir: Path) -> None:
    extensions = agent_dir / "extensions"
    extensions.mkdir()
    (extensions / "trust.py").write_text(TRUST_EXTENSION.replace("{suffix}", "never-matches"))
    project = protected_project(tmp_path, "boom")
    TrustStore(agent_dir).save(project, False)
    errors: list[ExtensionErrorRecord] = []
    decision = await resolve_project_trust(project, on_error=errors.append)
    assert (decision.trusted, decision.source) == (False, "saved")
    assert [(e.event, e.error) for e in errors] == [("project_trust", "cannot decide")]


async def test_default_project_trust_setting_and_no_protected_resources(tmp_path: Path, agent_dir: Path) -> None:
    (agent_dir / "settings.json").write_text(json.dumps({"defaultProjectTrust": "always"}))
    project = protected_project(tmp_path, "p")
    decision = await resolve_project_trust(project)
    assert (decision.trusted, decision.source) == (True, "default")
    assert decision.effective(interactive=False) is True
    plain = tmp_path / "plain"
    (plain / ".pi").mkdir(parents=True)  # a bare .pi directory needs no decision
    bare = await resolve_project_trust(plain)
    assert (bare.trusted, bare.source) == (True, "none")


async def test_untrusted_project_skips_project_settings(server: FakeLLMServer, tmp_path: Path, agent_dir: Path) -> None:
    project = protected_project(tmp_path, "p")
    (project / ".pi" / "settings.json").write_text(json.dumps({"steeringMode": "all"}))
    untrusted = await create_agent_session(
        cwd=str(project),
        project_trusted=False,
        session_manager=SessionManager.in_memory(str(project)),
        model=server.model(API),
        api_keys={"fake": "k"},
    )
    assert untrusted.session.steering_mode == "one-at-a-time"
    await untrusted.runtime.shutdown()
    trusted = await create_agent_session(
        cwd=str(project),
        session_manager=SessionManager.in_memory(str(project)),
        model=server.model(API),
        api_keys={"fake": "k"},
    )
    assert trusted.session.steering_mode == "all"
    await trusted.runtime.shutdown()


async def test_auth_json_key_is_used_and_kept_private(server: FakeLLMServer, tmp_path: Path, agent_dir: Path) -> None:
    auth = AuthStorage(agent_dir)
    auth.set_api_key("fake", "sk-from-auth-json")
    mode = stat.S_IMODE((agent_dir / "auth.json").stat().st_mode)
    assert mode == 0o600
    server.push(ScriptedResponse(steps=[TextStep("ok")]))
    result = await create_agent_session(
        cwd=str(tmp_path),
        auth_storage=auth,
        model=server.model(API),
        session_manager=SessionManager.in_memory(str(tmp_path)),
        settings_manager=SettingsManager.in_memory(),
    )
    await result.session.prompt("hi")
    assert server.requests[0].headers["authorization"] == "Bearer sk-from-auth-json"
    assert stat.S_IMODE((agent_dir / "auth.json").stat().st_mode) == 0o600
    await result.runtime.shutdown()


async def test_models_json_command_key_is_resolved_per_request(
    server: FakeLLMServer, tmp_path: Path, agent_dir: Path
) -> None:
    counter = tmp_path / "count"
    counter.write_text("")
    command = f"echo x >> {counter}; printf cmd-key-$(wc -l < {counter} | tr -d ' ')"
    config = {
        "providers": {
            "local": {
                "baseUrl": server.base_url(API),
                "api": API,
                "apiKey": f"!{command}",
                "models": [{"id": "local-model", "contextWindow": 64000}],
            }
        }
    }
    (agent_dir / "models.json").write_text(json.dumps(config))
    server.push(ScriptedResponse(steps=[TextStep("one")]), ScriptedResponse(steps=[TextStep("two")]))
    result = await create_agent_session(
        cwd=str(tmp_path),
        model="local/local-model",
        session_manager=SessionManager.in_memory(str(tmp_path)),
        settings_manager=SettingsManager.in_memory(),
    )
    session = result.session
    assert session.model is not None and session.model["contextWindow"] == 64000
    await session.prompt("first")
    await session.prompt("second")
    first, second = (r.headers["authorization"] for r in server.requests)
    # Run at request time and never cached: each request ran the command again.
    assert first.startswith("Bearer cmd-key-") and second.startswith("Bearer cmd-key-") and first != second
    await result.runtime.shutdown()


async def test_a_command_key_runs_once_per_request_of_a_tool_loop(
    server: FakeLLMServer, tmp_path: Path, agent_dir: Path
) -> None:
    counter = tmp_path / "count"
    counter.write_text("")
    (tmp_path / "notes.txt").write_text("notes\n")
    config = {
        "providers": {
            "local": {
                "baseUrl": server.base_url(API),
                "api": API,
                "apiKey": f"!echo x >> {counter}; printf cmd-key",
                "models": [{"id": "local-model", "contextWindow": 64000}],
            }
        }
    }
    (agent_dir / "models.json").write_text(json.dumps(config))
    read = ToolCallStep("read", {"path": "notes.txt"})
    server.push(*(ScriptedResponse(steps=[read]) for _ in range(3)), ScriptedResponse(steps=[TextStep("done")]))
    result = await create_agent_session(
        cwd=str(tmp_path),
        model="local/local-model",
        session_manager=SessionManager.in_memory(str(tmp_path)),
        settings_manager=SettingsManager.in_memory(),
    )
    await result.session.prompt("go")
    assert [r.headers["authorization"] for r in server.requests] == ["Bearer cmd-key"] * 4
    # Each request ran the command, and the compaction check after the run; the checks between
    # the turns need a key only when they compact.
    assert counter.read_text().count("x") == 5
    await result.runtime.shutdown()


async def test_settings_reach_the_agent_and_stream_options(server: FakeLLMServer, tmp_path: Path) -> None:
    settings = SettingsManager.in_memory(
        {
            "steeringMode": "all",
            "followUpMode": "all",
            "transport": "auto",
            "httpIdleTimeoutMs": 1234,
            "thinkingBudgets": {"low": 99},
            "retry": {"provider": {"maxRetries": 2, "maxRetryDelayMs": 5000}},
            "tools": {"reapOrphans": True},
            "images": {"blockImages": True},
        }
    )
    result = await create_agent_session(
        cwd=str(tmp_path),
        settings_manager=settings,
        session_manager=SessionManager.in_memory(str(tmp_path)),
        model=server.model(API),
        api_keys={"fake": "k"},
    )
    session = result.session
    options = session.agent.options
    assert (session.steering_mode, session.follow_up_mode) == ("all", "all")
    # Only the budgets the user set go to providers (Gemini thinks dynamically for the others).
    assert options.transport == "auto" and options.thinking_budgets == {"low": 99}
    assert options.max_retry_delay_ms == 5000
    assert session.base_stream_options.max_retries == 2 and session.base_stream_options.idle_timeout_ms == 1234
    assert session.tool_options.reap_orphans is True and session.tool_options.block_images is True
    session.set_follow_up_mode("one-at-a-time")
    assert settings.get("followUpMode") == "one-at-a-time"
    await result.runtime.shutdown()


async def test_run_budgets_and_a_zero_idle_timeout_from_settings(server: FakeLLMServer, tmp_path: Path) -> None:
    settings = SettingsManager.in_memory(
        {
            "httpIdleTimeoutMs": 0,  # no idle timeout, as in Pi
            "agent": {"maxTurns": 4, "maxTotalTokens": 1000, "maxCost": 2},
            "steeringMode": "ALL",
            "thinkingBudgets": "lots",
        }
    )
    result = await create_agent_session(
        cwd=str(tmp_path),
        settings_manager=settings,
        session_manager=SessionManager.in_memory(str(tmp_path)),
        model=server.model(API),
        api_keys={"fake": "k"},
    )
    session = result.session
    options = session.agent.options
    assert session.base_stream_options.idle_timeout_ms == 0
    assert (options.max_turns, options.max_total_tokens, options.max_cost) == (4, 1000, 2.0)
    assert session.steering_mode == "one-at-a-time" and options.thinking_budgets == {}
    assert sum("steeringMode: expected" in d or "thinkingBudgets: expected" in d for d in result.diagnostics) == 2
    await result.runtime.shutdown()


def test_tool_and_session_file_options_from_settings(tmp_path: Path) -> None:
    settings = SettingsManager.in_memory(
        {
            "shellCommandPrefix": "",
            "images": {"autoResize": "no", "blockImages": 1},
            "tools": {"reapOrphans": "yes"},
            "sessions": {"fsync": True, "lock": 1},
        }
    )
    options = tool_options_from_settings(settings, tmp_path)
    assert options.shell_command_prefix is None and options.auto_resize_images is True
    assert options.block_images is False and options.reap_orphans is False
    assert durability(settings) == {"fsync": True, "lock": False}
    warned = {d.key for d in settings.diagnostics}
    assert warned == {"images.autoResize", "images.blockImages", "tools.reapOrphans", "sessions.lock"}


async def test_images_reach_the_request_unless_blocked(server: FakeLLMServer, tmp_path: Path) -> None:
    pixel = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    server.push(ScriptedResponse(steps=[TextStep("a")]), ScriptedResponse(steps=[TextStep("b")]))
    result = await create_agent_session(
        cwd=str(tmp_path),
        settings_manager=SettingsManager.in_memory(),
        session_manager=SessionManager.in_memory(str(tmp_path)),
        model=server.model(API),
        api_keys={"fake": "k"},
    )
    session = result.session
    await session.prompt("look", images=[pixel])  # type: ignore[list-item]
    assert "data:image/png;base64,iVBORw0KGgo=" in json.dumps(server.requests[0].json)
    session.settings.set("images.blockImages", True)
    await session.prompt("again")
    body = json.dumps(server.requests[1].json)
    assert "iVBORw0KGgo=" not in body and "Image reading is disabled." in body
    await result.runtime.shutdown()
