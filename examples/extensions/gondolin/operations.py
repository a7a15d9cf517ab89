"""Tool operations that act inside the guest, and the mapping between host and guest paths."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from pathlib import PurePosixPath

from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.tools import ExecResult, FileStat

from .guest import WORKSPACE, ContainerGuest, GuestError

IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}


def to_guest(host_cwd: str, path: str) -> str:
    """A path as the guest sees it: the host project directory is /workspace."""
    path = path.strip().removeprefix("@") or WORKSPACE
    root = host_cwd.rstrip("/")
    if path == root or path.startswith(root + "/"):
        return WORKSPACE + path[len(root) :]
    return posixpath.normpath(posixpath.join(WORKSPACE, path))


def to_host(host_cwd: str, guest_path: str) -> str | None:
    """The host path of a guest path inside /workspace (``None`` for anything else)."""
    normal = posixpath.normpath(posixpath.join(WORKSPACE, guest_path))
    if normal == WORKSPACE or normal.startswith(WORKSPACE + "/"):
        return host_cwd.rstrip("/") + normal[len(WORKSPACE) :]
    return None


class GuestFiles:
    """``ReadOperations``, ``WriteOperations``, ``EditOperations`` and ``LsOperations`` in the guest."""

    def __init__(self, guest: ContainerGuest) -> None:
        self.guest = guest

    def _path(self, path: str) -> str:
        return to_guest(self.guest.host_cwd, path)

    async def _test(self, flag: str, path: str) -> bool:
        code, _, _ = await self.guest.run(["test", flag, self._path(path)])
        return code == 0

    async def read_file(self, path: str) -> bytes:
        try:
            return await self.guest.check(["cat", "--", self._path(path)])
        except GuestError as error:
            raise FileNotFoundError(2, str(error), path) from error

    async def access(self, path: str) -> None:
        if not await self._test("-f", path) or not await self._test("-r", path):
            raise FileNotFoundError(2, "No such file", path)

    async def detect_image_mime_type(self, path: str) -> str | None:
        return IMAGE_TYPES.get(PurePosixPath(path).suffix.lower())

    async def write_file(self, path: str, content: bytes) -> None:
        await self.guest.check(["sh", "-c", 'cat > "$1"', "sh", self._path(path)], stdin=content)

    async def mkdir(self, path: str) -> None:
        await self.guest.check(["mkdir", "-p", "--", self._path(path)])

    async def exists(self, path: str) -> bool:
        return await self._test("-e", path)

    async def stat(self, path: str) -> FileStat:
        if not await self.exists(path):
            raise FileNotFoundError(2, "No such file or directory", path)
        return FileStat(is_directory=await self._test("-d", path))

    async def readdir(self, path: str) -> list[str]:
        return [
            name
            for name in (await self.guest.check(["ls", "-1A", "--", self._path(path)])).decode().splitlines()
            if name
        ]


class GuestShell:
    """``BashOperations`` running commands in the guest shell."""

    def __init__(self, guest: ContainerGuest) -> None:
        self.guest = guest

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
        # Only pi's own variables cross over; the host's environment (and its secrets) stays out.
        pi_variables = {name: value for name, value in env.items() if name.startswith("PI_")}
        guest_cwd = to_guest(self.guest.host_cwd, cwd)
        return await self.guest.stream(
            command, guest_cwd, env=pi_variables, on_data=on_data, signal=signal, timeout=timeout
        )
