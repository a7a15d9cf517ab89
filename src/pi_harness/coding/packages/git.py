"""git packages, in Pi's layout: ``<agentDir>/git/<host>/<path>`` (global) and
``<cwd>/.pi/git/<host>/<path>`` (project). A configured ref is checked out and kept: updating
fetches that ref and resets the checkout to it; without a ref, updating follows the upstream
branch. A checkout with a package.json gets its dependencies from npm (``Npm.install_dependencies``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from pi_harness.coding.packages.npm import Npm
from pi_harness.coding.packages.process import PackageError, capture, run
from pi_harness.coding.packages.sources import GitSource

_ENV = {"GIT_TERMINAL_PROMPT": "0"}


def install_path(source: GitSource, root: Path) -> Path:
    target = (root / source.host / source.path).resolve()
    if not target.is_relative_to(root.resolve()) or target == root.resolve():
        raise PackageError(f"Refusing to use path outside package install root: {target}")
    return target


def _git(args: list[str], cwd: Path | None = None) -> None:
    run(["git", *args], cwd=cwd, env=_ENV)


def _head(ref: str, cwd: Path) -> str:
    return capture(["git", "rev-parse", f"{ref}^{{commit}}" if ref != "HEAD" else "HEAD"], cwd=cwd, env=_ENV)


def _marker(target: Path) -> Path:
    return target.parent / f".{target.name}.pi-update-incomplete"


def install(source: GitSource, root: Path, npm: Npm) -> None:
    target = install_path(source, root)
    root.mkdir(parents=True, exist_ok=True)
    ignore = root / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n!.gitignore\n", encoding="utf-8")
    install_at(source, target, npm, prune_root=root)


def install_at(source: GitSource, target: Path, npm: Npm, *, prune_root: Path | None = None) -> None:
    """Clone into ``target`` (or reconcile an existing clone with ``update_at``)."""
    if target.exists():
        update_at(source, target, npm)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        _git(["clone", source.repo, str(target)])
        if source.ref:
            _git(["checkout", source.ref], cwd=target)
        if (target / "package.json").is_file():
            npm.install_dependencies(target)
    except PackageError:
        shutil.rmtree(target, ignore_errors=True)
        if prune_root is not None:
            prune_empty(target, prune_root)
        raise


def _upstream_target(target: Path) -> tuple[list[str], str]:
    """The fetch arguments and ref an unpinned checkout follows (its upstream branch)."""
    try:
        upstream = capture(["git", "rev-parse", "--abbrev-ref", "@{upstream}"], cwd=target, env=_ENV)
        if upstream.startswith("origin/") and len(upstream) > len("origin/"):
            branch = upstream[len("origin/") :]
            return [
                "fetch",
                "--prune",
                "--no-tags",
                "origin",
                f"+refs/heads/{branch}:refs/remotes/origin/{branch}",
            ], "@{upstream}"
    except PackageError:
        pass
    return ["fetch", "--prune", "--no-tags", "origin", "+HEAD:refs/remotes/origin/HEAD"], "origin/HEAD"


def update(source: GitSource, root: Path, npm: Npm) -> None:
    target = install_path(source, root)
    if not target.exists():
        install(source, root, npm)
        return
    update_at(source, target, npm)


def update_at(source: GitSource, target: Path, npm: Npm) -> None:
    """Fetch the configured ref (or the upstream branch) and reset the checkout to it."""
    if source.ref:
        fetch, ref = ["fetch", "origin", source.ref], "FETCH_HEAD"
    else:
        fetch, ref = _upstream_target(target)
    _git(fetch, cwd=target)
    marker = _marker(target)
    if _head("HEAD", target) != _head(ref, target):
        marker.write_text("", encoding="utf-8")
        _git(["reset", "--hard", f"{ref}^{{commit}}"], cwd=target)
    elif not marker.exists():
        return
    # The checkout moved (or a previous update stopped half-way): clean it and reinstall.
    _git(["clean", "-fdx"], cwd=target)
    if (target / "package.json").is_file():
        npm.install_dependencies(target)
    marker.unlink(missing_ok=True)


def remove(source: GitSource, root: Path) -> None:
    target = install_path(source, root)
    shutil.rmtree(target, ignore_errors=True)
    _marker(target).unlink(missing_ok=True)
    prune_empty(target, root)


def prune_empty(target: Path, root: Path) -> None:
    current = target.parent
    resolved_root = root.resolve()
    while current != resolved_root and current.is_relative_to(resolved_root):
        try:
            current.rmdir()
        except OSError:
            break
        current = current.parent


__all__ = ["install", "install_at", "install_path", "prune_empty", "remove", "update", "update_at"]
