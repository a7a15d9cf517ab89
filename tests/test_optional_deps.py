from __future__ import annotations

import sys

import pytest

from pi_harness.optional_deps import MissingDependencyError, missing_dependency, require


def test_require_names_the_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    # As if the package were not installed (an earlier test may have imported it for real).
    monkeypatch.setitem(sys.modules, "ray", None)
    monkeypatch.setitem(sys.modules, "ray.util", None)
    with pytest.raises(MissingDependencyError) as info:
        require("ray.util", "pi batch --ray", extra="ray")
    assert str(info.value) == (
        "pi batch --ray needs the Python package 'ray', which is not installed (pip install 'pi-harness[ray]')"
    )


def test_a_different_missing_module_is_left_as_it_is() -> None:
    error = ModuleNotFoundError("No module named 'yaml'", name="yaml")
    assert missing_dependency(error, "mcp", "MCP support") is error
    assert isinstance(
        missing_dependency(ModuleNotFoundError(name="mcp.types"), "mcp", "MCP support"), MissingDependencyError
    )


def test_require_returns_the_module() -> None:
    assert require("json", "JSON").dumps([1]) == "[1]"
