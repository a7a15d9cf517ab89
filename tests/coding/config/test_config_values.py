"""Configured values: Pi 1.4's templates (``$NAME``, ``${NAME}``, ``$$``, ``$!``) and commands."""

from __future__ import annotations

import pytest

from pi_harness.coding.config.values import env_names, missing_env_names, resolve_config_value, resolve_headers


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("plain", "plain"),
        ("$A", "a"),
        ("${A}", "a"),
        ("x-${A}-$B.", "x-a-b."),
        ("$A$B", "ab"),
        ("cost $$5", "cost $5"),
        ("$!not-a-command", "!not-a-command"),
        ("ends with $", "ends with $"),
        ("${not closed", "${not closed"),
        ("${bad-name}", "${bad-name}"),
        ("$-x", "$-x"),
        ("A", "A"),  # a bare name is literal text in Pi 1.4
        ("$UNSET_HERE", None),
        ("ok-${UNSET_HERE}", None),
        ("", None),
    ],
)
def test_templates(monkeypatch: pytest.MonkeyPatch, value: str, expected: str | None) -> None:
    monkeypatch.setenv("A", "a")
    monkeypatch.setenv("B", "b")
    monkeypatch.delenv("UNSET_HERE", raising=False)
    assert resolve_config_value(value) == expected


def test_overrides_come_before_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEAM", "process")
    monkeypatch.delenv("ONLY_STORED", raising=False)
    env = {"TEAM": "stored", "ONLY_STORED": "yes"}
    assert resolve_config_value("$TEAM/${ONLY_STORED}", env) == "stored/yes"
    assert resolve_headers({"X-T": "$TEAM", "X-Gone": "$NOPE_NOT_SET"}, env) == {"X-T": "stored"}
    assert missing_env_names("$TEAM-$ONLY_STORED") == ["ONLY_STORED"]
    assert missing_env_names("$TEAM-$ONLY_STORED", env) == []


def test_commands_run_and_name_no_variables() -> None:
    assert resolve_config_value("!printf ' from-cmd \\n'") == "from-cmd"
    assert resolve_config_value("!exit 3") is None
    assert env_names("!echo $HOME") == []
    assert env_names("$A-${B}-$A") == ["A", "B"]
