"""How tools look to scripts: their JavaScript identifier and their TypeScript declaration.

The identifier is Pi's: every character not valid in a JavaScript identifier (a digit is valid
after the first character) becomes ``_``, so ``mcp__dev-radius__search`` is
``tools.mcp__dev_radius__search``. Declarations render the JSON Schema of the arguments and of the
result as TypeScript types: objects with their properties sorted by name, on one line, or one
property per line with ``//`` comments when a property has a description; ``Array<T>``; local
``$ref`` resolved (recursion renders ``unknown``); an input type longer than 4000 characters
renders as ``unknown``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

_FIRST = re.compile(r"[A-Za-z_$]")
_REST = re.compile(r"[A-Za-z0-9_$]")
_PLAIN_KEY = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
INPUT_MAX_CHARS = 4000
TEXT_OUTPUT: Mapping[str, object] = {"type": "string"}


def identifier(name: str) -> str:
    out = "".join(ch if (_REST if i else _FIRST).fullmatch(ch) else "_" for i, ch in enumerate(name))
    return out or "_"


def _union(types: Sequence[str]) -> str:
    unique = list(dict.fromkeys(types))
    if "unknown" in unique:
        return "unknown"
    return " | ".join(unique) if unique else "never"


class _Renderer:
    def __init__(self, root: object) -> None:
        self.root = root
        self.resolving: set[str] = set()

    def resolve(self, ref: str) -> object:
        if not ref.startswith("#/"):
            return None
        node: object = self.root
        for part in ref[2:].split("/"):
            if not isinstance(node, Mapping) or part not in node:
                return None
            node = node[part]
        return node

    def type(self, schema: object, indent: str = "") -> str:
        if schema is True:
            return "unknown"
        if schema is False:
            return "never"
        if not isinstance(schema, Mapping):
            return "unknown"
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target = self.resolve(ref)
            if ref in self.resolving or target is None:
                return "unknown"
            self.resolving.add(ref)
            try:
                return self.type(target, indent)
            finally:
                self.resolving.discard(ref)
        if "const" in schema:
            return json.dumps(schema["const"])
        enum = schema.get("enum")
        if isinstance(enum, list):
            return _union([json.dumps(value) for value in enum])
        variants = schema.get("anyOf", schema.get("oneOf"))
        if isinstance(variants, list):
            return _union([self.type(v, indent) for v in variants])
        kind = schema.get("type")
        if isinstance(kind, list):
            return _union([self.type({**schema, "type": k}, indent) for k in kind])
        if kind == "string":
            return "string"
        if kind in ("number", "integer"):
            return "number"
        if kind == "boolean":
            return "boolean"
        if kind == "null":
            return "null"
        if kind == "array" or (kind is None and "items" in schema):
            items = schema.get("items")
            return f"Array<{self.type(items, indent)}>" if isinstance(items, Mapping) else "unknown[]"
        if kind == "object" or (kind is None and ("properties" in schema or "required" in schema)):
            return self.object(schema, indent)
        return "unknown"

    def object(self, schema: Mapping[str, object], indent: str) -> str:
        properties = schema.get("properties")
        props = properties if isinstance(properties, Mapping) else {}
        required_list = schema.get("required")
        required = set(required_list) if isinstance(required_list, list) else set()
        inner = indent + "  "
        members: list[tuple[str, str]] = []
        for name in sorted(props):
            prop = props[name]
            key = name if _PLAIN_KEY.match(name) else json.dumps(name)
            member = f"{key}{'' if name in required else '?'}: {self.type(prop, inner)};"
            description = prop.get("description") if isinstance(prop, Mapping) else None
            members.append((member, description.strip() if isinstance(description, str) else ""))
        additional = schema.get("additionalProperties")
        if additional is not None and additional is not False:
            members.append((f"[key: string]: {'unknown' if additional is True else self.type(additional, inner)};", ""))
        elif additional is None and not members:
            return "Record<string, unknown>"
        if not members:
            return "{}"
        if not any(description for _, description in members):
            return "{ " + " ".join(member for member, _ in members) + " }"
        lines = ["{"]
        for member, description in members:
            lines.extend(f"{inner}// {line}" for line in description.splitlines() if line.strip())
            lines.append(f"{inner}{member}")
        lines.append(indent + "}")
        return "\n".join(lines)


def schema_type(schema: object) -> str:
    return _Renderer(schema).type(schema)


def signature(name: str, input_schema: object, output_schema: object | None) -> str:
    arguments = schema_type(input_schema) if input_schema is not None else "unknown"
    if len(arguments) > INPUT_MAX_CHARS:
        arguments = "unknown"
    result = schema_type(output_schema) if output_schema is not None else "unknown"
    return f"{identifier(name)}(args: {arguments}): Promise<{result}>;"


def sample(name: str, description: str, input_schema: object, output_schema: object | None) -> str:
    """A tool's description, then its declaration as a member of ``tools``."""
    declaration = f"declare const tools: {{ {signature(name, input_schema, output_schema)} }};"
    return f"{description.strip()}\n\ncodemode tool declaration:\n```ts\n{declaration}\n```"
