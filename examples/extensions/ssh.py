"""ssh: let the model work on another machine, over SSH.

Start pi with ``--ssh user@host`` (the remote working directory is the login directory) or
``--ssh user@host:/srv/app``. The ``read``, ``write``, ``edit`` and ``bash`` tools and your
``!commands`` then act on the remote machine, in that directory; paths under the local working
directory are mapped to the remote one. The system prompt names the remote directory, the status
line shows ``SSH: user@host:/srv/app``. Without ``--ssh`` the tools work locally as usual.

Needs the ``ssh`` client with key-based login (no password prompt) and bash on the remote side.
Every operation is one ``ssh`` process; add ``ControlMaster``/``ControlPersist`` to your SSH
config to reuse one connection.

What it shows: a string flag read in ``session_start``, the pluggable tool operations
(``ReadOperations``, ``WriteOperations``, ``EditOperations``, ``BashOperations``) passed to the
built-in tool factories through ``ToolOptions``, overriding built-in tools, ``user_bash`` with
``{"operations": ...}`` and replacing the ``cwd`` section of the system prompt.

Load it with ``pi -e examples/extensions/ssh.py --ssh user@host``.
"""

from __future__ import annotations

import asyncio
import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.extensions import (
    ExtensionAPI,
    ExtensionContext,
    ExtensionEvent,
    ToolDefinition,
    ToolUpdateCallback,
)
from pi_harness.coding.tools import (
    ExecResult,
    ToolOptions,
    create_bash_tool,
    create_edit_tool,
    create_read_tool,
    create_write_tool,
)
from pi_harness.coding.tools.bash_exec import run_shell_command

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


@dataclass(frozen=True)
class Remote:
    host: str  # user@host, as given to ssh
    cwd: str  # the remote working directory
    local_cwd: str  # the session's directory, mapped onto ``cwd``

    def path(self, local: str) -> str:
        if local == self.local_cwd or local.startswith(self.local_cwd.rstrip("/") + "/"):
            return self.cwd.rstrip("/") + local[len(self.local_cwd.rstrip("/")) :] or "/"
        return local

    async def run(self, command: str, stdin: bytes | None = None) -> bytes:
        """Run ``command`` on the remote machine; its stdout, or an error with its stderr."""
        proc = await asyncio.create_subprocess_exec(
            "ssh",
            self.host,
            command,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await proc.communicate(stdin)
        if proc.returncode != 0:
            raise OSError(f"ssh {self.host} failed ({proc.returncode}): {err.decode(errors='replace').strip()}")
        return out


def parse_target(value: str) -> tuple[str, str | None]:
    """``user@host[:/path]`` -> (host, path or None)."""
    host, sep, path = value.partition(":")
    return host, (path or None) if sep else None


class RemoteFiles:
    """Read, write and edit operations on the remote machine."""

    def __init__(self, remote: Remote) -> None:
        self.remote = remote

    def _quoted(self, path: str) -> str:
        return shlex.quote(self.remote.path(path))

    async def read_file(self, path: str) -> bytes:
        return await self.remote.run(f"cat -- {self._quoted(path)}")

    async def access(self, path: str) -> None:
        try:
            await self.remote.run(f"test -f {self._quoted(path)} && test -r {self._quoted(path)}")
        except OSError as error:
            raise FileNotFoundError(2, "No such file or not readable", path) from error

    async def detect_image_mime_type(self, path: str) -> str | None:
        try:
            kind = (await self.remote.run(f"file --mime-type -b -- {self._quoted(path)}")).decode().strip()
        except OSError:
            return None
        return kind if kind in IMAGE_TYPES else None

    async def write_file(self, path: str, content: bytes) -> None:
        await self.remote.run(f"cat > {self._quoted(path)}", stdin=content)

    async def mkdir(self, path: str) -> None:
        await self.remote.run(f"mkdir -p -- {self._quoted(path)}")


class RemoteShell:
    """``BashOperations`` running each command through ``ssh``, in the mapped directory."""

    def __init__(self, remote: Remote) -> None:
        self.remote = remote

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
        # The local environment is not forwarded: the remote login shell has its own.
        remote_command = f"cd {shlex.quote(self.remote.path(cwd))} && {command}"
        return await run_shell_command(
            ["ssh", self.remote.host, remote_command],
            self.remote.local_cwd,
            on_data=on_data,
            signal=signal,
            timeout=timeout,
            env=dict(os.environ),
        )


def extension(pi: ExtensionAPI) -> None:
    pi.register_flag("ssh", type="string", description="Work on a remote machine: user@host or user@host:/path")
    state: dict[str, Remote | None] = {"remote": None}

    def options() -> ToolOptions | None:
        remote = state["remote"]
        if remote is None:
            return None
        files = RemoteFiles(remote)
        return ToolOptions(
            read_operations=files,
            write_operations=files,
            edit_operations=files,
            bash_operations=RemoteShell(remote),
        )

    def override(name: str, factory: Callable[[str, ToolOptions | None], Any]) -> None:
        template = factory(".", None)

        async def execute(
            tool_call_id: str,
            params: dict[str, Any],
            signal: AbortSignal | None,
            on_update: ToolUpdateCallback | None,
            ctx: ExtensionContext | None,
        ) -> Any:
            cwd = ctx.cwd if ctx is not None else os.getcwd()
            return await factory(cwd, options()).execute(tool_call_id, params, signal, on_update)

        pi.register_tool(
            ToolDefinition(
                name=name,
                label=template.label,
                description=template.description,
                parameters=template.parameters,
                execute=execute,
                prepare_arguments=template.prepare_arguments,
                prompt_snippet=template.prompt_snippet,
                prompt_guidelines=template.prompt_guidelines,
            )
        )

    for name, factory in (
        ("read", create_read_tool),
        ("write", create_write_tool),
        ("edit", create_edit_tool),
        ("bash", create_bash_tool),
    ):
        override(name, factory)

    @pi.on("session_start")
    async def connect(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        target = pi.get_flag("ssh")
        if not isinstance(target, str) or not target:
            return
        host, path = parse_target(target)
        probe = Remote(host, "/", ctx.cwd)
        remote_cwd = path or (await probe.run("pwd")).decode().strip()
        state["remote"] = Remote(host, remote_cwd, ctx.cwd)
        ctx.ui.set_status("ssh", f"SSH: {host}:{remote_cwd}")
        ctx.ui.notify(f"Tools run on {host} in {remote_cwd}")

    @pi.on("user_bash")
    def remote_bang(event: ExtensionEvent) -> dict[str, Any] | None:
        remote = state["remote"]
        return {"operations": RemoteShell(remote)} if remote is not None else None

    @pi.on("before_agent_start")
    def remote_cwd_prompt(event: ExtensionEvent) -> None:
        remote, sections = state["remote"], event.sections
        if remote is not None and isinstance(sections, dict):
            sections["cwd"] = f"Current working directory: {remote.cwd} (on {remote.host}, reached over SSH)"
