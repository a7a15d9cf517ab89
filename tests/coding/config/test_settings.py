from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_harness.coding.config.settings import SettingsManager


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)


def test_defaults_when_no_files(agent_dir: Path, tmp_path: Path) -> None:
    s = SettingsManager.create(tmp_path / "proj", agent_dir)
    assert s.get("compaction.enabled") is True
    assert s.get("compaction.reserveTokens") == 16384
    assert s.get("compaction.keepRecentTokens") == 20000
    assert s.get("retry.maxRetries") == 3
    assert s.get("retry.provider.maxRetries") == 0
    assert s.get("defaultThinkingLevel") == "medium"
    assert s.get("steeringMode") == "one-at-a-time"
    assert s.get("defaultProjectTrust") == "ask"
    assert s.get("thinkingBudgets") == {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
    assert s.diagnostics == []


def test_project_overrides_global_one_level_deep(agent_dir: Path, tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    write(agent_dir / "settings.json", {"compaction": {"reserveTokens": 1000, "keepRecentTokens": 5}, "skills": ["a"]})
    write(proj / ".pi" / "settings.json", {"compaction": {"reserveTokens": 2000}, "skills": ["b"]})
    s = SettingsManager.create(proj, agent_dir)
    assert s.get("compaction.reserveTokens") == 2000
    assert s.get("compaction.keepRecentTokens") == 5  # merged at the nested key
    assert s.get("compaction.enabled") is True  # default underneath
    assert s.get("skills") == ["b"]  # arrays replace


def test_untrusted_project_settings_are_ignored(agent_dir: Path, tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    write(proj / ".pi" / "settings.json", {"quietStartup": True})
    s = SettingsManager.create(proj, agent_dir, project_trusted=False)
    assert s.get("quietStartup") is False
    s.set_project_trusted(True)
    assert s.get("quietStartup") is True


def test_default_project_trust_is_global_only(agent_dir: Path, tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    write(proj / ".pi" / "settings.json", {"defaultProjectTrust": "always"})
    assert SettingsManager.create(proj, agent_dir).get("defaultProjectTrust") == "ask"


def test_broken_file_is_a_diagnostic_and_never_overwritten(agent_dir: Path, tmp_path: Path) -> None:
    write(agent_dir / "settings.json", "{not json")
    s = SettingsManager.create(tmp_path, agent_dir)
    assert len(s.diagnostics) == 1 and "Failed to parse settings" in s.diagnostics[0].message
    assert s.get("retry.enabled") is True
    with pytest.raises(RuntimeError, match="could not be parsed"):
        s.set("quietStartup", True)
    assert (agent_dir / "settings.json").read_text() == "{not json"


def test_set_writes_only_changed_keys_and_keeps_unknown_ones(agent_dir: Path, tmp_path: Path) -> None:
    write(agent_dir / "settings.json", {"someFutureKey": {"x": 1}, "compaction": {"keepRecentTokens": 7}})
    s = SettingsManager.create(tmp_path, agent_dir)
    # another process edits the file after we loaded it
    write(
        agent_dir / "settings.json",
        {"someFutureKey": {"x": 1}, "compaction": {"keepRecentTokens": 7}, "theme": "light"},
    )
    s.set("compaction.enabled", False)
    data = json.loads((agent_dir / "settings.json").read_text())
    assert data == {
        "someFutureKey": {"x": 1},
        "compaction": {"keepRecentTokens": 7, "enabled": False},
        "theme": "light",
    }
    assert (agent_dir / "settings.json").read_text().startswith('{\n  "')
    assert s.get("compaction.enabled") is False
    assert not (agent_dir / "settings.json.lock").exists()


def test_legacy_keys_are_migrated(agent_dir: Path, tmp_path: Path) -> None:
    write(
        agent_dir / "settings.json",
        {
            "queueMode": "all",
            "websockets": True,
            "skills": {"enableSkillCommands": False, "customDirectories": ["x"]},
            "retry": {"maxDelayMs": 5000},
        },
    )
    s = SettingsManager.create(tmp_path, agent_dir)
    assert s.get("steeringMode") == "all"
    assert s.get("transport") == "websocket"
    assert s.get("enableSkillCommands") is False
    assert s.get("skills") == ["x"]
    assert s.get("retry.provider.maxRetryDelayMs") == 5000


def test_in_memory_and_overrides(tmp_path: Path) -> None:
    s = SettingsManager.in_memory({"compaction": {"enabled": False}})
    assert s.get("compaction.enabled") is False
    s.set("retry.maxRetries", 7)
    assert s.get("retry.maxRetries") == 7
    s.set_override("retry.enabled", False)
    assert s.get("retry.enabled") is False


def test_path_entries_resolve_against_their_file(agent_dir: Path, tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    write(agent_dir / "settings.json", {"extensions": ["ext/a.py"], "sessionDir": "~/sess"})
    write(proj / ".pi" / "settings.json", {"extensions": ["./b.py"]})
    s = SettingsManager.create(proj, agent_dir)
    entries = [(v, base, scope) for v, base, scope in s.path_entries("extensions")]
    assert entries == [("./b.py", proj / ".pi", "project"), ("ext/a.py", agent_dir, "global")]
    assert s.resolve_path_setting("sessionDir") == Path.home() / "sess"


def test_extension_handler_timeout_and_object_form_of_extensions(agent_dir: Path, tmp_path: Path) -> None:
    write(agent_dir / "settings.json", {"extensions": ["a.py"]})
    s = SettingsManager.create(tmp_path, agent_dir)
    assert s.extension_handler_timeout_ms() is None
    s.set("extensions.handlerTimeoutMs", 500)  # the list survives as "paths"
    data = json.loads((agent_dir / "settings.json").read_text())
    assert data == {"extensions": {"paths": ["a.py"], "handlerTimeoutMs": 500}}
    assert s.extension_handler_timeout_ms() == 500
    assert [v for v, _b, _s in s.path_entries("extensions")] == ["a.py"]
    write(agent_dir / "settings.json", {"extensions": ["b.py"], "extensionHandlerTimeoutMs": 250})
    s.reload()
    assert s.extension_handler_timeout_ms() == 250
    assert SettingsManager.in_memory({"extensions": {"handlerTimeoutMs": 9}}).path_entries("extensions") == []


def test_is_set_tells_a_value_from_its_default(agent_dir: Path, tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    write(agent_dir / "settings.json", {"thinkingBudgets": {"high": 5000}, "quietStartup": None})
    write(proj / ".pi" / "settings.json", {"thinkingBudgets": {"low": 10}})
    s = SettingsManager.create(proj, agent_dir)
    assert s.get("thinkingBudgets.medium") == 8192  # the default is there ...
    assert not s.is_set("thinkingBudgets.medium")  # ... but nobody set it
    assert s.is_set("thinkingBudgets.high") and s.is_set("thinkingBudgets.low")
    assert not s.is_set("quietStartup")  # null counts as unset
    untrusted = SettingsManager.create(proj, agent_dir, project_trusted=False)
    assert not untrusted.is_set("thinkingBudgets.low")
    assert SettingsManager.in_memory({"thinkingBudgets": {"minimal": 1}}).is_set("thinkingBudgets.minimal")
