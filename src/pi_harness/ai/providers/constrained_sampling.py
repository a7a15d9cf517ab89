"""Strict (constrained) sampling of tool arguments, decided per tool as Pi 1.4.0 decides it.

A tool may declare ``constrainedSampling: {"type": "json_schema", "strict": "prefer" | "require"}``
(Pi's built-in read, bash, edit and write tools say ``"prefer"``). A provider whose wire has a
strict mode (OpenAI's ``strict``, Anthropic's ``strict``, Gemini's ``VALIDATED`` mode) sends such
a tool strictly when two things hold: the provider is known to support it (a compat flag, off by
default for OpenAI-compatible and Anthropic-compatible servers, since an unknown key can fail the
whole request) and the tool's schema can be put into the strict subset those services accept.

The strict subset: every object lists all its properties in ``required`` and has
``additionalProperties: false``; a property that was optional becomes nullable instead (an
``anyOf`` with ``{"type": "null"}``). Composition keywords other than ``anyOf`` of scalars,
references, tuples and conditional schemas have no strict form. A tool that only *prefers* strict
sampling falls back to its ordinary schema when there is none; one that *requires* it makes the
request fail with a one-line reason.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import cast

import orjson

from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.types import Tool

# Decides whether a provider's strict mode refuses one keyword of a schema node: (key, value).
KeywordFilter = Callable[[str, object], bool]

# Keywords with no strict form in any provider's constrained decoding.
NO_STRICT_FORM = (
    "$ref",
    "$defs",
    "definitions",
    "allOf",
    "oneOf",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "propertyNames",
    "contains",
    "prefixItems",
    "not",
    "if",
    "then",
    "else",
)


class NoStrictForm(Exception):
    """The schema has no strict form; the message says why (it ends a sentence)."""


def _compact_json(value: object) -> str:
    return orjson.dumps(value).decode()


def _type_names(schema: Mapping[str, object]) -> list[object]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    return list(kind) if isinstance(kind, list) else []


def _is_container(schema: object) -> bool:
    """An object or array schema (by type, or by having properties or items)."""
    if not isinstance(schema, dict):
        return False
    names = _type_names(schema)
    return "object" in names or "array" in names or "properties" in schema or "items" in schema


def _accepts_null(schema: object) -> bool:
    if not isinstance(schema, dict):
        return False
    if "null" in _type_names(schema):
        return True
    if "const" in schema and schema["const"] is None:
        return True
    enum = schema.get("enum")
    if isinstance(enum, list) and None in enum:
        return True
    branches = schema.get("anyOf")
    return isinstance(branches, list) and any(_accepts_null(branch) for branch in branches)


def _strict_node(node: object, refuses: KeywordFilter | None) -> None:
    """Rewrite one schema node (and everything under it) into its strict form, in place."""
    if not isinstance(node, dict):
        raise NoStrictForm("boolean schemas are unsupported")
    schema = cast(JsonObject, node)
    for key in NO_STRICT_FORM:
        if key in schema:
            raise NoStrictForm(f"{key} schemas are unsupported")
    if refuses is not None:
        for key, value in schema.items():
            if refuses(key, value):
                raise NoStrictForm(f"{key}: {_compact_json(value)} is unsupported")
    if "anyOf" in schema:
        branches = schema["anyOf"]
        if not isinstance(branches, list) or not branches:
            raise NoStrictForm("anyOf must contain at least one schema")
        for branch in branches:
            if _is_container(branch):
                raise NoStrictForm("object and array unions are unsupported")
            _strict_node(branch, refuses)
    if "items" in schema:
        if isinstance(schema["items"], list):
            raise NoStrictForm("tuple schemas are unsupported")
        _strict_node(schema["items"], refuses)
    is_object = schema.get("type") == "object"
    if "properties" in schema and not is_object:
        raise NoStrictForm("properties require type object")
    if not is_object:
        return
    if "additionalProperties" in schema and schema["additionalProperties"] is not False:
        raise NoStrictForm("schema-valued or true additionalProperties is unsupported")
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        raise NoStrictForm("object properties must be a schema map")
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(name, str) for name in required):
        raise NoStrictForm("object required must be a string array")
    if any(name not in properties for name in required):
        raise NoStrictForm("required contains an unknown property")
    for name, child in list(properties.items()):
        _strict_node(child, refuses)
        if name not in required and not _accepts_null(child):
            properties[name] = {"anyOf": [child, {"type": "null"}]}
    schema["required"] = list(properties)
    schema["additionalProperties"] = False


def strict_schema(schema: object, refuses: KeywordFilter | None = None) -> JsonObject:
    """The strict form of a tool's parameter schema (a new object); raises ``NoStrictForm``."""
    if not isinstance(schema, dict):
        raise NoStrictForm("root schema must have type object")
    converted = cast(JsonObject, copy.deepcopy(schema))
    _strict_node(converted, refuses)
    if converted.get("type") != "object":
        raise NoStrictForm("root schema must have type object")
    return converted


def json_schema_sampling(tool: Tool) -> Mapping[str, object] | None:
    """The tool's ``json_schema`` sampling hint, or ``None`` (no hint, or a grammar one)."""
    hint = cast(Mapping[str, object], tool).get("constrainedSampling")
    if isinstance(hint, dict) and hint.get("type") == "json_schema":
        return cast(Mapping[str, object], hint)
    return None


def strict_sampling(tool: Tool, supported: bool, refuses: KeywordFilter | None = None) -> bool | None:
    """``True`` when ``tool`` is to be sent strictly, ``None`` when not.

    Raises ``ValueError`` for a tool that requires strict sampling the provider cannot give.
    """
    hint = json_schema_sampling(tool)
    if hint is None:
        return None
    required = hint.get("strict") == "require"
    if not supported:
        if required:
            raise ValueError(
                f'Tool "{tool["name"]}" requires JSON-schema constrained sampling, but strict tools are unsupported.'
            )
        return None
    try:
        strict_schema(tool.get("parameters"), refuses)
    except NoStrictForm as reason:
        if required:
            name = tool["name"]
            raise ValueError(f'Tool "{name}" requires JSON-schema constrained sampling, but {reason}.') from None
        return None
    return True


def tool_parameters(tool: Tool, strict: bool | None) -> JsonObject:
    """The parameter schema to send: its strict form for a strict tool, else the schema itself."""
    parameters = tool.get("parameters")
    if strict is True:
        return strict_schema(parameters)
    return parameters


def is_preferred_strict(tool: Tool) -> bool:
    """The tool prefers strict sampling (and may be sent without it)."""
    hint = json_schema_sampling(tool)
    return hint is not None and hint.get("strict") == "prefer"


__all__ = [
    "NO_STRICT_FORM",
    "KeywordFilter",
    "NoStrictForm",
    "is_preferred_strict",
    "json_schema_sampling",
    "strict_sampling",
    "strict_schema",
    "tool_parameters",
]
