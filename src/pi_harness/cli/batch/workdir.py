"""The working directory a task runs in.

``cwd`` is used as it is. ``repo`` is never touched: the task gets its own checkout under the
batch's work directory — a detached ``git worktree`` of the repository (at ``ref``, default
``HEAD``) or, for a plain directory or ``isolation: "copy"``, a copy. A directory left by an
interrupted run is replaced, so a resumed task starts from the same files as the first attempt.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

from filelock import FileLock

from pi_harness.cli.batch.tasks import Task


class WorkdirError(RuntimeError):
    """The task's working directory could not be prepared (the task ends as ``error``)."""


def task_workdir(task: Task, base: Path, work_root: Path) -> Path:
    """Where the task runs; prepares a checkout or copy of ``repo`` first."""
    if task.cwd is not None:
        cwd = (base / task.cwd).resolve()
        if not cwd.is_dir():
            raise WorkdirError(f"cwd {cwd} is not a directory")
        return cwd
    target = work_root / task.id
    if task.repo is None:
        target.mkdir(parents=True, exist_ok=True)
        return target
    source = (base / task.repo).resolve()
    if not source.is_dir():
        raise WorkdirError(f"repo {source} is not a directory")
    use_git = task.isolation == "worktree" or (task.isolation == "auto" and _is_git(source))
    if task.ref is not None and not use_git:
        raise WorkdirError(f'"ref" needs a git repository; {source} is not one')
    # One git operation at a time per repository: concurrent ``worktree add`` calls race on
    # the repository's own files. The lock file lives in our work dir, not in the user's repo.
    locks = work_root / ".locks"
    locks.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256(str(source).encode()).hexdigest()[:16]
    with FileLock(str(locks / f"{key}.lock")):
        _remove_previous(source, target, use_git)
        if use_git:
            _git(source, "worktree", "add", "--detach", "--force", str(target), task.ref or "HEAD")
        else:
            shutil.copytree(source, target, symlinks=True)
    return target


def _is_git(path: Path) -> bool:
    result = subprocess.run(
        ["git", "-C", str(path), "rev-parse", "--is-inside-work-tree"], capture_output=True, text=True, check=False
    )
    return result.returncode == 0 and result.stdout.strip() == "true"


def _remove_previous(source: Path, target: Path, use_git: bool) -> None:
    if use_git:
        # Tell git the old worktree is gone (a no-op when it never existed).
        subprocess.run(
            ["git", "-C", str(source), "worktree", "remove", "--force", str(target)], capture_output=True, check=False
        )
    if target.exists() or target.is_symlink():
        shutil.rmtree(target, ignore_errors=True)
    if use_git:
        subprocess.run(["git", "-C", str(source), "worktree", "prune"], capture_output=True, check=False)


def _git(repo: Path, *args: str) -> None:
    try:
        result = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False)
    except FileNotFoundError as error:
        raise WorkdirError("git is not installed (needed for a repo task; use isolation: copy)") from error
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        raise WorkdirError(f"git {' '.join(args[:2])} failed: {detail[-1] if detail else result.returncode}")
