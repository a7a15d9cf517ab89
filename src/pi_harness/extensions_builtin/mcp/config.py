"""mcp.json: which MCP servers to start, read as Pi 1.4.0 reads it (docs/mcp.md).

Files: ``<agentDir>/mcp.json`` (global) and ``<cwd>/.pi/mcp.json`` (project, read only for a
trusted project), both in the ``mcpServers`` shape other MCP clients use::

    {"mcpServers": {
        "files": {"command": "npx", "args": ["-y", "server"], "env": {"K": "${V}"}, "exposure": "direct"},
        "docs":  {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
        "off":   {"command": "x", "enabled": false}
    }}

Server names are ``[A-Za-z0-9_-]+``; two names that differ only in ``-`` and ``_`` clash (the
second is rejected). A ``url`` selects streamable HTTP and a ``command`` stdio; ``type`` may say
``stdio``, ``http`` or ``streamable-http``, and ``sse`` is rejected. Both kinds take ``timeout``
(seconds per request, default 60), ``enabled``, ``exposure`` (``codemode`` by default,
``deferred``, ``direct`` or ``hidden``; ``codemode-deferred`` means ``codemode``), ``toolExposure``
(per tool, exact names or ``*`` patterns) and ``description``; HTTP servers also ``oauth`` and
``auth`` (global file only). ``env`` and ``headers`` values are resolved when the server connects
(``values.py``); a leading ``~/`` in ``command``, an argument or ``cwd`` names the home directory.

A project entry without ``command``, ``url`` or ``type`` only overrides ``enabled``, ``exposure``
and ``toolExposure`` of the global server of that name and keeps the rest of it. Any other project
entry replaces the global one.

Loading never raises: a file that cannot be parsed is skipped as a whole, an invalid entry alone,
and each problem becomes a message in ``McpConfig.errors``; keys Pi does not know are named in
``warnings`` (logged, not shown).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, TypedDict

from pi_harness.ai.json_values import JsonObject
from pi_harness.coding.extensions import MCP_FILE, expand_home, project_dir
from pi_harness.extensions_builtin.mcp.exposure import (
    EXPOSURES,
    Exposure,
    is_exposure,
    resolve_alias,
    tool_exposure,
)
from pi_harness.extensions_builtin.mcp.names import SERVER_NAME, namespace
from pi_harness.extensions_builtin.mcp.oauth_config import validate_oauth

Transport = Literal["stdio", "http"]
Scope = Literal["global", "project"]

DEFAULT_TIMEOUT_S = 60.0
_HTTP_TYPES = frozenset({"http", "streamable-http"})
OVERRIDE_KEYS = ("enabled", "exposure", "toolExposure")
_KNOWN_KEYS = frozenset(
    {
        "type",
        "command",
        "args",
        "env",
        "cwd",
        "url",
        "headers",
        "enabled",
        "exposure",
        "toolExposure",
        "description",
        "timeout",
        "oauth",
        "auth",
    }
)


@dataclass(frozen=True)
class McpServerConfig:
    name: str
    transport: Transport
    source: str  # the mcp.json file that defines the server
    scope: Scope = "global"
    override: str | None = None  # the project mcp.json that overrides enabled/exposure, if any
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)  # unresolved (values.py resolves them)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)  # unresolved
    enabled: bool = True
    exposure: Exposure = "codemode"
    tool_exposures: tuple[tuple[str, Exposure], ...] = ()  # in file order: patterns match first-wins
    description: str | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    oauth: JsonObject | None = None
    auth_provider: str | None = None
    raw: JsonObject = field(default_factory=dict)  # the entry as written, for project overrides

    @property
    def disabled(self) -> bool:
        return not self.enabled

    def exposure_of(self, tool: str) -> Exposure:
        return tool_exposure(self.exposure, self.tool_exposures, tool)

    @property
    def configured_exposures(self) -> set[Exposure]:
        """Exposures its tools can have, known before it connects."""
        return {self.exposure, *(value for _pattern, value in self.tool_exposures)}

    @property
    def exposes_direct_tools(self) -> bool:
        """Some of its tools may be declared to the model, so the first prompt waits for it."""
        return "direct" in self.configured_exposures

    @property
    def has_indirect_tools(self) -> bool:
        return bool({"codemode", "deferred"} & self.configured_exposures)

    @property
    def uses_oauth(self) -> bool:
        """HTTP servers sign in with OAuth unless an Authorization header or ``auth`` is configured."""
        if self.transport != "http" or self.auth_provider:
            return False
        return not any(key.lower() == "authorization" for key in self.headers)


@dataclass
class McpConfig:
    servers: dict[str, McpServerConfig] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    # A project mcp.json that exists but was not read because the project is not trusted: listed
    # so "no servers" can say why instead of looking like an empty configuration.
    untrusted_files: list[Path] = field(default_factory=list)
    project_file: Path | None = None  # the trusted project's mcp.json (whether or not it exists)
    # Pi's top-level switch for activating codemode; kept for when a codemode tool exists.
    auto_enable_codemode: bool = True

    @property
    def enabled(self) -> list[McpServerConfig]:
        return [server for server in self.servers.values() if server.enabled]


def config_paths(agent_directory: Path, cwd: str | os.PathLike[str], *, project_trusted: bool) -> list[Path]:
    """The mcp.json files that apply, global first (later files override earlier ones)."""
    paths = [agent_directory / MCP_FILE]
    if project_trusted:
        paths.append(project_dir(cwd) / MCP_FILE)
    return paths


def load_mcp_config(
    agent_directory: Path,
    cwd: str | os.PathLike[str],
    *,
    project_trusted: bool,
) -> McpConfig:
    """Read and validate the global and (when trusted) project mcp.json; never raises."""
    config = McpConfig()
    paths = config_paths(agent_directory, cwd, project_trusted=project_trusted)
    scopes: tuple[Scope, ...] = ("global", "project")
    for path, scope in zip(paths, scopes, strict=False):
        if path.is_file():
            config.files.append(path)
            _load_file(path, scope, config)
    if project_trusted:
        config.project_file = paths[-1]
    elif (project_dir(cwd) / MCP_FILE).is_file():
        config.untrusted_files.append(project_dir(cwd) / MCP_FILE)
    return config


def read_servers_object(path: Path) -> tuple[JsonObject | None, str | None]:
    """The parsed file and an error; a file that is absent is an empty object."""
    if not path.is_file():
        return {}, None
    try:
        text = path.read_text(encoding="utf-8").lstrip("\ufeff")
        data: object = json.loads(text) if text.strip() else {}
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return None, f"{path}: {exc}"
    if not isinstance(data, dict) or ("mcpServers" in data and not isinstance(data["mcpServers"], dict)):
        return None, f'{path}: expected an object with an "mcpServers" object'
    return data, None


def _load_file(path: Path, scope: Scope, config: McpConfig) -> None:
    data, error = read_servers_object(path)
    if data is None:
        config.errors.append(error or f"{path}: unreadable")
        return
    auto = data.get("autoEnableCodemode")
    if auto is not None and not isinstance(auto, bool):
        config.errors.append(f"{path}: autoEnableCodemode must be a boolean")
    elif auto is not None:
        config.auto_enable_codemode = auto  # a later (project) file wins
    servers = data.get("mcpServers") or {}
    assert isinstance(servers, dict)
    for key, raw in servers.items():
        name = str(key)
        if scope == "project" and isinstance(raw, dict) and _is_override(raw):
            _apply_override(name, raw, path, config)
            continue
        try:
            server = parse_server(name, raw, str(path), scope)
        except InvalidServer as exc:
            config.errors.append(f"{path}: {exc}")
            continue
        clash = next((o for o in config.servers if o != name and namespace(o) == namespace(name)), None)
        if clash is not None:
            config.errors.append(f'{path}: server "{name}" conflicts with "{clash}"')
            continue
        if scope == "project" and server.auth_provider:
            config.errors.append(f'{path}: server "{name}": auth is only allowed in the global mcp.json')
            continue
        _warn_unknown(server, config.warnings)
        config.servers.pop(name, None)  # a project entry also takes the later position
        config.servers[name] = server


def _is_override(raw: Mapping[str, object]) -> bool:
    return "command" not in raw and "url" not in raw and "type" not in raw


def _apply_override(name: str, raw: JsonObject, path: Path, config: McpConfig) -> None:
    base = config.servers.get(name)
    if base is None:
        config.errors.append(f'{path}: server "{name}" needs "command" or "url", or a global server to override')
        return
    if any(key not in OVERRIDE_KEYS for key in raw):
        config.errors.append(f'{path}: server "{name}": an override can only set {", ".join(OVERRIDE_KEYS)}')
        return
    try:
        merged = parse_server(name, {**base.raw, **raw}, base.source, base.scope)
    except InvalidServer as exc:
        config.errors.append(f"{path}: {exc}")
        return
    config.servers[name] = replace(merged, override=str(path))


def _warn_unknown(server: McpServerConfig, warnings: list[str]) -> None:
    unknown = sorted(set(server.raw) - _KNOWN_KEYS)
    if unknown:
        warnings.append(f'MCP server "{server.name}" in {server.source}: ignoring unknown keys {", ".join(unknown)}')


class InvalidServer(ValueError):
    pass


class _Common(TypedDict):
    """The fields of ``McpServerConfig`` both transports share."""

    name: str
    source: str
    scope: Scope
    enabled: bool
    exposure: Exposure
    tool_exposures: tuple[tuple[str, Exposure], ...]
    description: str | None
    timeout_s: float
    raw: JsonObject


def parse_server(name: str, raw: object, source: str, scope: Scope = "global") -> McpServerConfig:
    """One validated entry (``InvalidServer`` with a one-line reason otherwise)."""
    if not SERVER_NAME.match(name):
        raise InvalidServer(f'invalid server name "{name}" (use letters, digits, "_" and "-")')
    if not isinstance(raw, dict):
        raise InvalidServer(f'server "{name}" must be an object')
    entry: JsonObject = dict(raw)
    bad = f'server "{name}":'
    exposure = resolve_alias(entry.get("exposure", "codemode"))
    choices = ", ".join(f'"{e}"' for e in EXPOSURES)
    if not is_exposure(exposure):
        raise InvalidServer(f"{bad} exposure must be one of {choices}")
    overrides = entry.get("toolExposure", {})
    if not isinstance(overrides, dict):
        raise InvalidServer(f"{bad} toolExposure must map tool names to exposures")
    tool_exposures: list[tuple[str, Exposure]] = []
    for tool, written in overrides.items():
        value = resolve_alias(written)
        if not is_exposure(value):
            raise InvalidServer(f'{bad} toolExposure "{tool}" must be one of {choices}')
        tool_exposures.append((str(tool), value))
    enabled = entry.get("enabled", True)
    if not isinstance(enabled, bool):
        raise InvalidServer(f"{bad} enabled must be a boolean")
    description = entry.get("description")
    if description is not None and not isinstance(description, str):
        raise InvalidServer(f"{bad} description must be a string")
    timeout = entry.get("timeout", DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
        raise InvalidServer(f"{bad} timeout must be a positive number of seconds")
    kind = entry.get("type")
    if kind == "sse":
        raise InvalidServer(f"{bad} the legacy SSE transport is not supported; use the streamable HTTP URL")
    common: _Common = {
        "name": name,
        "source": source,
        "scope": scope,
        "enabled": enabled,
        "exposure": exposure,
        "tool_exposures": tuple(tool_exposures),
        "description": description,
        "timeout_s": float(timeout),
        "raw": entry,
    }
    url = entry.get("url")
    if isinstance(url, str) and (kind is None or kind in _HTTP_TYPES):
        return _http_server(bad, url, entry, common)
    command = entry.get("command")
    if isinstance(command, str) and (kind is None or kind == "stdio"):
        return _stdio_server(bad, command, entry, common)
    raise InvalidServer(f'server "{name}" needs either "command" (stdio) or "url" (streamable HTTP)')


def _http_server(bad: str, url: str, entry: JsonObject, common: _Common) -> McpServerConfig:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidServer(f"{bad} url must be an http or https URL")
    headers = _string_map(entry, "headers", f"{bad} headers must map names to strings")
    oauth = entry.get("oauth")
    problem = validate_oauth(oauth)
    if problem:
        raise InvalidServer(f"{bad} {problem}")
    provider: str | None = None
    auth = entry.get("auth")
    if auth is not None:
        if not isinstance(auth, dict) or not isinstance(auth.get("provider"), str) or not auth["provider"]:
            raise InvalidServer(f"{bad} auth.provider must be a provider name")
        if parts.scheme != "https" and parts.hostname not in ("localhost", "127.0.0.1", "::1"):
            raise InvalidServer(f"{bad} auth requires an https URL, or http on localhost, 127.0.0.1, or [::1]")
        provider = str(auth["provider"])
    return McpServerConfig(
        transport="http",
        url=url,
        headers=headers,
        oauth=dict(oauth) if isinstance(oauth, dict) else None,
        auth_provider=provider,
        **common,
    )


def _stdio_server(bad: str, command: str, entry: JsonObject, common: _Common) -> McpServerConfig:
    if not command.strip():
        raise InvalidServer(f"{bad} command must be a non-empty string")
    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise InvalidServer(f"{bad} args must be an array of strings")
    env = _string_map(entry, "env", f"{bad} env must map names to strings")
    cwd = entry.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise InvalidServer(f"{bad} cwd must be a string")
    return McpServerConfig(
        transport="stdio",
        command=expand_home(command),
        args=tuple(expand_home(str(a)) for a in args),
        env=env,
        cwd=expand_home(cwd) if cwd is not None else None,
        **common,
    )


def _string_map(raw: Mapping[str, object], key: str, message: str) -> dict[str, str]:
    value = raw.get(key, {})
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise InvalidServer(message)
    return {str(k): str(v) for k, v in value.items()}
