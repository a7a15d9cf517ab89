"""Package sources as written in settings and on the command line, and their identities.

Forms (docs/packages.md):

- ``npm:<name>[@<version or range>]``: pinned when the version is an exact semver;
- ``git:<host>/<path>[@<ref>]``, ``git:git@<host>:<path>[@<ref>]``, ``https://``, ``http://``,
  ``ssh://`` and ``git://`` URLs (treated as git without the prefix): pinned when a ref is given.
  Beyond Pi, ``git:file:///abs/path/repo[.git][@ref]`` clones a repository on this machine;
- ``pip:<requirement>`` (beyond Pi): a Python distribution, pinned by ``==<version>``;
- anything else is a local path, resolved against the settings file that lists it.

Identity ignores the version or ref, so one package never loads twice through equivalent
declarations: ``npm:<name>``, ``git:<host>/<path>``, ``pip:<normalized name>``, ``local:<path>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlsplit

from pi_harness.coding.config.paths import expand_home

_SEMVER = re.compile(r"^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")
_NPM_SPEC = re.compile(r"^(@?[^@]+(?:/[^@]+)?)(?:@(.+))?$")
_PIP_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$")
_PIP_PINNED = re.compile(r"^===?\s*[^*,;\s]+$")
_URL_SCHEMES = ("https://", "http://", "ssh://", "git://")
_NOT_LOCAL_PREFIXES = ("npm:", "git:", "github:", "http:", "https:", "ssh:", "builtin:", "pip:")


@dataclass(frozen=True)
class NpmSource:
    spec: str
    name: str
    version: str | None
    kind: Literal["npm"] = "npm"

    @property
    def pinned(self) -> bool:
        return self.version is not None and _SEMVER.match(self.version) is not None

    @property
    def identity(self) -> str:
        return f"npm:{self.name}"


@dataclass(frozen=True)
class GitSource:
    repo: str  # what ``git clone`` is given
    host: str
    path: str  # owner/name (the install directory under ``git/<host>/``)
    ref: str | None
    kind: Literal["git"] = "git"

    @property
    def pinned(self) -> bool:
        return self.ref is not None

    @property
    def identity(self) -> str:
        return f"git:{self.host}/{self.path}"


@dataclass(frozen=True)
class PipSource:
    requirement: str
    name: str  # normalized (PEP 503): the install directory and the identity
    specifier: str
    kind: Literal["pip"] = "pip"

    @property
    def pinned(self) -> bool:
        return _PIP_PINNED.match(self.specifier) is not None

    @property
    def identity(self) -> str:
        return f"pip:{self.name}"


@dataclass(frozen=True)
class LocalSource:
    path: str
    kind: Literal["local"] = "local"

    @property
    def pinned(self) -> bool:
        return True


Source = NpmSource | GitSource | PipSource | LocalSource


class SourceError(ValueError):
    """A source that names no package we can install (the message is one line)."""


def parse_source(source: str) -> Source:
    text = source.strip()
    if text.startswith("npm:"):
        return _npm(text[len("npm:") :].strip())
    if text.startswith("pip:"):
        return _pip(text[len("pip:") :].strip())
    if text.startswith("git:") or text.lower().startswith(_URL_SCHEMES):
        git = parse_git(text)
        if git is not None:
            return git
        if text.startswith("git:"):
            raise SourceError(f"Invalid git source: {source}")
    if text.startswith(_NOT_LOCAL_PREFIXES):
        raise SourceError(f"Unsupported package source: {source}")
    return LocalSource(text)


def _npm(spec: str) -> NpmSource:
    match = _NPM_SPEC.match(spec)
    if not match or not spec:
        raise SourceError(f"Invalid npm source: npm:{spec}")
    return NpmSource(spec=spec, name=match.group(1), version=match.group(2))


def _pip(requirement: str) -> PipSource:
    match = _PIP_NAME.match(requirement)
    if not match:
        raise SourceError(f"Invalid pip source: pip:{requirement}")
    name = re.sub(r"[-_.]+", "-", match.group(1)).lower()
    return PipSource(requirement=requirement, name=name, specifier=match.group(3).strip())


def _split_ref(path: str) -> tuple[str, str | None]:
    if "@" not in path:
        return path, None
    repo_path, _, ref = path.partition("@")
    return (repo_path, ref) if repo_path and ref else (path, None)


def _safe(part: str, allow_slash: bool) -> bool:
    for candidate in (part, unquote(part)):
        if "\0" in candidate or "\\" in candidate or candidate.startswith("/"):
            return False
        if not allow_slash and "/" in candidate:
            return False
        if ".." in candidate.split("/"):
            return False
    return True


def _git(repo: str, host: str, path: str, ref: str | None) -> GitSource | None:
    normalized = re.sub(r"\.git$", "", path).lstrip("/")
    if not host or len(normalized.split("/")) < 2 or not _safe(host, False) or not _safe(normalized, True):
        return None
    return GitSource(repo=repo, host=host, path=normalized, ref=ref)


def parse_git(source: str) -> GitSource | None:
    """A git source, or ``None`` when ``source`` is not one (Pi's shorthand and URL forms)."""
    text = source.strip()
    has_prefix = text.startswith("git:")
    url = text[4:].strip() if has_prefix else text
    if url.startswith("file://"):
        return _file_git(url) if has_prefix else None
    scp = re.match(r"^git@([^:]+):(.+)$", url)
    if scp:
        path, ref = _split_ref(scp.group(2))
        return _git(f"git@{scp.group(1)}:{path}", scp.group(1), path, ref)
    if "://" in url:
        if not url.lower().startswith(_URL_SCHEMES):
            return None
        parts = urlsplit(url)
        path, ref = _split_ref(parts.path.lstrip("/"))
        repo = parts._replace(path="/" + path).geturl().rstrip("/") if ref else url
        return _git(repo, parts.hostname or "", path, ref)
    if not has_prefix:
        return None
    host, _, rest = url.partition("/")
    if not rest or ("." not in host and host != "localhost"):
        return None
    path, ref = _split_ref(rest)
    return _git(f"https://{host}/{path}", host, path, ref)


def _file_git(url: str) -> GitSource | None:
    """``file:///abs/repo.git[@ref]``: installed under ``git/local/<abs path>``."""
    path, ref = _split_ref(url[len("file://") :])
    if not path.startswith("/"):
        return None
    relative = re.sub(r"\.git$", "", path).strip("/")
    if not relative or not _safe(relative, True):
        return None
    return GitSource(repo=f"file://{path}", host="local", path=relative, ref=ref)


def is_package_source(text: str) -> bool:
    """Whether an ``-e`` argument names a package to fetch (npm, git, pip) rather than a path."""
    stripped = text.strip()
    return stripped.startswith(("npm:", "git:", "pip:")) or stripped.lower().startswith(_URL_SCHEMES)


def resolve_local(path: str, base: Path) -> Path:
    """A local source's path: ``~`` expanded, ``file:`` URLs accepted, relative to ``base``."""
    text = path.strip()
    if text.startswith("file://"):
        text = unquote(urlsplit(text).path)
    expanded = Path(expand_home(text))
    return (expanded if expanded.is_absolute() else base / expanded).resolve()


def identity(source: Source, base: Path) -> str:
    if isinstance(source, LocalSource):
        return f"local:{resolve_local(source.path, base)}"
    return source.identity


__all__ = [
    "GitSource",
    "LocalSource",
    "NpmSource",
    "PipSource",
    "Source",
    "SourceError",
    "identity",
    "is_package_source",
    "parse_git",
    "parse_source",
    "resolve_local",
]
