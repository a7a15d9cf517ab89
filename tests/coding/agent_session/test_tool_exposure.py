"""The session's tool set and tool exposure: which registered extension tools become active.

``direct`` and ``model-only`` tools are activated on registration (unless ``default_active`` is
False); ``codemode`` and ``deferred`` ones wait to be activated; ``hidden`` ones never are. Names
the session started with that are not registered yet are activated when they register.
"""

from __future__ import annotations

from typing import Any

from pi_harness.coding.agent_session.tool_registry import ToolRegistry
from pi_harness.coding.extensions import ExtensionAPI, ToolDefinition, ToolExposure, ToolNamespace
from pi_harness.coding.extensions.runner import ExtensionRunner
from pi_harness.coding.tools import create_tools


def tool(name: str, exposure: ToolExposure | None = None, **extra: Any) -> ToolDefinition:
    return ToolDefinition(name, f"The {name} tool.", {"type": "object"}, lambda *_a: "ok", exposure=exposure, **extra)


async def registry(definitions: list[ToolDefinition], active: list[str]) -> tuple[ToolRegistry, ExtensionRunner]:
    runner = ExtensionRunner()

    def extension(pi: ExtensionAPI) -> None:
        for definition in definitions:
            pi.register_tool(definition)

    await runner.load_factory(extension, "inline:tools")
    tools = ToolRegistry(builtin=create_tools(["read"], "."), custom=[], active=active, runner=runner)
    return tools, runner


async def test_only_declarable_tools_are_activated_on_registration() -> None:
    definitions = [
        tool("plain"),
        tool("model", "model-only"),
        tool("later", "model-only", default_active=False),
        tool("script", "codemode"),
        tool("found", "deferred", namespace=ToolNamespace("grp", aliases=("g",), description="A group")),
        tool("gone", "hidden", reaches_tools=lambda _input: "all"),
    ]
    tools, _runner = await registry(definitions, ["read"])
    tools.refresh_extension_tools()
    assert tools.active_names() == ["read", "plain", "model"]
    info = {entry["name"]: entry for entry in tools.all_tools()}
    assert info["read"]["exposure"] == "direct" and info["found"]["exposure"] == "deferred"
    assert info["found"]["namespace"] == {"name": "grp", "aliases": ["g"], "description": "A group"}
    assert callable(info["gone"]["reachesTools"]) and "reachesTools" not in info["plain"]
    assert tools.set_active(["read", "found", "later", "gone"])
    assert tools.active_names() == ["read", "found", "later"]  # hidden is never active


async def test_names_not_registered_yet_wait_until_they_register() -> None:
    tools, _runner = await registry([tool("found", "deferred"), tool("other", "deferred")], ["read", "found"])
    assert tools.active_names() == ["read"]
    tools.refresh_extension_tools()
    assert tools.active_names() == ["read", "found"]  # a restored branch's loaded tool


async def test_a_change_that_drops_a_tool_forgets_the_pending_names() -> None:
    runner = ExtensionRunner()
    tools = ToolRegistry(
        builtin=create_tools(["read", "bash"], "."), custom=[], active=["read", "bash", "late"], runner=runner
    )
    tools.set_active(["read"])  # a new loadout replaces the restored one
    runner.extensions.clear()

    def extension(pi: ExtensionAPI) -> None:
        pi.register_tool(tool("late", "deferred"))

    await runner.load_factory(extension, "inline:late")
    tools.refresh_extension_tools()
    assert tools.active_names() == ["read"]
