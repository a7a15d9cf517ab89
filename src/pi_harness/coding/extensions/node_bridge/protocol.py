"""Errors and records shared by the bridge's parts."""

from __future__ import annotations

from dataclasses import dataclass, field

from pi_harness.coding.extensions.api import ExtensionAPI


class NodeExtensionError(Exception):
    """An error raised by the JavaScript side (its message and stack)."""

    def __init__(self, message: str, stack: str | None = None) -> None:
        super().__init__(message)
        self.js_stack = stack


class SidecarDied(Exception):
    """The Node process ended while a request was waiting for its answer."""


SIDECAR_DIED = "The Node extension host stopped while this was running; it restarts on the next use"


@dataclass
class BridgedExtension:
    """One TypeScript/JavaScript extension: its id in the sidecar and what it registered."""

    id: str
    path: str
    api: ExtensionAPI
    registered: set[tuple[str, str]] = field(default_factory=set)
    flags: list[str] = field(default_factory=list)
