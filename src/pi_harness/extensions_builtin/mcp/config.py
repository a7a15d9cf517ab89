"""mcp.json: which MCP servers to start (docs/extensions.md, "MCP servers").

Files: ``<agentDir>/mcp.json`` (global) and ``<cwd>/.pi/mcp.json`` (project, read only for a
trusted project). Both use the shape shared by Claude Code, Cursor and Pi's MCP adapters::

    {"mcpServers": {
        "files": {"command": "npx", "args": ["-y", "server"], "env": {"K": "v"}, "cwd": "."},
        "docs":  {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
        "off":   {"command": "x", "disabled": true}
    }}

Per server: ``command``/``args``/``env``/``cwd`` (stdio) or ``url``/``headers`` (streamable
HTTP); optional ``type`` (``stdio``, ``http``/``streamable-http``), ``disabled`` (or
``enabled: false``), ``directTools`` (``true`` = every tool active, the default; ``false`` = tools
registered but inactive; a list = only those tools active) and ``timeout`` (per-request timeout in
ms, default 60000). ``${VAR}`` and ``${VAR:-default}`` expand in command, args, env, cwd, url and
headers. Project entries replace global entries of the same name. A stdio server gets the SDK's
safe environment (HOME, PATH, SHELL, TERM, USER, LOGNAME) plus its ``env``; a relative ``cwd``
is taken from the session's working directory, which is also the default.

Loading never raises: a file that cannot be parsed is ignored as a whole, an invalid server entry
is skipped, and each problem becomes a message in ``McpConfig.errors``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypedDict

from pi_harness.coding.extensions import MCP_FILE, expand_home, project_dir

Transport = Literal["stdio", "http"]

_HTTP_TYPES = frozenset({"http", "streamable-http", "streamable_http", "streamableHttp"})
_KNOWN_KEYS = frozenset(
    {"type", "command", "args", "env", "cwd", "url", "headers", "disabled", "enabled", "directTools", "timeout"}
)
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass(frozen=True)
class McpServerConfig:
    name: str
    transport: Transport
    source: str  # the mcp.json file the entry came from
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    disabled: bool = False
    direct_tools: bool | tuple[str, ...] = True
    timeout_s: float | None = None

    @property
    def exposes_direct_tools(self) -> bool:
        """True when at least one of its tools is meant to be active (the first prompt waits for it)."""
        return self.direct_tools is True or (isinstance(self.direct_tools, tuple) and bool(self.direct_tools))

    def is_direct(self, tool_name: str) -> bool:
        if isinstance(self.direct_tools, bool):
            return self.direct_tools
        return tool_name in self.direct_tools


@dataclass
class McpConfig:
    servers: dict[str, McpServerConfig] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    # A project mcp.json that exists but was not read because the project is not trusted: listed
    # so "no servers" can say why instead of looking like an empty configuration.
    untrusted_files: list[Path] = field(default_factory=list)

    @property
    def enabled(self) -> list[McpServerConfig]:
        return [server for server in self.servers.values() if not server.disabled]


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
    environ: Mapping[str, str] | None = None,
) -> McpConfig:
    """Read and validate the global and (when trusted) project mcp.json; never raises."""
    config = McpConfig()
    env = os.environ if environ is None else environ
    for path in config_paths(agent_directory, cwd, project_trusted=project_trusted):
        if not path.is_file():
            continue
        config.files.append(path)
        for server in _load_file(path, config, env):
            config.servers.pop(server.name, None)  # a project entry also takes the later position
            config.servers[server.name] = server
    if not project_trusted and (project_dir(cwd) / MCP_FILE).is_file():
        config.untrusted_files.append(project_dir(cwd) / MCP_FILE)
    return config


def _load_file(path: Path, config: McpConfig, env: Mapping[str, str]) -> list[McpServerConfig]:
    try:
        text = path.read_text(encoding="utf-8")
        data: object = json.loads(text) if text.strip() else {}
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        config.errors.append(f"Failed to parse {path}: {exc}")
        return []
    if not isinstance(data, dict):
        config.errors.append(f"Invalid MCP config {path}: the top level must be a JSON object")
        return []
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        config.errors.append(f'Invalid MCP config {path}: "mcpServers" must be an object')
        return []
    out: list[McpServerConfig] = []
    for name, raw in servers.items():
        try:
            out.append(_parse_server(str(name), raw, str(path), env, config.warnings))
        except _InvalidServer as exc:
            config.errors.append(f'Invalid MCP server "{name}" in {path}: {exc}')
    return out


class _InvalidServer(ValueError):
    pass


class _CommonFields(TypedDict):
    """The fields of ``McpServerConfig`` both transports share."""

    name: str
    source: str
    disabled: bool
    direct_tools: bool | tuple[str, ...]
    timeout_s: float | None


def _parse_server(name: str, raw: object, source: str, env: Mapping[str, str], warnings: list[str]) -> McpServerConfig:
    if not isinstance(raw, dict):
        raise _InvalidServer("the entry must be an object")
    if not name.strip():
        raise _InvalidServer("the server name must not be empty")
    unknown = sorted(set(raw) - _KNOWN_KEYS)
    if unknown:
        warnings.append(f'MCP server "{name}" in {source}: ignoring unknown keys {", ".join(unknown)}')

    def expand(value: str) -> str:
        return _expand(value, env, name, warnings)

    kind = raw.get("type")
    if kind is not None and not isinstance(kind, str):
        raise _InvalidServer('"type" must be a string')
    if kind == "sse":
        raise _InvalidServer('the legacy "sse" transport is not supported; use a streamable HTTP "url"')
    if kind is not None and kind != "stdio" and kind not in _HTTP_TYPES:
        raise _InvalidServer(f'unknown "type" {kind!r} (expected "stdio" or "http")')
    has_command, has_url = "command" in raw, "url" in raw
    if has_command == has_url:
        raise _InvalidServer('exactly one of "command" (stdio) or "url" (HTTP) is required')
    if (kind == "stdio" and has_url) or (kind in _HTTP_TYPES and has_command):
        raise _InvalidServer(f'"type" {kind!r} does not match the given {"url" if has_url else "command"}')

    disabled = _optional_bool(raw, "disabled") or _optional_bool(raw, "enabled", default=True) is False
    direct = raw.get("directTools", True)
    if isinstance(direct, list) and all(isinstance(item, str) for item in direct):
        direct_tools: bool | tuple[str, ...] = tuple(direct)
    elif isinstance(direct, bool):
        direct_tools = direct
    else:
        raise _InvalidServer('"directTools" must be a boolean or an array of tool names')
    timeout = raw.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0):
        raise _InvalidServer('"timeout" must be a positive number of milliseconds')
    common: _CommonFields = {
        "name": name,
        "source": source,
        "disabled": disabled,
        "direct_tools": direct_tools,
        "timeout_s": timeout / 1000 if timeout is not None else None,
    }

    if has_command:
        command = raw["command"]
        if not isinstance(command, str) or not command.strip():
            raise _InvalidServer('"command" must be a non-empty string')
        args = raw.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise _InvalidServer('"args" must be an array of strings')
        server_env = _string_map(raw, "env")
        cwd = raw.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise _InvalidServer('"cwd" must be a string')
        for key in ("url", "headers"):
            if key in raw:
                raise _InvalidServer(f'"{key}" is only valid for HTTP servers')
        return McpServerConfig(
            transport="stdio",
            command=expand(command),
            args=tuple(expand(a) for a in args),
            env={k: expand(v) for k, v in server_env.items()},
            cwd=expand_home(expand(cwd)) if cwd is not None else None,
            **common,
        )

    url = raw["url"]
    if not isinstance(url, str):
        raise _InvalidServer('"url" must be a string')
    url = expand(url)
    if not re.match(r"^https?://[^/\s]+", url):
        raise _InvalidServer(f'"url" must be an http:// or https:// URL, got {url!r}')
    headers = _string_map(raw, "headers")
    for key in ("args", "env", "cwd"):
        if key in raw:
            raise _InvalidServer(f'"{key}" is only valid for stdio servers')
    return McpServerConfig(transport="http", url=url, headers={k: expand(v) for k, v in headers.items()}, **common)


def _optional_bool(raw: Mapping[str, object], key: str, default: bool = False) -> bool:
    value = raw.get(key, default)
    if not isinstance(value, bool):
        raise _InvalidServer(f'"{key}" must be a boolean')
    return value


def _string_map(raw: Mapping[str, object], key: str) -> dict[str, str]:
    value = raw.get(key, {})
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise _InvalidServer(f'"{key}" must be an object of strings')
    return {str(k): v for k, v in value.items()}


def _expand(value: str, env: Mapping[str, str], server: str, warnings: list[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in env:
            return env[name]
        if default is not None:
            return default
        warnings.append(f'MCP server "{server}": environment variable {name} is not set')
        return match.group(0)

    return _VARIABLE.sub(replace, value)
