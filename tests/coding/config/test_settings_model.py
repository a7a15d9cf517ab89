"""The typed settings model: Pi 1.4.0's keys, defaults, validation and reads through attributes."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from pi_harness.coding.config.settings import DEFAULTS, GLOBAL_ONLY, SettingsManager
from pi_harness.coding.config.settings_model import (
    Settings,
    all_settings,
    default_settings_json,
    parse_settings,
    setting_rule,
)
from pi_harness.coding.config.settings_rules import ReadContext, Rejected, Rule, to_json
from pi_harness.coding.config.settings_sections import CompactionSettings, ModelSettings
from pi_harness.tui.components.settings_view import default_setting_items
from pi_harness.tui.ui_settings import UiSettings

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
PI_REFERENCE = Path("/work/pi-ref/pi/node_modules/@earendil-works/pi-coding-agent/docs/settings.md")
DOCS = Path(__file__).resolve().parents[3] / "src" / "pi_harness" / "docs" / "settings.md"
needs_reference = pytest.mark.skipif(not PI_REFERENCE.is_file(), reason=f"Pi's reference not at {PI_REFERENCE}")

# DEFAULTS as it was before the model existed: `pi config` lists exactly these defaults.
LEGACY_DEFAULTS = {
    "defaultThinkingLevel": "medium",
    "thinkingBudgets": {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384},
    "hideThinkingBlock": False,
    "transport": "auto",
    "httpIdleTimeoutMs": 300_000,
    "websocketConnectTimeoutMs": 15_000,
    "steeringMode": "one-at-a-time",
    "followUpMode": "one-at-a-time",
    "compaction": {"enabled": True, "reserveTokens": 16384, "keepRecentTokens": 20000, "skipPrompt": True},
    "branchSummary": {"reserveTokens": 16384, "skipPrompt": False},
    "retry": {
        "enabled": True,
        "maxRetries": 3,
        "baseDelayMs": 2000,
        "maxAgentDelayMs": 60_000,
        "provider": {"maxRetries": 0, "maxRetryDelayMs": 60_000},
    },
    "cacheWarming": "streaming",
    "showCacheMissNotices": False,
    "defaultProjectTrust": "ask",
    "enableInstallTelemetry": True,
    "images": {"autoResize": True, "blockImages": False},
    "terminal": {"showImages": True, "clearOnShrink": False},
    "theme": "dark",
    "quietStartup": False,
    "collapseChangelog": False,
    "doubleEscapeAction": "tree",
    "treeFilterMode": "default",
    "editorPaddingX": 0,
    "autocompleteMaxVisible": 5,
    "showHardwareCursor": False,
    "markdown": {"codeBlockIndent": "  "},
    "packages": [],
    "extensions": [],
    "skills": [],
    "prompts": [],
    "themes": [],
    "enableSkillCommands": True,
    "sessions": {"fsync": False, "lock": False},
    "tools": {"reapOrphans": False},
}


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def fixture_keys() -> list[str]:
    lines = (FIXTURES / "pi_settings_keys.txt").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def reference_rows() -> dict[str, tuple[str, str]]:
    """``key -> (type cell, default cell)`` from the tables of Pi's settings reference."""
    rows: dict[str, tuple[str, str]] = {}
    for line in PI_REFERENCE.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^\| `([A-Za-z.]+)` \|", line)
        if match:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows[match.group(1)] = (cells[1], cells[2])
    return rows


def accepts(rule: Rule[object], value: object) -> bool:
    try:
        rule.read(value, ReadContext("k"))
    except Rejected:
        return False
    return True


DECLARED = {d.key: d for d in all_settings()}


# -- the keys ------------------------------------------------------------------------------------


def test_every_pi_key_is_in_the_model() -> None:
    keys = fixture_keys()
    assert len(keys) == 72
    assert [key for key in keys if key not in DECLARED] == []


@needs_reference
def test_the_committed_key_list_is_the_reference() -> None:
    assert list(reference_rows()) == fixture_keys()


def _samples(type_cell: str) -> tuple[list[object], list[object] | None]:
    """Values the reference's type allows, and the exact choices when it is an enumeration."""
    parts = [p.strip().strip("`").strip() for p in type_cell.replace("`", "").split("\\|")]
    samples: list[object] = []
    choices: list[object] = []
    enumeration = True
    for part in parts:
        if part == "boolean":
            samples += [True, False]
            choices += [True, False]
        elif part in ("false", "0", "1") or part.startswith('"'):
            value = json.loads(part)
            samples.append(value)
            choices.append(value)
        else:
            enumeration = False
            samples.append({"number": 5, "string": "x", "string[]": ["a"], "object": {}, "array": []}[part])
    return samples, choices if enumeration and parts != ["boolean"] else None


@needs_reference
def test_every_key_takes_the_type_the_reference_gives() -> None:
    for key, (type_cell, _default) in reference_rows().items():
        rule = DECLARED[key].info.rule
        samples, choices = _samples(type_cell)
        assert all(accepts(rule, value) for value in samples), (key, type_cell)
        if choices is not None:
            assert rule.choices is not None and set(map(json.dumps, rule.choices)) == set(map(json.dumps, choices))


@needs_reference
def test_defaults_that_differ_from_pi_say_so() -> None:
    differing = {}
    for key, (_type, default_cell) in reference_rows().items():
        literal = default_cell.strip("`")
        try:
            pi_default = json.loads(literal)
        except ValueError:
            continue  # "Automatic", "None", "Built-in budgets" ...
        declared = DECLARED[key]
        if to_json(declared.default) != pi_default:
            differing[key] = literal
            assert declared.info.pi_default == literal, key
    assert differing == {"theme": '"system"'}


def test_every_key_is_documented() -> None:
    """A table row per key; the ones not implemented say so, pi-harness's own are marked too."""
    rows: dict[str, tuple[str, str]] = {}  # key -> (row, heading of its section)
    heading = ""
    for line in DOCS.read_text(encoding="utf-8").splitlines():
        heading = line[3:] if line.startswith("## ") else heading
        match = re.match(r"^\| `([A-Za-z.]+)`[^|]*\|", line)
        if match:
            rows[match.group(1)] = (line, heading)
    assert sorted(set(DECLARED) - set(rows)) == []
    for key, declared in DECLARED.items():
        row, section = rows[key]
        assert ("not implemented" in row) == (declared.info.status == "not-implemented"), key
        if declared.info.status == "beyond-pi":
            assert section == "Beyond Pi" or "pi-harness:" in row, key
        if declared.info.pi_default is not None:
            assert f"(Pi: `{declared.info.pi_default}`)" in row, key


# -- defaults ------------------------------------------------------------------------------------


def test_defaults_come_from_the_model_and_are_what_they_were() -> None:
    assert DEFAULTS == default_settings_json() == LEGACY_DEFAULTS
    for key, value in LEGACY_DEFAULTS.items():
        assert json.dumps(DEFAULTS[key]) == json.dumps(value)  # nested key order too (pi config get)
    assert {"allowPackageScripts", "cacheWarming", "defaultProjectTrust", "httpProxy"} == GLOBAL_ONLY


def test_the_defaults_parse_to_the_default_model_without_warnings() -> None:
    values, warnings = parse_settings(DEFAULTS)
    assert values == Settings() and warnings == []
    assert parse_settings({}) == (Settings(), [])


def test_every_default_passes_its_own_rule() -> None:
    for key, declared in DECLARED.items():
        if declared.default is not None:
            assert declared.info.rule.read(to_json(declared.default), ReadContext(key)) == declared.default, key


def test_readers_defaults() -> None:
    v = SettingsManager.in_memory().values
    assert v.compaction == CompactionSettings(True, 16384, 20000)
    assert (v.images.auto_resize, v.images.block_images, v.terminal.show_images) == (True, False, True)
    assert (v.retry.max_retries, v.retry.provider.max_retries, v.retry.provider.max_retry_delay_ms) == (3, 0, 60_000)
    assert (v.sessions.fsync, v.sessions.lock, v.tools.reap_orphans) == (False, False, False)
    assert (v.agent.max_turns, v.agent.max_total_tokens, v.agent.max_cost) == (None, None, None)
    assert (v.default_provider, v.default_model, v.default_tools, v.enabled_models) == (None, None, None, None)
    assert (v.theme, v.transport, v.tui_mode, v.quiet_startup) == ("dark", "auto", "fullscreen", False)
    assert dict(v.thinking_budgets) == {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
    assert v.extension_handler_timeout_ms is None and v.local_models is None


# -- validation ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "attribute", "expected", "message"),
    [
        ({"compaction": {"enabled": "yes"}}, "compaction.enabled", True,
         'compaction.enabled: expected a boolean, got "yes"; using the default true'),
        ({"images": {"autoResize": 0}}, "images.auto_resize", True,
         "images.autoResize: expected a boolean, got 0; using the default true"),
        ({"retry": {"maxRetries": -1}}, "retry.max_retries", 3,
         "retry.maxRetries: expected a non-negative integer, got -1; using the default 3"),
        ({"steeringMode": "sometimes"}, "steering_mode", "one-at-a-time",
         'steeringMode: expected one of "all", "one-at-a-time", got "sometimes"; using the default "one-at-a-time"'),
        ({"quietStartup": "yes"}, "quiet_startup", False,
         'quietStartup: expected one of true, false, "header", got "yes"; using the default false'),
        ({"theme": ""}, "theme", "dark", 'theme: expected a non-empty string, got ""; using the default "dark"'),
        ({"defaultModel": 4}, "default_model", None, "defaultModel: expected a string, got 4; ignoring it"),
        ({"agent": {"maxCost": "1"}}, "agent.max_cost", None,
         'agent.maxCost: expected a non-negative number, got "1"; ignoring it'),
        ({"retry": 5}, "retry.enabled", True, "retry: expected an object, got 5; using the defaults"),
        ({"editorPaddingX": 9}, "editor_padding_x", 3, "editorPaddingX: expected an integer from 0 to 3, got 9; using 3"),
        ({"autocompleteMaxVisible": 1}, "autocomplete_max_visible", 3,
         "autocompleteMaxVisible: expected an integer from 3 to 20, got 1; using 3"),
        ({"skills": ["a", 1]}, "skills", ("a",), 'skills: expected a list of strings, got ["a", 1]; ignoring [1]'),
        ({"thinkingBudgets": {"high": "x"}}, "thinking_budgets.high", 16384,
         'thinkingBudgets.high: expected a non-negative integer, got "x"; using the default 16384'),
    ],
)  # fmt: skip
def test_a_value_of_the_wrong_type_gives_a_warning_and_the_default(
    agent_dir: Path, tmp_path: Path, data: dict[str, object], attribute: str, expected: object, message: str
) -> None:
    write(agent_dir / "settings.json", data)
    settings = SettingsManager.create(tmp_path, agent_dir)
    node: object = settings.values
    for part in attribute.split("."):
        node = node[part] if isinstance(node, Mapping) else getattr(node, part)
    assert node == expected
    assert [(d.level, d.path, d.message) for d in settings.diagnostics] == [
        ("warning", str(agent_dir / "settings.json"), message)
    ]
    key = next(iter(data))
    assert settings.scope_value("global", key) == data[key]  # the file's value is still there


def test_a_warning_names_the_file_the_value_comes_from(agent_dir: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    write(agent_dir / "settings.json", {"retry": {"maxRetries": "x"}})
    write(project / ".pi" / "settings.json", {"retry": {"maxRetries": "y"}})
    settings = SettingsManager.create(project, agent_dir)
    assert [(d.path, d.key) for d in settings.diagnostics] == [
        (str(project / ".pi" / "settings.json"), "retry.maxRetries")
    ]
    settings.set_override("retry.maxRetries", "z")
    assert [d.path for d in settings.diagnostics] == ["runtime settings"]


def test_unknown_keys_are_kept_without_a_warning(agent_dir: Path, tmp_path: Path) -> None:
    write(agent_dir / "settings.json", {"$schema": "https://pi.dev/x.json", "someFutureKey": {"a": 1},
                                        "compaction": {"futureKey": True}})  # fmt: skip
    settings = SettingsManager.create(tmp_path, agent_dir)
    assert settings.diagnostics == []
    assert settings.get("someFutureKey") == {"a": 1} and settings.get("compaction.futureKey") is True
    assert settings.values.compaction == CompactionSettings()


def test_json_null_counts_as_unset() -> None:
    values, warnings = parse_settings({"theme": None, "compaction": {"enabled": None}, "defaultModel": None})
    assert (values.theme, values.compaction.enabled, values.default_model, warnings) == ("dark", True, None, [])


def test_values_pi_accepts_that_are_new_here() -> None:
    values, warnings = parse_settings({
        "quietStartup": "header", "cacheWarming": "idle", "terminal": {"images": False, "hyperlinks": "auto"},
        "fullscreenWheelScrollLines": 500, "outputPad": 0, "packages": ["npm:x", {"source": "git:y"}],
    })  # fmt: skip
    assert values.quiet_startup == "header" and values.cache_warming == "idle"
    assert values.terminal.images is False and values.output_pad == 0
    assert values.fullscreen_wheel_scroll_lines == 100 and [d.key for d in warnings] == ["fullscreenWheelScrollLines"]
    assert [to_json(p) for p in values.packages] == ["npm:x", {"source": "git:y"}]


# -- files, merge, trust, legacy keys ------------------------------------------------------------


def test_project_overrides_global(agent_dir: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    write(agent_dir / "settings.json", {"compaction": {"reserveTokens": 1000, "keepRecentTokens": 5}, "theme": "a"})
    write(project / ".pi" / "settings.json", {"compaction": {"reserveTokens": 2000}, "theme": "b"})
    values = SettingsManager.create(project, agent_dir).values
    assert values.compaction == CompactionSettings(True, 2000, 5)
    assert values.theme == "b"


def test_pi_s_compaction_model_overrides(agent_dir: Path, tmp_path: Path) -> None:
    """Each token value: ``modelOverrides`` entry, then ``modelSettings``, then the ordinary value;
    ``enabled`` is not per model in Pi's form; the files merge before the lookup."""
    project = tmp_path / "proj"
    overrides = {"p/m": {"reserveTokens": 5, "enabled": False}, "p/n": 3, "p/bad": {"keepRecentTokens": "x"}}
    write(agent_dir / "settings.json", {"compaction": {"reserveTokens": 1000, "modelOverrides": overrides}})
    write(project / ".pi" / "settings.json", {"compaction": {"keepRecentTokens": 100},
          "modelSettings": {"p/m": {"compaction": {"reserveTokens": 7, "keepRecentTokens": 8}}}})  # fmt: skip
    manager = SettingsManager.create(project, agent_dir)
    values = manager.values
    ours = values.compaction_for("p/m")
    assert (ours.enabled, ours.reserve_tokens, ours.keep_recent_tokens) == (True, 5, 8)
    ordinary = values.compaction_for(None)
    assert (ordinary.reserve_tokens, ordinary.keep_recent_tokens) == (1000, 100)
    assert values.compaction_for("P/M") == values.compaction_for("p/bad") == ordinary  # keys are exact
    warned = [d.key for d in manager.diagnostics]
    assert "compaction.modelOverrides.p/n" in warned and "compaction.modelOverrides.p/bad.keepRecentTokens" in warned


def test_untrusted_project_and_global_only_keys_are_ignored(agent_dir: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    write(agent_dir / "settings.json", {"httpProxy": "http://global"})
    write(project / ".pi" / "settings.json", {"quietStartup": True, "retry": {"maxRetries": "bad"},
                                              "defaultProjectTrust": "always", "httpProxy": "http://project"})  # fmt: skip
    settings = SettingsManager.create(project, agent_dir, project_trusted=False)
    assert settings.values.quiet_startup is False and settings.diagnostics == []  # its bad value is not reported
    settings.set_project_trusted(True)
    assert settings.values.quiet_startup is True and [d.key for d in settings.diagnostics] == ["retry.maxRetries"]
    assert settings.values.default_project_trust == "ask" and settings.values.http_proxy == "http://global"


def test_legacy_keys_reach_the_model(agent_dir: Path, tmp_path: Path) -> None:
    write(agent_dir / "settings.json", {
        "queueMode": "all", "websockets": True, "retry": {"maxDelayMs": 5000},
        "skills": {"enableSkillCommands": False, "customDirectories": ["x"]},
    })  # fmt: skip
    values = SettingsManager.create(tmp_path, agent_dir).values
    assert (values.steering_mode, values.transport) == ("all", "websocket")
    assert (values.enable_skill_commands, values.skills) == (False, ("x",))
    assert values.retry.provider.max_retry_delay_ms == 5000


def test_attributes_follow_set_override_and_reload(agent_dir: Path, tmp_path: Path) -> None:
    settings = SettingsManager.create(tmp_path, agent_dir)
    first = settings.values
    assert settings.values is first  # kept until something changes
    settings.set("compaction.enabled", False)
    assert settings.values.compaction.enabled is False and first.compaction.enabled is True
    settings.set_override("images.autoResize", False)
    assert settings.values.images.auto_resize is False
    write(agent_dir / "settings.json", {"retry": {"maxRetries": 9}})
    settings.reload()
    assert settings.values.retry.max_retries == 9 and settings.values.images.auto_resize is False
    memory = SettingsManager.in_memory({"agent": {"maxTurns": 4}})
    memory.set("agent.maxCost", 2)
    assert (memory.values.agent.max_turns, memory.values.agent.max_cost) == (4, 2.0)


def test_extension_handler_timeout_from_either_key() -> None:
    alias = SettingsManager.in_memory({"extensionHandlerTimeoutMs": 250, "extensions": {"handlerTimeoutMs": 9}})
    assert alias.values.extension_handler_timeout_ms == 250 == alias.extension_handler_timeout_ms()
    nested = SettingsManager.in_memory({"extensionHandlerTimeoutMs": 0, "extensions": {"paths": ["a.py"],
                                                                                        "handlerTimeoutMs": 9}})  # fmt: skip
    assert nested.values.extension_handler_timeout_ms == 9 and nested.values.extensions == ("a.py",)
    assert [d.key for d in nested.diagnostics] == ["extensionHandlerTimeoutMs"]


def test_per_model_settings() -> None:
    values = SettingsManager.in_memory({
        "compaction": {"reserveTokens": 100, "keepRecentTokens": 50},
        "modelSettings": {"p/m": {"thinkingLevel": "high", "compaction": {"reserveTokens": 7, "enabled": "no"}},
                          "p/bad": {"thinkingLevel": "loud"}},
    }).values  # fmt: skip
    assert values.model_entry("p/m").thinking_level == "high"
    assert values.model_entry("p/bad") == ModelSettings() and values.model_entry(None) == ModelSettings()
    assert values.compaction_for("p/m") == CompactionSettings(True, 7, 50)
    assert values.compaction_for("other/x") == values.compaction == CompactionSettings(True, 100, 50)


# -- readers -------------------------------------------------------------------------------------


def test_pi_config_checks_come_from_the_model() -> None:
    from pi_harness.cli.subcommands.common import UsageError
    from pi_harness.cli.subcommands.config import parse_setting_value

    assert setting_rule("retry.provider.maxRetries") is DECLARED["retry.provider.maxRetries"].info.rule
    assert setting_rule("someFutureKey") is None
    assert parse_setting_value("quietStartup", "header") == "header"
    assert parse_setting_value("cacheWarming", "idle") == "idle"
    assert parse_setting_value("agent.maxTurns", "3") == 3
    assert parse_setting_value("modelSettings.p/m.thinkingLevel", "high") == "high"
    with pytest.raises(UsageError, match="expects a number"):
        parse_setting_value("extensions.handlerTimeoutMs", "soon")
    with pytest.raises(UsageError, match="Valid values: kitty, iterm2, auto, false"):
        parse_setting_value("terminal.images", "true")


def test_ui_settings_from_the_model() -> None:
    values = SettingsManager.in_memory({"theme": "light", "editorPaddingX": 2, "quietStartup": "header"}).values
    ui = UiSettings.from_values(values)
    assert (ui.theme, ui.editor_padding_x, ui.quiet_startup) == ("light", 2, False)
    items = {item.key: item.current for item in default_setting_items(values)}
    assert items["theme"] == "light" and items["editorPaddingX"] == "2" and items["compaction.enabled"] == "true"
    assert items["quietStartup"] == "header"
