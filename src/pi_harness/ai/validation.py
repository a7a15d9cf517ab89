"""Tool-argument validation against JSON Schema with type coercion (spec ai.md section 11).

Models often send ``"5"`` for a number or ``"true"`` for a boolean; like AJV with
``coerceTypes: true`` we coerce scalars towards the schema's type (on a deep copy), then validate
and report every error in Pi's format. ``jsonschema`` is imported on first use.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from pi_harness.ai.types import Tool, ToolCall


class ToolValidationError(ValueError):
    pass


def validate_tool_call(tools: list[Tool] | list[Any], tool_call: ToolCall) -> dict[str, Any]:
    """Find the tool by exact name and validate; unknown name → ``Tool "<name>" not found``."""
    for tool in tools:
        name = tool["name"] if isinstance(tool, dict) else getattr(tool, "name", None)
        if name == tool_call["name"]:
            return validate_tool_arguments(tool, tool_call)
    raise ToolValidationError(f'Tool "{tool_call["name"]}" not found')


def validate_tool_arguments(tool: Tool | Any, tool_call: ToolCall) -> dict[str, Any]:
    """The coerced copy of the arguments, or raise ``ToolValidationError`` with every problem."""
    schema = tool["parameters"] if isinstance(tool, dict) else tool.parameters
    args = copy.deepcopy(tool_call.get("arguments") or {})
    if not isinstance(schema, dict) or not schema:
        return args
    coerced = coerce(args, schema)
    errors = _collect_errors(schema, coerced)
    if not errors:
        return coerced if isinstance(coerced, dict) else args
    lines = "\n".join(f"  - {path}: {message}" for path, message in errors)
    received = json.dumps(tool_call.get("arguments"), indent=2, ensure_ascii=False)
    raise ToolValidationError(
        f'Validation failed for tool "{tool_call["name"]}":\n{lines}\n\nReceived arguments:\n{received}'
    )


# --- coercion ---------------------------------------------------------------------------------


def _types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    return []


def coerce(value: Any, schema: Any) -> Any:
    if not isinstance(schema, dict):
        return value
    types = _types(schema)
    if types and not any(_matches(value, t) for t in types):
        for target in types:
            converted, ok = _coerce_scalar(value, target)
            if ok:
                value = converted
                break
    if isinstance(value, dict):
        props = schema.get("properties")
        if isinstance(props, dict):
            for key, sub in props.items():
                if key in value:
                    value[key] = coerce(value[key], sub)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for key in value:
                if not isinstance(props, dict) or key not in props:
                    value[key] = coerce(value[key], extra)
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for i, item in enumerate(value):
                value[i] = coerce(item, items)
    for key in ("allOf",):
        for sub in schema.get(key, []) or []:
            value = coerce(value, sub)
    return value


def _matches(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return True


def _coerce_scalar(value: Any, target: str) -> tuple[Any, bool]:
    if target in ("number", "integer"):
        if isinstance(value, bool):
            return int(value), True
        if value is None:
            return 0, True
        if isinstance(value, str) and value.strip():
            try:
                number = float(value)
            except ValueError:
                return value, False
            if target == "integer":
                return (int(number), True) if number.is_integer() else (value, False)
            return (
                int(number)
                if number.is_integer() and "." not in value and "e" not in value.lower()
                else number
            ), True
        return value, False
    if target == "string":
        if isinstance(value, bool):
            return ("true" if value else "false"), True
        if isinstance(value, int | float):
            return (str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)), True
        if value is None:
            return "", True
        return value, False
    if target == "boolean":
        if value in ("true", 1) and not isinstance(value, bool):
            return True, True
        if value in ("false", 0) and not isinstance(value, bool):
            return False, True
        if value is None:
            return False, True
        return value, False
    if target == "null" and value in ("", 0, False) and value is not True:
        return None, True
    return value, False


# --- validation -------------------------------------------------------------------------------


def _collect_errors(schema: dict[str, Any], instance: Any) -> list[tuple[str, str]]:
    import jsonschema

    validator_cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
    validator = validator_cls(schema, format_checker=validator_cls.FORMAT_CHECKER)
    errors = []
    for error in sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path)):
        path = "/".join(str(p) for p in error.absolute_path)
        message = _ajv_message(error)
        if not path:
            missing = _missing_property(error)
            path = missing or "root"
        errors.append((path, message))
    return errors


def _missing_property(error: Any) -> str | None:
    if error.validator == "required":
        text = str(error.message)
        if text.startswith("'") and "'" in text[1:]:
            return text[1 : text.index("'", 1)]
    return None


def _ajv_message(error: Any) -> str:
    kind = error.validator
    value = error.validator_value
    if kind == "required":
        missing = _missing_property(error)
        return f"must have required property '{missing}'" if missing else str(error.message)
    if kind == "type":
        types = value if isinstance(value, list) else [value]
        return f"must be {','.join(types)}"
    if kind == "minimum":
        return f"must be >= {value}"
    if kind == "maximum":
        return f"must be <= {value}"
    if kind == "exclusiveMinimum":
        return f"must be > {value}"
    if kind == "exclusiveMaximum":
        return f"must be < {value}"
    if kind == "minLength":
        return f"must NOT have fewer than {value} characters"
    if kind == "maxLength":
        return f"must NOT have more than {value} characters"
    if kind == "minItems":
        return f"must NOT have fewer than {value} items"
    if kind == "maxItems":
        return f"must NOT have more than {value} items"
    if kind == "enum":
        return "must be equal to one of the allowed values"
    if kind == "const":
        return "must be equal to constant"
    if kind == "additionalProperties":
        return "must NOT have additional properties"
    if kind == "pattern":
        return f'must match pattern "{value}"'
    if kind == "format":
        return f'must match format "{value}"'
    if kind in ("anyOf", "oneOf"):
        return f"must match {'a schema in anyOf' if kind == 'anyOf' else 'exactly one schema in oneOf'}"
    return str(error.message)
