"""Fixtures of the package tests: a local npm registry with a Pi package in two versions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _pkg_fixtures import LocalRegistry, Published, npm_env, npm_pack, write_pi_package


@pytest.fixture(scope="session")
def demo_tarballs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``pi-demo`` 1.0.0 and 1.1.0 packed once for the whole run (``npm pack`` is slow)."""
    base = tmp_path_factory.mktemp("pi-demo")
    return {
        version: npm_pack(write_pi_package(base / version, "pi-demo", version, tag=f" v{version}"), base / "tgz")
        for version in ("1.0.0", "1.1.0")
    }


@pytest.fixture
def npm_registry(
    demo_tarballs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Published]:
    """The registry serving ``pi-demo`` 1.0.0 (call ``publish("1.1.0")`` for a newer one); npm
    is pointed at it through its environment, with a cache of its own."""
    registry = LocalRegistry()
    published = Published(registry, demo_tarballs)
    published.publish("1.0.0")
    with registry.running():
        for name, value in npm_env(tmp_path / "npm-cache", registry.url).items():
            monkeypatch.setenv(name, value)
        yield published
