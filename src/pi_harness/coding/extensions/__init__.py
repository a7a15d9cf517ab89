"""The Python extension system: discovery, loading, the ``pi`` API, ``ctx`` and event dispatch
with Pi's event names and combination semantics (docs/extensions.md).

Everything an extension author needs is importable from here::

    from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ToolResult

Besides ``pi`` and ``ctx``, a few things of the harness itself, so that an extension needs no
other module of pi_harness (the built-in extensions are held to that by an import-linter
contract): where Pi's files are (``agent_dir``, ``project_dir``, ``expand_home``,
``SETTINGS_FILE``, ``MCP_FILE``), ``is_truthy_env`` (how flag variables such as ``PI_OFFLINE``
are read), ``HARNESS_VERSION``, the tool result types (``AgentToolResult``,
``ToolUpdateCallback``) and, for hosts that register providers before a session exists, the
model registration types (``ModelRuntime``, ``ProviderRegistrationError``).
"""

from pi_harness.__about__ import __version__ as HARNESS_VERSION
from pi_harness.agent.types import AgentToolResult, ToolUpdateCallback
from pi_harness.coding.config.paths import MCP_FILE, SETTINGS_FILE, agent_dir, expand_home, is_truthy_env, project_dir
from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionCommandContext, ExtensionContext, StaleContextError
from pi_harness.coding.extensions.events import ExtensionEvent
from pi_harness.coding.extensions.runner import Factory as ExtensionFactory
from pi_harness.coding.extensions.types import (
    CommandDefinition,
    ExtensionErrorRecord,
    FlagDefinition,
    ShortcutDefinition,
    ToolDefinition,
    ToolExposure,
    ToolLoadout,
    ToolNamespace,
    ToolReach,
    ToolResult,
)
from pi_harness.coding.extensions.ui import ExtensionUI, HeadlessUI
from pi_harness.coding.model_runtime import ModelRuntime, ProviderRegistrationError

__all__ = [
    "HARNESS_VERSION",
    "MCP_FILE",
    "SETTINGS_FILE",
    "AgentToolResult",
    "CommandDefinition",
    "ExtensionAPI",
    "ExtensionCommandContext",
    "ExtensionContext",
    "ExtensionErrorRecord",
    "ExtensionEvent",
    "ExtensionFactory",
    "ExtensionUI",
    "FlagDefinition",
    "HeadlessUI",
    "ModelRuntime",
    "ProviderRegistrationError",
    "ShortcutDefinition",
    "StaleContextError",
    "ToolDefinition",
    "ToolExposure",
    "ToolLoadout",
    "ToolNamespace",
    "ToolReach",
    "ToolResult",
    "ToolUpdateCallback",
    "agent_dir",
    "expand_home",
    "is_truthy_env",
    "project_dir",
]
