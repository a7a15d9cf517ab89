"""``pi mcp add`` and ``pi mcp remove``: edit mcp.json from a shell, with Pi 1.4.0's options.

``add <server> [options] -- <command> [args...]`` or ``add <server> [options] --url <url>``
writes the entry Pi would write (``command``/``args``/``env``/``cwd``, or ``url``/``headers``/
``oauth``, then ``exposure`` and ``description``), after validating it as mcp.json is validated.
Options stop at the second positional argument, so a server command's own flags pass through.
``-l``/``--local`` uses the project's ``.pi/mcp.json``. Each function returns the lines for
stdout, the lines for stderr and the exit code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pi_harness.ai.json_values import JsonObject, JsonValue
from pi_harness.coding.extensions import MCP_FILE, project_dir
from pi_harness.extensions_builtin.mcp.config import InvalidServer, load_mcp_config, parse_server
from pi_harness.extensions_builtin.mcp.edit import add_server, remove_server

HELP_HINT = 'Use "pi mcp --help" for usage.'
ADD_USAGE = "Usage: pi mcp add <server> [options] (--url <url> | -- <command> [args...])"
REMOVE_USAGE = "Usage: pi mcp remove <server> [-l]"
_ADD_OPTIONS = {
    "local": "flag",
    "url": "value",
    "env": "list",
    "cwd": "value",
    "header": "list",
    "bearer-token-env-var": "value",
    "oauth-client-id": "value",
    "oauth-client-secret": "value",
    "oauth-callback-port": "value",
    "oauth-client-name": "value",
    "exposure": "value",
    "description": "value",
}
_HTTP_ONLY = (
    "header",
    "bearer-token-env-var",
    "oauth-client-id",
    "oauth-client-secret",
    "oauth-callback-port",
    "oauth-client-name",
)
_OAUTH_KEYS = (
    ("oauth-client-id", "clientId"),
    ("oauth-client-secret", "clientSecret"),
    ("oauth-callback-port", "callbackPort"),
    ("oauth-client-name", "clientName"),
)


@dataclass
class Outcome:
    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)
    code: int = 0

    def fail(self, message: str) -> Outcome:
        self.err.append(message)
        self.code = 1
        return self


@dataclass
class _Parsed:
    positional: list[str] = field(default_factory=list)
    values: dict[str, str | bool] = field(default_factory=dict)
    lists: dict[str, list[str]] = field(default_factory=dict)


def _parse(args: list[str], known: dict[str, str], max_positionals: int | None = None) -> _Parsed | str:
    parsed = _Parsed()
    index = 0
    while index < len(args):
        arg = "--local" if args[index] == "-l" else args[index]
        if arg == "--" or (max_positionals is not None and len(parsed.positional) >= max_positionals):
            parsed.positional.extend(args[index + 1 :] if arg == "--" else args[index:])
            break
        index += 1
        if not arg.startswith("--"):
            parsed.positional.append(arg)
            continue
        kind = known.get(arg[2:])
        if kind is None:
            return f"Unknown option {arg}.\n{HELP_HINT}"
        if kind == "flag":
            parsed.values[arg[2:]] = True
            continue
        if index >= len(args):
            return f"{arg} needs a value."
        value = args[index]
        index += 1
        if kind == "list":
            parsed.lists.setdefault(arg[2:], []).append(value)
        else:
            parsed.values[arg[2:]] = value
    return parsed


def _pairs(option: str, pairs: list[str]) -> dict[str, JsonValue] | str:
    record: dict[str, JsonValue] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            return f'--{option} expects KEY=VALUE, got "{pair}".'
        record[key] = value
    return record


def _entry(parsed: _Parsed, url: str | None, command: list[str]) -> JsonObject | str:
    def value(option: str) -> str | None:
        found = parsed.values.get(option)
        return found if isinstance(found, str) else None

    misplaced = next(
        (o for o in (_HTTP_ONLY if url is None else ("env", "cwd")) if o in parsed.values or o in parsed.lists),
        None,
    )
    if misplaced is not None:
        where = "HTTP servers (--url)" if url is None else "stdio servers"
        return f"--{misplaced} only applies to {where}."
    entry: JsonObject
    if url is not None:
        headers = _pairs("header", parsed.lists.get("header", []))
        if isinstance(headers, str):
            return headers
        bearer = value("bearer-token-env-var")
        if bearer is not None:
            headers["Authorization"] = f"Bearer ${{{bearer}}}"
        oauth: JsonObject = {}
        for option, key in _OAUTH_KEYS:
            given = value(option)
            if given is not None:
                oauth[key] = _number(given) if key == "callbackPort" else given
        entry = {"url": url}
        if headers:
            entry["headers"] = headers
        if oauth:
            entry["oauth"] = oauth
    else:
        env = _pairs("env", parsed.lists.get("env", []))
        if isinstance(env, str):
            return env
        entry = {"command": command[0]}
        if command[1:]:
            entry["args"] = list[JsonValue](command[1:])
        if env:
            entry["env"] = env
        cwd = value("cwd")
        if cwd is not None:
            entry["cwd"] = cwd
    for option in ("exposure", "description"):
        given = value(option)
        if given is not None:
            entry[option] = given
    return entry


def _number(text: str) -> JsonValue:
    try:
        number = float(text)
    except ValueError:
        return text  # validation reports it
    return int(number) if number.is_integer() else number


def _paths(cwd: Path, agent_directory: Path, local: bool) -> tuple[Path, str]:
    return (project_dir(cwd) / MCP_FILE, "project") if local else (agent_directory / MCP_FILE, "global")


def mcp_add(args: list[str], *, cwd: Path, agent_directory: Path, project_trusted: bool) -> Outcome:
    result = Outcome()
    parsed = _parse(args, _ADD_OPTIONS, max_positionals=2)
    if isinstance(parsed, str):
        return result.fail(parsed)
    name, command = (parsed.positional[0], parsed.positional[1:]) if parsed.positional else ("", [])
    url = parsed.values.get("url")
    url = url if isinstance(url, str) else None
    if not name or (url is None) == (not command):
        return result.fail(f"{ADD_USAGE}\n{HELP_HINT}")
    entry = _entry(parsed, url, command)
    if isinstance(entry, str):
        return result.fail(entry)
    try:
        server = parse_server(name, entry, "")
    except InvalidServer as exc:
        return result.fail(str(exc))
    if "exposure" in entry:
        entry["exposure"] = server.exposure  # an alias is written as the name it stands for
    path, scope = _paths(cwd, agent_directory, bool(parsed.values.get("local")))
    try:
        replaced = add_server(path, name, entry)
    except (OSError, ValueError) as exc:
        return result.fail(f"Could not update {path}: {exc}")
    result.out.append(f'{"Replaced" if replaced else "Added"} {scope} MCP server "{name}" in {path}.')
    if scope == "project" and not project_trusted:
        result.out.append(
            f"The project is not trusted, so {path} is ignored until you start pi in the project and trust it."
        )
    hint = f". If it requires sign-in: pi mcp login {name}" if server.uses_oauth else ""
    result.out.append(f"Check it with: pi mcp list{hint}")
    return result


def mcp_remove(args: list[str], *, cwd: Path, agent_directory: Path) -> Outcome:
    result = Outcome()
    parsed = _parse(args, {"local": "flag"})
    if isinstance(parsed, str):
        return result.fail(parsed)
    if len(parsed.positional) != 1:
        return result.fail(f"{REMOVE_USAGE}\n{HELP_HINT}")
    name = parsed.positional[0]
    path, scope = _paths(cwd, agent_directory, bool(parsed.values.get("local")))
    try:
        removed = remove_server(path, name)
    except (OSError, ValueError) as exc:
        return result.fail(f"Could not update {path}: {exc}")
    if removed:
        result.out.append(f'Removed {scope} MCP server "{name}" from {path}.')
        return result
    everything = load_mcp_config(agent_directory, cwd, project_trusted=True)
    other = everything.servers.get(name)
    where = ""
    if other is not None and other.scope != scope:
        where = f" It is defined in {other.source}; {'use' if other.scope == 'project' else 'omit'} --local."
    return result.fail(f'No {scope} MCP server named "{name}" in {path}.{where}')
