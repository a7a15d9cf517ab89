"""The ``codemode`` tool's description: how scripts run, the globals, and the listed tools as
TypeScript declarations grouped by namespace, within ``codemode.inlineBudget`` estimated tokens
(characters / 4; in each round every group places its cheapest remaining tool)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from pi_harness.extensions_builtin.codemode.declarations import TEXT_OUTPUT, identifier, sample, schema_type
from pi_harness.extensions_builtin.codemode.discovery import namespace_of

INTRO = (
    "Execute a JavaScript program that can call the session's other tools. Send plain JavaScript source "
    "(no JSON wrapper, no markdown fence). It is the body of an async function inside a QuickJS sandbox, "
    "so `await` and `return` work at the top level; there is no file system, network, Node API or timer.\n"
    "- `await tools.<name>({ ...args })` gives the tool's text, or an object when its declaration says so; "
    "a failing call throws an Error. Calls still running when the script ends are cancelled.\n"
    '- An optional first line sets limits: `// @options: {"max_output_tokens": 10000, "timeout_ms": 60000}`'
)
GLOBALS = (
    "Globals:\n"
    "- Output: `text(value)`, `image(dataUrlOrImageBlock)`, `console.log(...)` and a top-level `return`; "
    "`exit()` stops the script successfully. Several text items each get a `==> text N/M <==` line; console "
    "lines come last, in one `<console_output>` block.\n"
    "- `store(key, value)` / `load(key)`: small JSON values kept between codemode calls.\n"
    "- Tools not listed here (such as MCP tools): `ALL_TOOLS`, `await searchTools(query, { limit?, namespace? })`, "
    "`await describeTool(name)`, `await describeNamespace(name)`."
)
CHARS_PER_TOKEN = 4


def output_schema(tool: Mapping[str, object]) -> object:
    schema = tool.get("output_schema")
    return schema if schema is not None else TEXT_OUTPUT


def script_note(description: str, name: str, schema: object) -> str:
    """A declared tool's description with a line on calling it from scripts and what that gives."""
    call = f"`await tools.{identifier(name)}(args)`"
    return f"{description.strip()}\n\nIn codemode scripts, {call} gives {_result_of(schema)}."


def _result_of(schema: object) -> str:
    rendered = schema_type(schema)
    if rendered == "string":
        return "a string"
    fields = _fields(schema, 1)
    return f"`{fields if fields is not None else ' '.join(rendered.split())}`"


def _fields(schema: object, depth: int) -> str | None:
    """An object's property names, ``?`` marking optional ones, nested objects ``depth`` levels deep."""
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        return None
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return None
    required = schema.get("required")
    needed = set(required) if isinstance(required, list) else set()
    parts = []
    for key, field in properties.items():
        nested = _fields(field, depth - 1) if depth > 0 else None
        parts.append(f"{key}{'' if key in needed else '?'}{': ' + nested if nested else ''}")
    return "{ " + ", ".join(parts) + " }"


def describe(listed: Sequence[Mapping[str, object]], budget: int | None) -> str:
    sections = [INTRO, GLOBALS]
    if not listed:
        return "\n\n".join(sections)
    groups: dict[str, list[tuple[str, str, int]]] = {}
    for tool in listed:
        name = str(tool["name"])
        ident = identifier(name)
        heading = f"### `{ident}`" if ident == name else f"### `{ident}` (`{name}`)"
        body = sample(name, str(tool.get("description", "")), tool.get("parameters"), output_schema(tool))
        section = f"{heading}\n{body.strip()}"
        groups.setdefault(namespace_of(name) or "", []).append(
            (name, section, math.ceil(len(section) / CHARS_PER_TOKEN))
        )
    order = sorted(groups, key=lambda key: (key != "", key))
    shown = _select([groups[key] for key in order], budget)
    lines = ["Nested tools:"]
    for key in order:
        entries = groups[key]
        visible = [entry for entry in entries if entry[0] in shown]
        if key:
            note = (
                ""
                if len(visible) == len(entries)
                else " (tools not listed)"
                if not visible
                else " (some tools not listed)"
            )
            lines.append(f"## {key}{note}")
        lines.extend(section for _name, section, _cost in visible)
    sections.append("\n\n".join(lines))
    return "\n\n".join(sections)


def _select(groups: list[list[tuple[str, str, int]]], budget: int | None) -> set[str]:
    if budget is None:
        return {name for group in groups for name, _s, _c in group}
    queues = [sorted(group, key=lambda entry: entry[2]) for group in groups]
    shown: set[str] = set()
    remaining = budget
    active = [queue for queue in queues if queue]
    while active:
        still: list[list[tuple[str, str, int]]] = []
        for queue in active:
            name, _section, cost = queue[0]
            if cost > remaining:
                continue
            remaining -= cost
            shown.add(name)
            queue.pop(0)
            if queue:
                still.append(queue)
        active = still
    return shown
