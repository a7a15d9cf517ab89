"""Helpers for the built-in extension tests: a small host and a runner bound to it.

The AgentSession is not needed here: ``MiniHost`` implements the parts of ``ExtensionHost`` the
built-ins use (cwd, active tools), and tools are called the way the agent calls them:
``definition.execute(tool_call_id, params, signal, on_update, ctx)``.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_harness.coding.extensions.runner import ExtensionRunner, ProviderAction
from pi_harness.coding.extensions.types import ExtensionErrorRecord, ToolDefinition
from pi_harness.coding.extensions.ui import HeadlessUI

FIXTURES = Path(__file__).resolve().parent / "fixtures"


class MiniHost:
    """Enough of ExtensionHost for the built-ins: cwd, mode and the active tool set."""

    def __init__(self, runner: ExtensionRunner, cwd: str) -> None:
        self.runner = runner
        self.cwd = cwd
        self.mode = "print"
        self.session_manager = None
        self.model_runtime = None
        self.model = None
        self.active: list[str] = []
        self._known: set[str] = set()

    def tools_changed(self) -> None:
        # Like the session: a tool first registered later joins the active set when its exposure
        # declares it (direct or model-only) and it does not ask to start inactive.
        for definition, _path in self.runner.tool_definitions():
            if definition.name not in self._known:
                self._known.add(definition.name)
                declarable = (definition.exposure or "direct") in ("direct", "model-only")
                if declarable and definition.default_active is not False:
                    self.active.append(definition.name)

    def get_all_tools(self) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        for definition, _path in self.runner.tool_definitions():
            info: dict[str, Any] = {
                "name": definition.name,
                "description": definition.description,
                "parameters": definition.parameters,
                "exposure": definition.exposure or "direct",
            }
            if definition.namespace is not None:
                info["namespace"] = definition.namespace.to_dict()
            if definition.reaches_tools is not None:
                info["reachesTools"] = definition.reaches_tools
            tools.append(info)
        return tools

    def get_active_tools(self) -> list[str]:
        return list(self.active)

    def set_active_tools(self, names: list[str]) -> None:
        self.active = [n for n in names if n in self._known]

    def is_idle(self) -> bool:
        return True

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(name)


class RecordingUI(HeadlessUI):
    """A headless UI that remembers notifications."""

    def __init__(self) -> None:
        self.notifications: list[tuple[str, str]] = []

    def notify(self, message: str, type: str = "info") -> None:
        self.notifications.append((type, message))


class Harness:
    def __init__(self, runner: ExtensionRunner, host: MiniHost, errors: list[ExtensionErrorRecord]) -> None:
        self.runner = runner
        self.host = host
        self.errors = errors

    def tools(self) -> dict[str, ToolDefinition]:
        return {definition.name: definition for definition, _ in self.runner.tool_definitions()}

    async def call(self, name: str, params: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        definition = self.tools()[name]
        result: dict[str, Any] = await definition.execute(
            "call-1", params, kwargs.get("signal"), kwargs.get("on_update"), self.runner.create_context()
        )
        return result

    async def start(self) -> None:
        await self.runner.emit("session_start", {"reason": "startup"})

    async def shutdown(self) -> None:
        await self.runner.emit("session_shutdown", {})


async def make_harness(
    factory: Callable[..., Any],
    cwd: Path,
    *,
    path: str = "builtin:test",
    apply_provider: Callable[[ProviderAction], None] | None = None,
    ui: Any = None,
) -> Harness:
    runner = ExtensionRunner(ui=ui, has_ui=ui is not None)
    await runner.load_factory(factory, path)
    errors: list[ExtensionErrorRecord] = []
    runner.on_error(errors.append)
    host = MiniHost(runner, str(cwd))
    runner.bind(host, apply_provider=apply_provider, on_tools_changed=host.tools_changed)  # type: ignore[arg-type]
    host.tools_changed()
    return Harness(runner, host, errors)


def stdio_server_entry(*extra: str) -> dict[str, Any]:
    """The fixture server with ``direct`` exposure (declared to the model; Pi's default is codemode)."""
    return {"command": sys.executable, "args": [str(FIXTURES / "mcp_stdio_server.py"), *extra], "exposure": "direct"}


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture
async def harness() -> AsyncIterator[Callable[..., Any]]:
    """``await harness(factory, cwd, ...)`` → a runner bound to a MiniHost (see ``make_harness``).

    Every harness is shut down at teardown too (``session_shutdown`` may run any number of times),
    so a failing test does not leave server connections running into the loop's close."""
    made: list[Harness] = []

    async def make(*args: Any, **kwargs: Any) -> Harness:
        h = await make_harness(*args, **kwargs)
        made.append(h)
        return h

    yield make
    for h in made:
        await h.shutdown()


@pytest.fixture
def metadata_server() -> Any:
    """The ``MetadataServer`` class of ``fixtures/local_server_metadata.py`` (a loopback server)."""
    spec = importlib.util.spec_from_file_location("local_server_metadata", FIXTURES / "local_server_metadata.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.MetadataServer


@pytest.fixture
def recording_ui() -> RecordingUI:
    return RecordingUI()


@pytest.fixture
def stdio_entry() -> Callable[..., dict[str, Any]]:
    """An mcp.json entry that starts the fixture stdio server (extra args passed through)."""
    return stdio_server_entry


class HttpFixtureServer:
    def __init__(self, process: subprocess.Popen[str], port: int) -> None:
        self.process = process
        self.port = port
        self.url = f"http://127.0.0.1:{port}/mcp"

    def stats(self) -> dict[str, Any]:
        import httpx2

        data: dict[str, Any] = httpx2.get(f"http://127.0.0.1:{self.port}/stats", timeout=5).json()
        return data

    def calls(self, method: str) -> int:
        return int(self.stats()["methods"].get(method, 0))


@pytest.fixture
def mcp_http_server() -> Iterator[Callable[..., HttpFixtureServer]]:
    """``mcp_http_server("--fail-method", "tools/list:2")`` starts the streamable-HTTP fixture."""
    started: list[subprocess.Popen[str]] = []

    def start(*args: str) -> HttpFixtureServer:
        process = subprocess.Popen(
            [sys.executable, str(FIXTURES / "mcp_http_server.py"), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        started.append(process)
        assert process.stdout is not None
        port = int(process.stdout.readline())
        server = HttpFixtureServer(process, port)
        for _ in range(200):  # the socket is bound before uvicorn starts serving
            try:
                server.stats()
                break
            except Exception:
                time.sleep(0.025)
        return server

    yield start
    for process in started:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
