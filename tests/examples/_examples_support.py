"""Shared pieces of the example-extension tests.

* ``load_example`` imports an example module (file or package) by path, the way users copy them;
* ``UIClient`` is an RPC client in-process: the extensions talk to the real ``RpcExtensionUI``
  and the client answers its dialogs from a script (``None`` = never answers);
* ``ExampleHost`` is the smallest ``ExtensionHost`` the examples need (a real in-memory
  ``SessionManager``, an active tool set, recorded messages), so an example's logic can be
  driven with an ``ExtensionRunner`` without an agent session;
* ``git_repo`` creates a real git repository with an identity.
"""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from pi_harness.cli.modes.rpc.ui import RpcExtensionUI
from pi_harness.coding.agent_session import AgentSession
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.extensions.runner import ExtensionRunner
from pi_harness.coding.extensions.types import ExtensionErrorRecord
from pi_harness.coding.sdk import CreateAgentSessionResult, create_agent_session
from pi_harness.coding.session_store import SessionManager
from pi_harness.testing.fake_llm import FakeLLMServer

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "extensions"
DIALOGS = ("select", "confirm", "input", "editor")
_counter = itertools.count(1)


def example_path(name: str) -> Path:
    """``examples/extensions/<name>.py`` or the package directory ``<name>/``."""
    package = EXAMPLES / name
    return package if package.is_dir() else EXAMPLES / f"{name}.py"


def load_example(name: str) -> ModuleType:
    """Import an example under a unique module name (packages keep their relative imports)."""
    path = example_path(name)
    is_package = path.is_dir()
    file = path / "__init__.py" if is_package else path
    module_name = f"example_{name}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(
        module_name, file, submodule_search_locations=[str(path)] if is_package else None
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


class UIClient:
    """Answers ``extension_ui_request`` dialogs in order; records every request it receives.

    An answer is a response body (``{"value": "Yes"}``, ``{"confirmed": True}``,
    ``{"cancelled": True}``) or ``None`` for a user who never answers.
    """

    def __init__(self, *answers: dict[str, Any] | None) -> None:
        self.answers: list[dict[str, Any] | None] = list(answers)
        self.requests: list[dict[str, Any]] = []
        self.ui = RpcExtensionUI(self._receive)

    def _receive(self, record: dict[str, Any]) -> None:
        self.requests.append(record)
        if record["method"] not in DIALOGS:
            return
        answer = self.answers.pop(0) if self.answers else None
        if answer is not None:
            response = {"type": "extension_ui_response", "id": record["id"], **answer}
            asyncio.get_running_loop().call_soon(self.ui.handle_response, response)

    @property
    def dialogs(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] in DIALOGS]

    @property
    def notifications(self) -> list[tuple[str, str]]:
        return [(r["message"], r["notifyType"]) for r in self.requests if r["method"] == "notify"]

    def status(self, key: str) -> str | None:
        """The latest text set for a status key (``None`` once cleared or never set)."""
        text: str | None = None
        for record in self.requests:
            if record["method"] == "setStatus" and record["statusKey"] == key:
                text = record.get("statusText")
        return text

    def widget(self, key: str) -> list[str] | None:
        lines: list[str] | None = None
        for record in self.requests:
            if record["method"] == "setWidget" and record["widgetKey"] == key:
                lines = record.get("widgetLines")
        return lines


class ExampleHost:
    """An ``ExtensionHost`` with the state the examples read and the actions they call."""

    def __init__(self, cwd: Path | str, *, mode: str = "rpc", tools: list[str] | None = None) -> None:
        self.cwd = str(cwd)
        self.mode = mode
        self.session_manager = SessionManager.in_memory(self.cwd)
        self.model_runtime: Any = None
        self.model: Any = None
        self.all_tools = list(tools or ["read", "bash", "edit", "write", "grep", "find", "ls"])
        self.active_tools = ["read", "bash", "edit", "write"]
        self.sent_messages: list[tuple[dict[str, Any], bool, str | None]] = []
        self.user_messages: list[Any] = []

    def is_idle(self) -> bool:
        return True

    def has_pending_messages(self) -> bool:
        return False

    def append_custom_entry(self, custom_type: str, data: Any) -> str:
        entry_id: str = self.session_manager.append_custom(custom_type, data)
        return entry_id

    def get_active_tools(self) -> list[str]:
        return list(self.active_tools)

    def get_all_tools(self) -> list[dict[str, Any]]:
        return [{"name": name, "description": name, "parameters": {}} for name in self.all_tools]

    def set_active_tools(self, names: list[str]) -> None:
        self.active_tools = [name for name in names if name in self.all_tools]

    def refresh_tools(self) -> None:
        return None

    async def send_message(self, message: dict[str, Any], *, trigger_turn: bool, deliver_as: str | None) -> None:
        self.sent_messages.append((message, trigger_turn, deliver_as))

    async def send_user_message(self, content: Any, *, deliver_as: str | None) -> None:
        self.user_messages.append(content)

    def __getattr__(self, name: str) -> Any:  # the examples call nothing else
        raise AttributeError(name)


async def bound_runner(
    name: str,
    host: ExampleHost,
    *,
    client: UIClient | None = None,
    flags: dict[str, Any] | None = None,
) -> tuple[ExtensionRunner, list[ExtensionErrorRecord]]:
    """Load one example from its path (the real loader) and bind it to ``host``."""
    runner = ExtensionRunner(ui=client.ui if client is not None else None, has_ui=client is not None)
    failures = await runner.load_paths([str(example_path(name))])
    assert failures == [], failures
    runner.flag_values.update(flags or {})
    errors: list[ExtensionErrorRecord] = []
    runner.on_error(errors.append)
    runner.bind(host)
    return runner, errors


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout


def git_repo(path: Path, files: dict[str, str] | None = None) -> Path:
    """A repository with one commit of ``files`` and a local identity."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    git(path, "config", "user.name", "Test")
    git(path, "config", "user.email", "test@example.com")
    git(path, "config", "commit.gpgsign", "false")
    for name, text in (files or {"README.md": "hello\n"}).items():
        (path / name).write_text(text)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    return path


# -- sessions through the SDK against the fake LLM server ----------------------------------------

FAKE_API = "openai-completions"


async def sdk_session(
    server: FakeLLMServer,
    cwd: Path,
    *examples: str | Path,
    client: UIClient | None = None,
    flags: dict[str, Any] | None = None,
    settings: dict[str, Any] | None = None,
    **options: Any,
) -> CreateAgentSessionResult:
    """A session on the fake server's model with ``examples`` (names, or paths of copies) loaded and bound
    (RPC-style UI when ``client`` is given, print mode without one). Returns the SDK result."""
    options.setdefault("model", server.model(FAKE_API))
    options.setdefault("api_keys", {"fake": "test-key"})
    options.setdefault("session_manager", SessionManager.in_memory(str(cwd)))
    result = await create_agent_session(
        cwd=str(cwd),
        settings_manager=SettingsManager.in_memory(settings or {}),
        extension_paths=[str(name if isinstance(name, Path) else example_path(name)) for name in examples],
        extension_flags=flags or {},
        **options,
    )
    assert result.diagnostics == [], result.diagnostics
    await result.session.bind_extensions(
        ui=client.ui if client is not None else None,
        has_ui=client is not None,
        mode="rpc" if client is not None else "print",
    )
    return result


def tool_results(session: AgentSession) -> list[tuple[str, bool, str]]:
    """``(toolName, isError, text)`` of every tool result in the session's context."""
    out: list[tuple[str, bool, str]] = []
    for message in session.get_messages():
        if message["role"] == "toolResult":
            text = "".join(block.get("text", "") for block in message["content"] if block["type"] == "text")
            out.append((message["toolName"], bool(message.get("isError")), text))
    return out
