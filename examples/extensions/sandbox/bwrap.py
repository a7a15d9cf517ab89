"""Running commands inside bubblewrap (``bwrap``): the mount plan and a ``BashOperations``.

The sandbox sees the whole file system read-only (``--ro-bind / /``), with fresh ``/dev`` and
``/proc``, and these exceptions, applied in this order so later ones win:

1. ``allowWrite`` paths (default: the working directory and ``/tmp``) are writable;
2. existing files matching ``denyWrite`` inside those paths are read-only again (bubblewrap can
   only protect files that exist when the command starts);
3. ``denyRead`` paths are hidden: an empty tmpfs over a directory, ``/dev/null`` over a file.

It always gets private PID, IPC and network namespaces: no network at all, unless a proxy is
given, which ``bridge.py`` makes reachable on ``127.0.0.1:<PROXY_PORT>`` inside the sandbox.
``enableWeakerNestedSandbox`` drops the PID namespace and mounts the host's ``/proc``, for
containers that do not allow mounting a new ``/proc``.
"""

from __future__ import annotations

import asyncio
import fnmatch
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.tools import ExecResult, LocalBashOperations, resolve_shell

from .config import SandboxConfig

PROXY_PORT = 3128
BRIDGE_SCRIPT = str(Path(__file__).with_name("bridge.py"))
SKIPPED_DIRECTORIES = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache"})
MAX_SCANNED_ENTRIES = 20_000
MAX_SCAN_DEPTH = 6


def expand(path: str, cwd: str) -> str:
    """``~`` expanded, relative paths resolved against ``cwd``."""
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))


def _walk(root: str) -> Iterator[str]:
    """Files under ``root``, bounded in depth and count, skipping dependency and VCS folders."""
    seen = 0
    base_depth = root.rstrip(os.sep).count(os.sep)
    for directory, dirs, files in os.walk(root):
        if directory.count(os.sep) - base_depth >= MAX_SCAN_DEPTH:
            dirs.clear()
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRECTORIES]
        for name in files:
            seen += 1
            if seen > MAX_SCANNED_ENTRIES:
                return
            yield os.path.join(directory, name)


def deny_write_matches(patterns: list[str], writable: list[str], cwd: str) -> list[str]:
    """Existing files in writable directories that ``denyWrite`` protects.

    A pattern without ``/`` matches file names anywhere below a writable directory (except the
    shared ``/tmp``); a pattern with ``/`` is a path (glob) relative to ``cwd``.
    """
    name_patterns = [p for p in patterns if "/" not in p]
    path_patterns = [expand(p, cwd) for p in patterns if "/" in p]
    matches: set[str] = set()
    for root in writable:
        if root == "/tmp" or not os.path.isdir(root) or not name_patterns:
            continue
        for file in _walk(root):
            if any(fnmatch.fnmatchcase(os.path.basename(file), p) for p in name_patterns):
                matches.add(file)
    for pattern in path_patterns:
        matches.update(str(p) for p in Path("/").glob(pattern.lstrip("/")) if p.exists())
    return sorted(matches)


@dataclass
class SandboxPolicy:
    config: SandboxConfig
    proxy_socket: str | None = None  # set when network access goes through the domain filter
    bwrap: str = field(default_factory=lambda: shutil.which("bwrap") or "bwrap")

    def namespace_args(self) -> list[str]:
        args = [self.bwrap, "--die-with-parent", "--unshare-ipc", "--unshare-net", "--unshare-uts"]
        if self.config["enableWeakerNestedSandbox"]:
            return [*args, "--ro-bind", "/", "/", "--dev", "/dev", "--ro-bind", "/proc", "/proc"]
        return [*args, "--unshare-pid", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]

    def argv(self, cwd: str) -> list[str]:
        """The ``bwrap ... --`` prefix for a command run in ``cwd``."""
        filesystem = self.config["filesystem"]
        args = self.namespace_args()
        writable = [path for path in (expand(p, cwd) for p in filesystem["allowWrite"]) if os.path.exists(path)]
        for path in writable:
            args += ["--bind", path, path]
        for path in deny_write_matches(filesystem["denyWrite"], writable, cwd):
            args += ["--ro-bind", path, path]
        if self.proxy_socket is not None:
            directory = os.path.dirname(self.proxy_socket)
            args += ["--bind", directory, directory]
        for path in (expand(p, cwd) for p in filesystem["denyRead"]):
            if os.path.isdir(path):
                args += ["--tmpfs", path]
            elif os.path.exists(path):
                args += ["--ro-bind", "/dev/null", path]
        args += ["--chdir", cwd, "--"]
        if self.proxy_socket is not None:
            args += [sys.executable, "-I", "-S", BRIDGE_SCRIPT, self.proxy_socket, str(PROXY_PORT), "--"]
        return args

    def environment(self, env: dict[str, str]) -> dict[str, str]:
        """The command's environment: proxy variables when the network goes through the filter."""
        if self.proxy_socket is None:
            return dict(env)
        proxy = f"http://127.0.0.1:{PROXY_PORT}"
        names = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
        return {**env, **dict.fromkeys(names, proxy), "NO_PROXY": "", "no_proxy": ""}


class SandboxedBashOperations:
    """``BashOperations`` running every command through bubblewrap with ``policy``."""

    def __init__(self, policy: SandboxPolicy, *, shell: str | None = None) -> None:
        self.policy = policy
        self.shell = shell or resolve_shell().shell

    async def exec(
        self,
        command: str,
        cwd: str,
        *,
        on_data: Callable[[bytes], None],
        signal: AbortSignal | None,
        timeout: float | None,
        env: dict[str, str],
    ) -> ExecResult:
        real_cwd = os.path.realpath(cwd)
        argv = await asyncio.to_thread(self.policy.argv, real_cwd)
        local = LocalBashOperations(shell_argv=[*argv, self.shell, "-c"])
        return await local.exec(
            command, real_cwd, on_data=on_data, signal=signal, timeout=timeout, env=self.policy.environment(env)
        )


async def probe(policy: SandboxPolicy, cwd: str) -> str | None:
    """``None`` when bubblewrap can build this sandbox here, else the reason it cannot."""
    if not sys.platform.startswith("linux"):
        return f"not supported on {sys.platform} (bubblewrap needs Linux)"
    if shutil.which(policy.bwrap) is None:
        return "bubblewrap (bwrap) is not installed"
    try:
        process = await asyncio.create_subprocess_exec(
            *policy.argv(os.path.realpath(cwd)),
            "/bin/sh",
            "-c",
            "true",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        _, stderr = await asyncio.wait_for(process.communicate(), 10)
    except (OSError, TimeoutError) as error:
        return f"bubblewrap failed to start: {error}"
    if process.returncode != 0:
        return f"bubblewrap cannot create the sandbox: {stderr.decode(errors='replace').strip()}"
    return None
