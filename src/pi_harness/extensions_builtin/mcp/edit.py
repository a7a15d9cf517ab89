"""Changes to an mcp.json that keep the rest of the file (``pi mcp add/remove``, ``/mcp``).

The file is parsed, one entry of ``mcpServers`` is changed, and it is written back with the
indentation it had (two spaces for a new file) and a final newline, as Pi writes it. Keys the
change does not touch keep their order; other top-level keys are kept. A file that is not an
object with an ``mcpServers`` object is left alone (``ValueError``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from pi_harness.ai.json_values import JsonObject
from pi_harness.extensions_builtin.mcp.config import read_servers_object

_INDENT = re.compile(r"^([ \t]+)\S", re.MULTILINE)


def _edit(path: Path, change: Callable[[JsonObject], bool]) -> bool:
    data, error = read_servers_object(path)
    if data is None:
        raise ValueError(error or f"{path}: unreadable")
    if "mcpServers" not in data:
        data["mcpServers"] = {}
    if not change(data):
        return False
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    found = _INDENT.search(text)
    indent = found.group(1) if found else "  "
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
    return True


def _servers(data: JsonObject) -> JsonObject:
    servers = data["mcpServers"]
    assert isinstance(servers, dict)
    return servers


def add_server(path: Path, name: str, entry: JsonObject) -> bool:
    """Add or replace ``name``; True when an entry was replaced."""
    replaced = False

    def change(data: JsonObject) -> bool:
        nonlocal replaced
        servers = _servers(data)
        replaced = name in servers
        servers[name] = entry
        return True

    _edit(path, change)
    return replaced


def remove_server(path: Path, name: str) -> bool:
    """False when the file does not define ``name`` (the file is then not rewritten)."""
    if not path.is_file():
        return False

    def change(data: JsonObject) -> bool:
        return _servers(data).pop(name, None) is not None

    return _edit(path, change)


def update_server(path: Path, name: str, patch: JsonObject, *, override: bool = False) -> None:
    """Set ``enabled``/``exposure`` of ``name``. Values equal to the defaults are removed from a
    full entry, but kept in a project override (there they replace the global server's value).
    With ``override`` a missing entry is added as an override."""

    def change(data: JsonObject) -> bool:
        servers = _servers(data)
        if name not in servers and override:
            servers[name] = {}
        entry = servers.get(name)
        if not isinstance(entry, dict):
            raise ValueError(f'{path} does not define MCP server "{name}"')
        is_override = not any(key in entry for key in ("command", "url", "type"))
        for key, default in (("enabled", True), ("exposure", "codemode")):
            if key not in patch:
                continue
            if patch[key] == default and not is_override:
                entry.pop(key, None)
            else:
                entry[key] = patch[key]
        return True

    _edit(path, change)
