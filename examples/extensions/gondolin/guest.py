"""The guest machine: a container started once per session, with the project mounted at /workspace.

Pi's example drives a Gondolin micro-VM through its Node.js client; there is no Python client for
Gondolin, so this guest is an OCI container run by ``podman`` or ``docker`` (``PI_GONDOLIN_RUNTIME``
picks one, ``PI_GONDOLIN_IMAGE`` the image). Only the mount is shared with the host; everything
else the guest changes stays in the container and is gone when it is removed.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Callable, Sequence

from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.tools import ExecResult
from pi_harness.coding.tools.bash_exec import run_shell_command

WORKSPACE = "/workspace"
DEFAULT_IMAGE = "docker.io/library/alpine:3"
RUNTIMES = ("podman", "docker")


class GuestError(RuntimeError):
    pass


def find_runtime() -> str | None:
    wanted = os.environ.get("PI_GONDOLIN_RUNTIME")
    for name in [wanted] if wanted else RUNTIMES:
        if name and shutil.which(name):
            return name
    return None


async def _capture(argv: Sequence[str], stdin: bytes | None = None) -> tuple[int, bytes, bytes]:
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate(stdin)
    return proc.returncode or 0, out, err


class ContainerGuest:
    def __init__(self, runtime: str, container_id: str, host_cwd: str, shell: str = "/bin/sh") -> None:
        self.runtime = runtime
        self.id = container_id
        self.host_cwd = host_cwd
        self.shell = shell

    @classmethod
    async def start(cls, runtime: str, host_cwd: str, image: str | None = None) -> ContainerGuest:
        chosen = image or os.environ.get("PI_GONDOLIN_IMAGE") or DEFAULT_IMAGE
        mount = f"{host_cwd}:{WORKSPACE}"
        code, out, err = await _capture(
            [runtime, "run", "-d", "--rm", "-v", mount, "-w", WORKSPACE, chosen, "sleep", "infinity"]
        )
        if code != 0:
            raise GuestError(f"{runtime} could not start the guest: {err.decode(errors='replace').strip()}")
        guest = cls(runtime, out.decode().strip(), host_cwd)
        _, found, _ = await guest.run(["/bin/sh", "-c", "command -v bash || true"])
        guest.shell = found.decode().strip() or "/bin/sh"
        return guest

    async def run(
        self, argv: Sequence[str], *, cwd: str = WORKSPACE, stdin: bytes | None = None
    ) -> tuple[int, bytes, bytes]:
        """Run ``argv`` in the guest and collect its output."""
        interactive = ["-i"] if stdin is not None else []
        return await _capture([self.runtime, "exec", *interactive, "-w", cwd, self.id, *argv], stdin)

    async def check(self, argv: Sequence[str], *, stdin: bytes | None = None) -> bytes:
        code, out, err = await self.run(argv, stdin=stdin)
        if code != 0:
            raise GuestError(err.decode(errors="replace").strip() or f"exit code {code}")
        return out

    async def stream(
        self,
        command: str,
        cwd: str,
        *,
        env: dict[str, str],
        on_data: Callable[[bytes], None],
        signal: AbortSignal | None,
        timeout: float | None,
    ) -> ExecResult:
        """A shell command in the guest with its output streamed (abort and timeout as ``bash``)."""
        variables = [arg for name, value in env.items() for arg in ("-e", f"{name}={value}")]
        return await run_shell_command(
            [self.runtime, "exec", "-w", cwd, *variables, self.id, self.shell, "-lc", command],
            self.host_cwd,
            on_data=on_data,
            signal=signal,
            timeout=timeout,
            env=dict(os.environ),
        )

    async def close(self) -> None:
        await _capture([self.runtime, "rm", "-f", self.id])
