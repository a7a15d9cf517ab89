"""Package sources as Pi writes them, and the identities that keep one package from loading twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_harness.coding.packages.sources import (
    GitSource,
    LocalSource,
    NpmSource,
    PipSource,
    SourceError,
    identity,
    parse_source,
)


@pytest.mark.parametrize(
    ("text", "name", "version", "pinned"),
    [
        ("npm:pi-tools", "pi-tools", None, False),
        ("npm:pi-tools@1.2.3", "pi-tools", "1.2.3", True),
        ("npm:@example/pi-tools@1.0.0", "@example/pi-tools", "1.0.0", True),
        ("npm:@example/pi-tools", "@example/pi-tools", None, False),
        ("npm:pi-tools@^1.2.0", "pi-tools", "^1.2.0", False),
        ("npm:pi-tools@latest", "pi-tools", "latest", False),
    ],
)
def test_npm_sources(text: str, name: str, version: str | None, pinned: bool) -> None:
    source = parse_source(text)
    assert isinstance(source, NpmSource)
    assert (source.name, source.version, source.pinned) == (name, version, pinned)
    assert source.identity == f"npm:{name}"


@pytest.mark.parametrize(
    ("text", "repo", "host", "path", "ref"),
    [
        (
            "git:github.com/example/pi-tools",
            "https://github.com/example/pi-tools",
            "github.com",
            "example/pi-tools",
            None,
        ),
        (
            "git:github.com/example/pi-tools@v1",
            "https://github.com/example/pi-tools",
            "github.com",
            "example/pi-tools",
            "v1",
        ),
        (
            "git:git@github.com:example/pi-tools",
            "git@github.com:example/pi-tools",
            "github.com",
            "example/pi-tools",
            None,
        ),
        (
            "git:git@github.com:example/pi-tools.git@abc123",
            "git@github.com:example/pi-tools.git",
            "github.com",
            "example/pi-tools",
            "abc123",
        ),
        (
            "https://github.com/example/pi-tools",
            "https://github.com/example/pi-tools",
            "github.com",
            "example/pi-tools",
            None,
        ),
        (
            "https://gitlab.example.org/group/tools.git@v2",
            "https://gitlab.example.org/group/tools.git",
            "gitlab.example.org",
            "group/tools",
            "v2",
        ),
        (
            "ssh://git@github.com/example/pi-tools",
            "ssh://git@github.com/example/pi-tools",
            "github.com",
            "example/pi-tools",
            None,
        ),
        (
            "git:file:///srv/repos/team/tools.git@v1",
            "file:///srv/repos/team/tools.git",
            "local",
            "srv/repos/team/tools",
            "v1",
        ),
    ],
)
def test_git_sources(text: str, repo: str, host: str, path: str, ref: str | None) -> None:
    source = parse_source(text)
    assert isinstance(source, GitSource)
    assert (source.repo, source.host, source.path, source.ref) == (repo, host, path, ref)
    assert source.pinned is (ref is not None)


def test_ssh_and_https_forms_of_one_repository_share_an_identity() -> None:
    forms = [
        "git:github.com/example/pi-tools@v1",
        "git:git@github.com:example/pi-tools",
        "https://github.com/example/pi-tools",
    ]
    assert {parse_source(f).identity for f in forms if not isinstance(parse_source(f), LocalSource)} == {
        "git:github.com/example/pi-tools"
    }


@pytest.mark.parametrize(
    ("text", "name", "pinned"),
    [
        ("pip:pi-shout", "pi-shout", False),
        ("pip:Pi_Shout==1.0.0", "pi-shout", True),
        ("pip:pi-shout>=1", "pi-shout", False),
    ],
)
def test_pip_sources(text: str, name: str, pinned: bool) -> None:
    source = parse_source(text)
    assert isinstance(source, PipSource)
    assert (source.name, source.pinned, source.identity) == (name, pinned, f"pip:{name}")


def test_local_paths_resolve_against_their_settings_directory(tmp_path: Path) -> None:
    source = parse_source("./vendor/tools")
    assert isinstance(source, LocalSource)
    assert identity(source, tmp_path) == f"local:{tmp_path / 'vendor' / 'tools'}"
    assert identity(parse_source("../x"), tmp_path / "a") == f"local:{tmp_path / 'x'}"


@pytest.mark.parametrize("text", ["git:github.com/../etc", "git:nohost", "git:github.com/onlyone", "github:user/repo"])
def test_bad_sources_are_one_line_errors(text: str) -> None:
    with pytest.raises(SourceError, match=r"^(Invalid git source|Unsupported package source): "):
        parse_source(text)
