"""What a fresh ``pip install .`` gets: MCP included, the license, the supported Pythons."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _names(requirements: list[str]) -> set[str]:
    return {req.split(";")[0].split("[")[0].split("<")[0].split(">")[0].split("=")[0].strip() for req in requirements}


def test_mcp_is_a_base_dependency() -> None:
    # MCP is built into Pi: a plain install must be able to connect to the servers in mcp.json.
    assert "mcp" in _names(PROJECT["dependencies"])


def test_the_license_ships_with_the_package() -> None:
    assert PROJECT["license"] == "MIT"
    assert PROJECT["license-files"] == ["LICENSE"]
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")


def test_supported_pythons_are_declared() -> None:
    versions = {
        c.rsplit(" :: ", 1)[1] for c in PROJECT["classifiers"] if c.startswith("Programming Language :: Python :: 3.")
    }
    assert {"3.11", "3.12", "3.13"} <= versions
    assert PROJECT["requires-python"] == ">=3.11"


def test_no_exact_pins() -> None:
    # Exact pins make installs beside other packages fail; ranges are bounded only with a reason.
    for group in [PROJECT["dependencies"], *PROJECT["optional-dependencies"].values()]:
        assert not [req for req in group if "==" in req]


def test_project_urls_are_declared() -> None:
    assert all(url.startswith("https://") for url in PROJECT["urls"].values()) and PROJECT["urls"]
