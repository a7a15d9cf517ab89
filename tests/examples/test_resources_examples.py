"""Resources: dynamic-resources adds a skill, a prompt template and a theme from its own directory."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from _examples_support import example_path, sdk_session

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


async def test_dynamic_resources_are_discovered(server: FakeLLMServer, tmp_path: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("The layout is...")]))
    result = await sdk_session(server, tmp_path, "dynamic_resources")
    session = result.session
    here = example_path("dynamic_resources")

    by_name = {command["name"]: command for command in session.get_commands()}
    assert by_name["repo-overview"]["source"] == "prompt"
    assert by_name["skill:dynamic-resources"]["source"] == "skill"
    assert by_name["repo-overview"]["sourceInfo"]["path"] == str(here / "repo-overview.md")
    assert str(here / "theme.json") in session.resource_loader.get_theme_paths()

    await session.prompt("/repo-overview")
    request = server.requests[0].json
    assert "Give an overview of this repository" in json.dumps(request["messages"][-1])
    assert "dynamic-resources" in request["messages"][0]["content"]  # the skill is listed
    await result.runtime.shutdown()


def test_the_theme_file_is_complete() -> None:
    from pi_harness.tui.theme import load_theme_file

    theme, errors = load_theme_file(example_path("dynamic_resources") / "theme.json")
    assert errors == []
    assert theme is not None and theme.name == "dynamic-resources"
