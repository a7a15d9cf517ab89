"""``/thinking``: the thinking-level selector, its hint line, and ``app.thinking.save`` (Ctrl+S)
keeping the highlighted level as ``defaultThinkingLevel``."""

from __future__ import annotations

import json
from pathlib import Path

from pi_harness.testing.fake_llm import FakeLLMServer

from .harness import run_pi, write_fake_provider

CTRL_S = "\x13"


def saved_settings(agent_dir: Path) -> dict[str, object]:
    data = json.loads((agent_dir / "settings.json").read_text())
    assert isinstance(data, dict)
    return data


async def test_ctrl_s_in_the_selector_saves_the_default_level(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    write_fake_provider(agent_dir, server, models=("thinking-model",))
    async with run_pi(["--thinking", "low"]) as pi:
        await pi.started()
        await pi.submit("/thinking")
        await pi.wait_for(lambda: "Thinking Level" in pi.screen(), "the thinking-level selector")
        screen = pi.screen()
        assert "Enter to select · Ctrl+S to set as default · Escape/Ctrl+C to cancel" in screen
        assert "shift+tab cycles thinking levels in-session" in screen
        assert "Moderate reasoning (~8k tokens) · default" in screen  # defaultThinkingLevel is medium
        assert pi.selected_row().split()[1:3] == ["✓", "low"]
        await pi.press("down")
        await pi.wait_for(lambda: "medium" in pi.selected_row(), "medium highlighted")
        pi.type(CTRL_S)
        await pi.wait_for(lambda: pi.scrollback_has("Default thinking level: medium"), "the status")
        assert "Thinking Level" not in pi.screen()
        assert pi.mode.session.thinking_level == "medium"
        assert saved_settings(agent_dir)["defaultThinkingLevel"] == "medium"


async def test_enter_sets_the_level_for_the_session_only(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    write_fake_provider(agent_dir, server, models=("thinking-model",))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/thinking")
        await pi.wait_for(lambda: "Thinking Level" in pi.screen(), "the thinking-level selector")
        pi.type("hig")
        await pi.wait_for(lambda: "high" in pi.selected_row(), "the filtered level")
        await pi.press("enter")
        await pi.wait_for(lambda: pi.scrollback_has("Thinking level: high"), "the status")
        assert pi.mode.session.thinking_level == "high"
        assert "defaultThinkingLevel" not in saved_settings(agent_dir)


async def test_the_hint_names_the_configured_save_key(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    write_fake_provider(agent_dir, server, models=("thinking-model",))
    (agent_dir / "keybindings.json").write_text(json.dumps({"app.thinking.save": "ctrl+y"}))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/thinking")
        await pi.wait_for(lambda: "Thinking Level" in pi.screen(), "the thinking-level selector")
        assert "Ctrl+Y to set as default" in pi.screen()
        await pi.press("up")
        pi.type("\x19")  # ctrl+y
        await pi.wait_for(lambda: pi.scrollback_has("Default thinking level: low"), "the status")
        assert saved_settings(agent_dir)["defaultThinkingLevel"] == "low"


async def test_thinking_with_an_argument(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    write_fake_provider(agent_dir, server, models=("thinking-model",))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/thinking HIGH")
        await pi.wait_for(lambda: pi.scrollback_has("Thinking level: high"), "the level, matched ignoring case")
        await pi.submit("/thinking extreme")
        await pi.wait_for(lambda: pi.scrollback_has("Unknown thinking level 'extreme'"), "the error")
        assert pi.mode.session.thinking_level == "high"
