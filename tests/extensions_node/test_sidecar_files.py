"""The sidecar's JavaScript is part of the package, and its shims answer the imports of Pi's
extensions without anything from npm."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from pi_harness.coding.extensions.node_bridge.sidecar import JS_DIR

REPO = Path(__file__).resolve().parents[2]


def test_the_javascript_ships_inside_the_package() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    # Hatch puts every file under the listed package directory into the wheel, .mjs included.
    assert config["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["src/pi_harness"]
    assert JS_DIR.is_relative_to(REPO / "src" / "pi_harness")
    names = {p.relative_to(JS_DIR).as_posix() for p in JS_DIR.rglob("*.mjs")}
    assert {"host.mjs", "hooks.mjs", "shims/typebox.mjs", "shims/pi-coding-agent.mjs", "shims/pi-tui.mjs"} <= names


def test_builtin_tool_specs_are_those_of_our_tools() -> None:
    """``createReadTool()`` and the others give Node extensions our tools' declarations."""
    from pi_harness.coding.tools.registry import create_tool

    specs = json.loads((JS_DIR / "shims" / "builtin-tools.json").read_text(encoding="utf-8"))
    assert sorted(specs) == sorted(["read", "bash", "edit", "write", "grep", "find", "ls"])
    for name, spec in specs.items():
        tool = create_tool(name, str(REPO))
        assert (spec["name"], spec["description"], spec["parameters"]) == (tool.name, tool.description, tool.parameters)
