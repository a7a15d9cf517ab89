"""The Python extension system (extensions.md): discovery, loading, the ``pi`` API, ``ctx`` and
event dispatch with Pi's event names and combination semantics.

Everything an extension author needs is importable from here::

    from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ToolResult
"""

from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionCommandContext, ExtensionContext, StaleContextError
from pi_harness.coding.extensions.events import ExtensionEvent
from pi_harness.coding.extensions.types import (
    CommandDefinition,
    ExtensionErrorRecord,
    FlagDefinition,
    ShortcutDefinition,
    ToolDefinition,
    ToolResult,
)
from pi_harness.coding.extensions.ui import ExtensionUI, HeadlessUI

__all__ = [
    "CommandDefinition",
    "ExtensionAPI",
    "ExtensionCommandContext",
    "ExtensionContext",
    "ExtensionErrorRecord",
    "ExtensionEvent",
    "ExtensionUI",
    "FlagDefinition",
    "HeadlessUI",
    "ShortcutDefinition",
    "StaleContextError",
    "ToolDefinition",
    "ToolResult",
]
