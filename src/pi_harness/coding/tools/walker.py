"""A pure-Python directory walker that ignores what ripgrep ignores (used when ``rg`` is absent).

Rules, as ripgrep applies them with ``--hidden``:

* ignore files: ``.rgignore`` beats ``.ignore`` beats ``.gitignore``, then ``.git/info/exclude``,
  then the global git excludes file; within one kind the deepest directory decides, and the last
  matching line of a file wins (``!pattern`` re-includes);
* git rules apply only inside a repository (a directory holding ``.git``), and only from the
  repository root down; ``.rgignore``/``.ignore`` also apply from directories above the search root;
* ``--glob`` overrides beat every ignore file: a file must match one of the positive globs when
  there are any, ``!glob`` excludes; directories are only pruned by ``!glob``;
* hidden files are included, ``.git`` is never entered, symbolic links are not followed.

Entries are visited depth first, each directory's entries in name order, the same order as
``rg --sort path``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pi_harness.coding.tools.search_types import ALWAYS_EXCLUDED_DIRS

if TYPE_CHECKING:
    import pathspec  # imported where a spec is built: it is slow to import

_CUSTOM, _DOT_IGNORE, _GIT = ".rgignore", ".ignore", ".gitignore"
_KINDS = (_CUSTOM, _DOT_IGNORE, _GIT)
_BRACES = re.compile(r"\{([^{}]*)\}")


def expand_braces(pattern: str) -> list[str]:
    """``*.{ts,tsx}`` → ``*.ts``, ``*.tsx`` (globs support alternation, gitignore lines do not)."""
    match = _BRACES.search(pattern)
    if match is None:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    expanded: list[str] = []
    for option in match.group(1).split(","):
        expanded.extend(expand_braces(head + option + tail))
    return expanded


def _load_spec(path: str) -> pathspec.GitIgnoreSpec | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    import pathspec

    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    return spec if len(spec) else None


def exact_decision(spec: pathspec.GitIgnoreSpec, path: str) -> bool | None:
    """The last line of ``spec`` that matches ``path`` itself: ``True`` ignore, ``False`` re-include.

    ``pathspec`` also counts a line as matching every path *below* a matching directory (git's
    view); ripgrep matches each path on its own and gets the directory case by not descending.
    The difference shows when the search starts inside an ignored directory, so lines that only
    match a prefix of ``path`` are skipped here.
    """
    if spec.check_file(path).include is None:
        return None  # nothing matches even a prefix: the common case, answered by pathspec's fast path
    for pattern in reversed(spec.patterns):
        if pattern.include is None or pattern.regex is None:
            continue
        match = pattern.regex.match(path)
        if match is None:
            continue
        if match.end() < len(path) and "ps_d" in pattern.regex.groupindex and match.end("ps_d") == match.end():
            continue  # matched only a parent directory of ``path`` (``ps_d`` marks that directory's slash)
        return bool(pattern.include)
    return None


def _global_excludes_path() -> str:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "git", "ignore")


@dataclass(frozen=True)
class _Rules:
    """Ignore files in effect for one directory, deepest first within each kind."""

    by_kind: tuple[tuple[tuple[str, pathspec.GitIgnoreSpec], ...], ...]  # one tuple per kind in _KINDS
    repo_root: str | None
    repo_specs: tuple[pathspec.GitIgnoreSpec, ...]  # info/exclude, global excludes (repo-relative)

    def enter(self, directory: str, is_repo: bool) -> _Rules:
        kinds = list(self.by_kind)
        repo_root, repo_specs = self.repo_root, self.repo_specs
        if is_repo:
            repo_root = directory
            kinds[2] = ()  # a nested repository starts its own git rules
            repo_specs = _repo_specs(directory)
        for index, kind in enumerate(_KINDS):
            if kind == _GIT and repo_root is None:
                continue
            spec = _load_spec(os.path.join(directory, kind))
            if spec is not None:
                kinds[index] = ((directory, spec), *kinds[index])
        return _Rules(tuple(kinds), repo_root, repo_specs)

    def ignored(self, path: str, is_dir: bool) -> bool:
        for layer in self.by_kind:
            for directory, spec in layer:
                decision = exact_decision(spec, _relative(path, directory, is_dir))
                if decision is not None:
                    return decision
        if self.repo_root is not None:
            relative = _relative(path, self.repo_root, is_dir)
            for spec in self.repo_specs:
                decision = exact_decision(spec, relative)
                if decision is not None:
                    return decision
        return False


def _relative(path: str, directory: str, is_dir: bool) -> str:
    relative = path[len(directory) :].lstrip("/") if directory != "/" else path[1:]
    if os.sep != "/":
        relative = relative.replace(os.sep, "/")
    return relative + "/" if is_dir else relative


def _repo_specs(repo_root: str) -> tuple[pathspec.GitIgnoreSpec, ...]:
    specs = []
    for path in (os.path.join(repo_root, ".git", "info", "exclude"), _global_excludes_path()):
        spec = _load_spec(path)
        if spec is not None:
            specs.append(spec)
    return tuple(specs)


def _find_repo_root(start: str) -> str | None:
    current = start
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _initial_rules(root: str) -> _Rules:
    """Rules of the directories above ``root``, then of ``root`` itself."""
    repo_root = _find_repo_root(root)
    ancestors: list[str] = []
    current = root
    while True:
        parent = os.path.dirname(current)
        if parent == current:
            break
        ancestors.append(parent)
        current = parent
    rules = _Rules(((), (), ()), None, ())
    for directory in reversed(ancestors):
        inside_repo = repo_root is not None and _is_within(directory, repo_root)
        rules = rules.enter(directory, is_repo=inside_repo and directory == repo_root)
    return rules.enter(root, is_repo=root == repo_root)


def _is_within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


class GlobOverrides:
    """``--glob`` semantics: the last matching glob wins; ``!glob`` excludes."""

    def __init__(self, globs: Sequence[str]) -> None:
        lines: list[str] = []
        self.has_whitelist = False
        for glob in globs:
            negated = glob.startswith("!")
            body = glob[1:] if negated else glob
            self.has_whitelist = self.has_whitelist or not negated
            # Inverted on purpose: a gitignore "match" here means "excluded by the overrides".
            lines += [body if negated else f"!{body}" for body in expand_braces(body)]
        if lines:
            import pathspec

            self._spec: pathspec.GitIgnoreSpec | None = pathspec.GitIgnoreSpec.from_lines(lines)
        else:
            self._spec = None

    def decide(self, relative: str, is_dir: bool) -> bool | None:
        """``True`` include, ``False`` exclude, ``None`` leave it to the ignore files."""
        if self._spec is None:
            return None
        decision = exact_decision(self._spec, relative + "/" if is_dir else relative)
        if decision is not None:
            return not decision
        if self.has_whitelist and not is_dir:
            return False
        return None


def walk_files(root: str, globs: Sequence[str] = ()) -> Iterator[str]:
    """Relative ``/``-separated paths of the regular files under ``root`` that are not ignored."""
    root = os.path.abspath(root)
    overrides = GlobOverrides(globs)
    # A LIFO of directories to visit and files to yield, fed in reverse so names come out in
    # order, interleaving files and subdirectories the way a recursive walk in name order would.
    pending: list[tuple[str, str, _Rules] | str] = [(root, "", _initial_rules(root))]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            yield item
            continue
        directory, prefix, rules = item
        try:
            with os.scandir(directory) as iterator:
                entries = sorted(iterator, key=lambda entry: entry.name)
        except OSError:
            continue
        children: list[tuple[str, str, _Rules] | str] = []
        for entry in entries:
            if entry.name in ALWAYS_EXCLUDED_DIRS:
                continue
            try:
                if entry.is_symlink():
                    continue
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = not is_dir and entry.is_file(follow_symlinks=False)
            except OSError:
                continue
            if not is_dir and not is_file:
                continue
            relative = prefix + entry.name
            decision = overrides.decide(relative, is_dir)
            if decision is False or (decision is None and rules.ignored(entry.path, is_dir)):
                continue
            if is_dir:
                is_repo = os.path.exists(os.path.join(entry.path, ".git"))
                children.append((entry.path, relative + "/", rules.enter(entry.path, is_repo)))
            else:
                children.append(relative)
        pending.extend(reversed(children))
