"""Tool-argument validation with AJV-style coercion and Pi's error text."""

from __future__ import annotations

from typing import Any

import pytest

from pi_harness.ai.types import Tool, ToolCall
from pi_harness.ai.validation import ToolValidationError, validate_tool_arguments, validate_tool_call


def tool(parameters: dict[str, Any], name: str = "demo") -> Tool:
    return {"name": name, "description": "a test tool", "parameters": parameters}


def call(arguments: dict[str, Any], name: str = "demo") -> ToolCall:
    return {"type": "toolCall", "id": "call_1", "name": name, "arguments": arguments}


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def check(schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    return validate_tool_arguments(tool(schema), call(arguments))


def failure(schema: dict[str, Any], arguments: dict[str, Any], name: str = "demo") -> str:
    with pytest.raises(ToolValidationError) as info:
        validate_tool_arguments(tool(schema, name), call(arguments, name))
    return str(info.value)


# --- coercion (AJV coerceTypes: true) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "value", "expected"),
    [
        ("number", "5", 5),
        ("number", "2.5", 2.5),
        ("number", "-1e3", -1000),
        ("number", " 7 ", 7),
        ("number", True, 1),
        ("number", False, 0),
        ("number", None, 0),
        ("integer", "5", 5),
        ("integer", "5.0", 5),
        ("integer", True, 1),
        ("integer", None, 0),
        ("boolean", "true", True),
        ("boolean", "false", False),
        ("boolean", 1, True),
        ("boolean", 0, False),
        ("boolean", None, False),
        ("string", 5, "5"),
        ("string", 2.5, "2.5"),
        ("string", 3.0, "3"),
        ("string", True, "true"),
        ("string", False, "false"),
        ("string", None, ""),
        ("null", "", None),
        ("null", 0, None),
        ("null", False, None),
    ],
)
def test_scalar_coercion(kind: str, value: Any, expected: Any) -> None:
    result = check(obj(v={"type": kind}), {"v": value})
    assert result == {"v": expected}
    assert type(result["v"]) is type(expected)


@pytest.mark.parametrize(
    ("kind", "value", "message"),
    [
        ("number", "five", "must be number"),
        ("number", "nan", "must be number"),
        ("number", "inf", "must be number"),
        ("number", "1_000", "must be number"),
        ("number", "", "must be number"),
        ("integer", "5.5", "must be integer"),
        ("integer", 5.5, "must be integer"),
        ("boolean", "yes", "must be boolean"),
        ("boolean", 2, "must be boolean"),
        ("string", [1], "must be string"),
        ("string", {"a": 1}, "must be string"),
        ("null", "x", "must be null"),
        ("array", "a,b", "must be array"),
        ("object", "{}", "must be object"),
    ],
)
def test_values_that_cannot_be_coerced_fail(kind: str, value: Any, message: str) -> None:
    assert f"  - v: {message}\n" in failure(obj(v={"type": kind}), {"v": value})


def test_matching_types_are_left_alone() -> None:
    args = {"s": "5", "n": 5, "b": True, "i": 3}
    assert (
        check(obj(s={"type": "string"}, n={"type": "number"}, b={"type": "boolean"}, i={"type": "integer"}), args)
        == args
    )


def test_type_lists_coerce_only_when_no_type_matches() -> None:
    schema = obj(v={"type": ["string", "number"]})
    assert check(schema, {"v": "5"}) == {"v": "5"}
    assert check(schema, {"v": True}) == {"v": "true"}  # first type that works wins
    assert check(obj(v={"type": ["integer", "null"]}), {"v": "3"}) == {"v": 3}
    assert "  - v: must be integer,null" in failure(obj(v={"type": ["integer", "null"]}), {"v": "x"})


def test_nested_objects_and_arrays_are_coerced() -> None:
    schema = obj(
        outer=obj(count={"type": "integer"}, flags={"type": "array", "items": {"type": "boolean"}}),
        edits={"type": "array", "items": obj(line={"type": "number"}, text={"type": "string"})},
    )
    args = {"outer": {"count": "3", "flags": ["true", "false", 1]}, "edits": [{"line": "10", "text": 5}]}
    assert check(schema, args) == {
        "outer": {"count": 3, "flags": [True, False, True]},
        "edits": [{"line": 10, "text": "5"}],
    }


def test_additional_properties_schema_coerces_extra_keys() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "number"}}
    assert check(schema, {"a": 1, "b": "2"}) == {"a": "1", "b": 2}


def test_optional_field_as_any_of_with_null_is_coerced() -> None:
    # the shape Pydantic produces for ``int | None``
    schema = obj(limit={"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None})
    assert check(schema, {"limit": "20"}) == {"limit": 20}
    assert check(schema, {"limit": None}) == {"limit": None}
    assert "  - limit: must match a schema in anyOf" in failure(schema, {"limit": "lots"})


def test_refs_to_definitions_are_followed_for_coercion() -> None:
    schema = {
        "$defs": {"Edit": obj(line={"type": "integer"})},
        "type": "object",
        "properties": {"edits": {"type": "array", "items": {"$ref": "#/$defs/Edit"}}},
    }
    assert check(schema, {"edits": [{"line": "4"}]}) == {"edits": [{"line": 4}]}


def test_original_arguments_are_not_mutated() -> None:
    arguments = {"n": "5", "nested": {"m": "6"}}
    tc = call(arguments)
    result = validate_tool_arguments(tool(obj(n={"type": "number"}, nested=obj(m={"type": "number"}))), tc)
    assert result == {"n": 5, "nested": {"m": 6}}
    assert tc["arguments"] == {"n": "5", "nested": {"m": "6"}}


def test_string_enums() -> None:
    schema = obj(mode={"type": "string", "enum": ["fast", "slow"]})
    assert check(schema, {"mode": "fast"}) == {"mode": "fast"}
    assert "  - mode: must be equal to one of the allowed values" in failure(schema, {"mode": "medium"})


def test_empty_or_missing_schema_accepts_anything() -> None:
    assert validate_tool_arguments(tool({}), call({"x": 1})) == {"x": 1}


# --- the error text ---------------------------------------------------------------------------


def test_error_text_is_exact() -> None:
    schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
        "required": ["path"],
    }
    text = failure(schema, {"limit": 0, "note": "ünïcode"}, name="read")
    assert text == (
        'Validation failed for tool "read":\n'
        "  - path: must have required property 'path'\n"
        "  - limit: must be >= 1\n"
        "\n"
        "Received arguments:\n"
        "{\n"
        '  "limit": 0,\n'
        '  "note": "ünïcode"\n'
        "}"
    )


def test_paths_have_no_leading_slash_and_index_into_arrays() -> None:
    schema = obj(items={"type": "array", "items": obj(n={"type": "integer"})})
    text = failure(schema, {"items": [{"n": 1}, {"n": "x"}]})
    assert "\n  - items/1/n: must be integer\n" in text


def test_missing_nested_property_uses_the_object_path() -> None:
    schema = obj(edit={"type": "object", "properties": {"old": {"type": "string"}}, "required": ["old", "new"]})
    text = failure(schema, {"edit": {"old": "a"}})
    assert "\n  - edit: must have required property 'new'\n" in text


def test_root_errors_are_labelled_root() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False}
    assert "\n  - root: must NOT have additional properties\n" in failure(schema, {"a": "x", "b": 1})


def test_received_arguments_show_the_original_uncoerced_values() -> None:
    schema = obj(n={"type": "number"}, s={"type": "string", "minLength": 3})
    text = failure(schema, {"n": "5", "s": "ab"})
    assert text.endswith('Received arguments:\n{\n  "n": "5",\n  "s": "ab"\n}')
    assert "  - s: must NOT have fewer than 3 characters" in text


def test_every_error_is_reported_required_first_then_members_in_schema_order() -> None:
    schema = {
        "type": "object",
        "properties": {
            "zeta": {"type": "integer"},
            "alpha": {"type": "object", "properties": {"x": {"type": "boolean"}}, "required": ["y"]},
        },
        "required": ["zeta", "alpha", "gamma"],
    }
    text = failure(schema, {"zeta": "no", "alpha": {"x": "maybe"}})
    lines = [line for line in text.splitlines() if line.startswith("  - ")]
    assert lines == [
        "  - gamma: must have required property 'gamma'",
        "  - zeta: must be integer",
        "  - alpha: must have required property 'y'",
        "  - alpha/x: must be boolean",
    ]


@pytest.mark.parametrize(
    ("schema", "value", "message"),
    [
        ({"type": "number", "maximum": 3}, 4, "must be <= 3"),
        ({"type": "number", "exclusiveMinimum": 3}, 3, "must be > 3"),
        ({"type": "number", "exclusiveMaximum": 3}, 3, "must be < 3"),
        ({"type": "integer", "multipleOf": 2}, 3, "must be multiple of 2"),
        ({"type": "string", "maxLength": 2}, "abc", "must NOT have more than 2 characters"),
        ({"type": "string", "pattern": "^a"}, "b", 'must match pattern "^a"'),
        ({"type": "array", "minItems": 2}, [1], "must NOT have fewer than 2 items"),
        ({"type": "array", "maxItems": 1}, [1, 2], "must NOT have more than 1 items"),
        (
            {"type": "array", "uniqueItems": True},
            [1, 2, 1],
            "must NOT have duplicate items (items ## 2 and 0 are identical)",
        ),
        ({"const": "x"}, "y", "must be equal to constant"),
        ({"type": "object", "minProperties": 1}, {}, "must NOT have fewer than 1 properties"),
        ({"not": {"type": "string"}}, "s", "must NOT be valid"),
        ({"oneOf": [{"type": "string"}, {"type": "string"}]}, "s", "must match exactly one schema in oneOf"),
        ({"type": "string", "format": "date-time"}, "yesterday", 'must match format "date-time"'),
    ],
)
def test_ajv_messages(schema: dict[str, Any], value: Any, message: str) -> None:
    assert f"  - v: {message}\n" in failure(obj(v=schema), {"v": value})


# --- validate_tool_call -------------------------------------------------------------------------


def test_unknown_tool_name() -> None:
    with pytest.raises(ToolValidationError) as info:
        validate_tool_call([tool(obj(), "read")], call({}, "Read"))
    assert str(info.value) == 'Tool "Read" not found'


def test_tool_call_is_validated_against_the_tool_with_that_name() -> None:
    tools = [tool(obj(a={"type": "string"}), "first"), tool(obj(a={"type": "integer"}), "second")]
    assert validate_tool_call(tools, call({"a": "7"}, "second")) == {"a": 7}
    assert validate_tool_call(tools, call({"a": 7}, "first")) == {"a": "7"}


def test_tool_objects_with_attributes_are_accepted() -> None:
    class AgentTool:
        name = "obj"
        parameters = obj(n={"type": "integer"})

    assert validate_tool_call([AgentTool()], call({"n": "2"}, "obj")) == {"n": 2}


@pytest.mark.parametrize(
    ("fmt", "good", "bad"),
    [
        ("date-time", "2024-01-02T03:04:05.123+02:00", "2024-02-30T00:00:00Z"),
        ("date-time", "2024-01-02t03:04:05z", "2024-01-02T03:04:05"),
        ("date", "2024-02-29", "2023-02-29"),
        ("time", "23:59:59Z", "24:00:00"),
        ("uri", "https://example.com/a?b=c", "not a uri"),
        ("uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567"),
        ("email", "a@b.c", "no-at-sign"),
        ("ipv4", "10.0.0.1", "10.0.0.256"),
        ("hostname", "api.example.com", "-bad-.com"),
    ],
)
def test_formats_are_checked(fmt: str, good: str, bad: str) -> None:
    schema = obj(v={"type": "string", "format": fmt})
    assert check(schema, {"v": good}) == {"v": good}
    assert f'  - v: must match format "{fmt}"\n' in failure(schema, {"v": bad})
