from __future__ import annotations

import json
from pathlib import Path

import pytest
from _cli_helpers import RunPi

from pi_harness.cli.subcommands.common import UsageError
from pi_harness.cli.subcommands.config import parse_setting_value


def write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return tmp_path / "work"  # the cwd of run_pi


def settings_lines(stdout: str) -> dict[str, str]:
    rows = {}
    for line in stdout.splitlines():
        if " = " in line:
            key, rest = line.split(" = ", 1)
            rows[key] = rest
    return rows


def test_effective_settings_with_sources(run_pi: RunPi, agent_dir: Path, project: Path) -> None:
    write_json(agent_dir / "settings.json", {"defaultModel": "gpt-4o", "compaction": {"reserveTokens": 9000}})
    result = run_pi("config")
    assert result.returncode == 0, result.stderr
    rows = settings_lines(result.stdout)
    assert rows["defaultModel"] == '"gpt-4o"  (global)'
    assert rows["compaction.reserveTokens"] == "9000  (global)"
    assert rows["compaction.enabled"] == "true  (default)"
    assert rows["retry.provider.maxRetries"] == "0  (default)"
    assert f"Global settings:  {agent_dir / 'settings.json'}" in result.stdout


def test_project_settings_apply_only_when_trusted(run_pi: RunPi, agent_dir: Path, project: Path) -> None:
    write_json(agent_dir / "settings.json", {"compaction": {"reserveTokens": 9000, "keepRecentTokens": 1}})
    write_json(project / ".pi" / "settings.json", {"compaction": {"enabled": False}, "defaultProjectTrust": "always"})
    rows = settings_lines(run_pi("config").stdout)
    assert rows["compaction.enabled"] == "true  (default)"  # not trusted: ignored

    write_json(agent_dir / "trust.json", {"version": 1, "decisions": {str(project.resolve()): {"trusted": True}}})
    result = run_pi("config")
    rows = settings_lines(result.stdout)
    assert "(trusted)" in result.stdout
    assert rows["compaction.enabled"] == "false  (project)"
    assert rows["compaction.reserveTokens"] == "9000  (global)"  # objects merge one level deep
    assert rows["defaultProjectTrust"] == '"ask"  (default)'  # global-only key ignored in the project file


def test_json_listing(run_pi: RunPi, agent_dir: Path) -> None:
    write_json(agent_dir / "settings.json", {"theme": "light"})
    data = json.loads(run_pi("config", "--json").stdout)
    assert data["settings"]["theme"] == {"value": "light", "source": "global"}
    assert data["settings"]["images.autoResize"] == {"value": True, "source": "default"}
    assert data["files"]["projectTrusted"] is False


def test_get(run_pi: RunPi, agent_dir: Path) -> None:
    write_json(agent_dir / "settings.json", {"defaultModel": "gpt-4o"})
    assert run_pi("config", "get", "defaultModel").stdout == "gpt-4o\n"
    assert run_pi("config", "get", "defaultModel", "--json").stdout == '"gpt-4o"\n'
    assert run_pi("config", "get", "retry").stdout.startswith('{"enabled": true')
    result = run_pi("config", "get", "noSuchKey")
    assert result.returncode == 1 and result.stderr == "Error: Unknown setting: noSuchKey\n"


def test_set_and_unset_global(run_pi: RunPi, agent_dir: Path) -> None:
    write_json(agent_dir / "settings.json", {"theme": "light"})
    result = run_pi("config", "set", "compaction.enabled", "false")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"Set compaction.enabled = false in {agent_dir / 'settings.json'}\n"
    assert run_pi("config", "set", "defaultModel", "4").returncode == 0
    assert run_pi("config", "set", "enabledModels", '["a/*","b"]').returncode == 0
    data = json.loads((agent_dir / "settings.json").read_text())
    assert data == {
        "theme": "light",
        "compaction": {"enabled": False},
        "defaultModel": "4",
        "enabledModels": ["a/*", "b"],
    }

    assert run_pi("config", "unset", "theme").returncode == 0
    assert "theme" not in json.loads((agent_dir / "settings.json").read_text())


def test_set_project(run_pi: RunPi, agent_dir: Path, project: Path) -> None:
    result = run_pi("config", "set", "steeringMode", "all", "--project")
    assert result.returncode == 0, result.stderr
    assert json.loads((project / ".pi" / "settings.json").read_text()) == {"steeringMode": "all"}
    result = run_pi("config", "set", "defaultProjectTrust", "always", "--project")
    assert result.returncode == 1
    assert result.stderr == "Error: defaultProjectTrust can only be set in the global settings file\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["set", "compaction.enabled", "maybe"], 'Error: compaction.enabled expects a boolean, got "maybe"'),
        (["set", "steeringMode", "sometimes"], 'Error: Invalid value for steeringMode: "sometimes".'),
        (["set", "retry.maxRetries", "[1]"], "Error: retry.maxRetries expects a number, got [1]"),
        (["frob"], "Error: Invalid config command: frob"),
        (["--bogus"], 'Error: Unknown option --bogus for "config".'),
    ],
)
def test_bad_input(run_pi: RunPi, agent_dir: Path, args: list[str], message: str) -> None:
    result = run_pi("config", *args)
    assert result.returncode == 1
    assert result.stderr.startswith(message)
    assert not (agent_dir / "settings.json").exists()


def test_unparsable_file_is_not_overwritten(run_pi: RunPi, agent_dir: Path) -> None:
    (agent_dir / "settings.json").write_text("{broken")
    result = run_pi("config", "set", "theme", "light")
    assert result.returncode == 1
    assert "could not be parsed" in result.stderr
    assert (agent_dir / "settings.json").read_text() == "{broken"


def test_value_parsing() -> None:
    assert parse_setting_value("retry.baseDelayMs", "2500") == 2500
    assert parse_setting_value("editorPaddingX", "1.5") == 1.5
    assert parse_setting_value("somethingNew", "plain text") == "plain text"
    assert parse_setting_value("somethingNew", '{"a": 1}') == {"a": 1}
    assert parse_setting_value("quietStartup", "null") is None  # JSON null removes the key
    assert parse_setting_value("theme", "null") == "null"  # string settings take the text as it is
    with pytest.raises(UsageError):
        parse_setting_value("quietStartup", "1")
