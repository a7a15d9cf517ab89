"""External dependencies and integration: with-deps and file-trigger, in real sessions."""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _examples_support import UIClient, example_path, load_example, sdk_session, tool_results

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


async def test_file_trigger_turns_the_file_into_a_message(server: FakeLLMServer, tmp_path: Path) -> None:
    trigger = tmp_path / "trigger.txt"
    server.push(ScriptedResponse(steps=[TextStep("Running the tests now.")]))
    client = UIClient()
    factory = load_example("file_trigger").create_extension(trigger, interval=0.01)
    result = await sdk_session(server, tmp_path, client=client, extension_factories=[factory])
    assert client.notifications == [(f"Watching {trigger} for instructions", "info")]

    trigger.write_text("run the tests\n")
    for _ in range(1000):  # the watcher polls: wait until the run it started has finished
        if server.requests and result.session.is_idle:
            break
        await asyncio.sleep(0.01)
    await result.session.wait_for_idle()

    messages = server.requests[0].json["messages"]
    assert "Trigger file: run the tests" in str(messages[-1]["content"])
    assert trigger.read_text() == ""  # emptied once read
    custom = [m for m in result.session.get_messages() if m["role"] == "custom"]
    assert custom[0]["customType"] == "file-trigger" and custom[0]["display"] is True
    await result.runtime.shutdown()


async def test_with_deps_reports_the_missing_package(server: FakeLLMServer, tmp_path: Path) -> None:
    server.push(
        ScriptedResponse(steps=[ToolCallStep("parse_duration", {"duration": "2 days"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("It needs a package.")]),
    )
    result = await sdk_session(server, tmp_path, "with_deps")
    await result.session.prompt("how long is 2 days?")
    name, failed, text = tool_results(result.session)[0]
    assert (name, failed) == ("parse_duration", True)
    assert text.startswith("parse_duration needs the pytimeparse2 package: pip install --target ")
    await result.runtime.shutdown()


async def test_with_deps_imports_from_its_own_directory(server: FakeLLMServer, tmp_path: Path) -> None:
    # A copy of the package whose .deps holds a stand-in for pytimeparse2 (the tests never reach
    # PyPI): what matters is that the import is resolved from the extension's own directory.
    package = tmp_path / "with_deps"
    shutil.copytree(example_path("with_deps"), package)
    stand_in = package / ".deps" / "pytimeparse2"
    stand_in.mkdir(parents=True)
    (stand_in / "__init__.py").write_text(
        "UNITS = {'s': 1, 'm': 60, 'h': 3600, 'days': 86400}\n"
        "def parse(text):\n"
        "    number, _, unit = text.partition(' ')\n"
        "    return float(number) * UNITS[unit] if number.isdigit() and unit in UNITS else None\n"
    )
    server.push(
        ScriptedResponse(steps=[ToolCallStep("parse_duration", {"duration": "2 days"}, id="c1")]),
        ScriptedResponse(steps=[ToolCallStep("parse_duration", {"duration": "soon"}, id="c2")]),
        ScriptedResponse(steps=[TextStep("Two days.")]),
    )
    result = await sdk_session(server, tmp_path, package)
    try:
        await result.session.prompt("how long is 2 days?")
        assert tool_results(result.session) == [
            ("parse_duration", False, "2 days = 172800000 milliseconds"),
            ("parse_duration", True, 'Not a duration: "soon"'),
        ]
    finally:
        await result.runtime.shutdown()
        sys.path[:] = [p for p in sys.path if not p.startswith(str(tmp_path))]
        sys.modules.pop("pytimeparse2", None)
