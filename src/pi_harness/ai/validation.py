"""Tool-argument validation against JSON Schema with type coercion, worded like AJV's errors.

Models often send ``"5"`` for a number or ``"true"`` for a boolean; like AJV with
``coerceTypes: true`` we coerce scalars towards the schema's type (on a deep copy), then validate
and report every error in Pi's format. ``jsonschema`` is imported on first use.
"""

from __future__ import annotations

import copy
import datetime
import functools
import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, cast

from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.types import Tool, ToolCall

if TYPE_CHECKING:
    from jsonschema import FormatChecker
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator


class ToolValidationError(ValueError):
    pass


class ToolSchema(Protocol):
    """A tool object (such as the agent's ``AgentTool``) as validation sees it."""

    @property
    def name(self) -> str: ...

    @property
    def parameters(self) -> Mapping[str, object]: ...


def validate_tool_call(tools: Sequence[Tool | ToolSchema], tool_call: ToolCall) -> JsonObject:
    """Find the tool by exact name and validate; unknown name → ``Tool "<name>" not found``."""
    for tool in tools:
        name = tool["name"] if isinstance(tool, dict) else getattr(tool, "name", None)
        if name == tool_call["name"]:
            return validate_tool_arguments(tool, tool_call)
    raise ToolValidationError(f'Tool "{tool_call["name"]}" not found')


def validate_tool_arguments(tool: Tool | ToolSchema, tool_call: ToolCall) -> JsonObject:
    """The coerced copy of the arguments, or raise ``ToolValidationError`` with every problem."""
    arguments_error = tool_call.get("argumentsError")
    if arguments_error:
        raise ToolValidationError(f'Invalid arguments for tool "{tool_call["name"]}": {arguments_error}')
    schema: object = tool["parameters"] if isinstance(tool, dict) else tool.parameters
    args = _copied(tool_call.get("arguments") or {})
    if not isinstance(schema, dict) or not schema:
        return args
    if _plainly_valid(schema, args):
        # Every value has its schema's type already (most calls): coercion would change nothing.
        return args
    coerced = coerce(args, schema)
    # Coercion changes the members of an object, never the object itself into something else.
    arguments = coerced if isinstance(coerced, dict) else args
    if _plainly_valid(schema, arguments):
        return arguments  # what jsonschema would say, without importing it (~10 MB, ~0.3 s)
    errors = _collect_errors(schema, arguments)
    if not errors:
        return arguments
    lines = "\n".join(f"  - {path}: {message}" for path, message in errors)
    received = json.dumps(tool_call.get("arguments"), indent=2, ensure_ascii=False)
    raise ToolValidationError(
        f'Validation failed for tool "{tool_call["name"]}":\n{lines}\n\nReceived arguments:\n{received}'
    )


def _copied(value: JsonObject) -> JsonObject:
    """A deep copy of arguments parsed from JSON (``copy.deepcopy`` costs ten times as much, on
    every tool call); anything that is not JSON data goes through ``deepcopy`` after all."""
    copied = _copy_json(value)
    return copied if isinstance(copied, dict) else copy.deepcopy(value)


_SCALARS = (str, int, float, bool, type(None))


def _copy_json(value: object) -> object:
    kind = type(value)
    if kind is dict:
        return {key: _copy_json(item) for key, item in cast(dict[object, object], value).items()}
    if kind is list:
        return [_copy_json(item) for item in cast(list[object], value)]
    if kind in _SCALARS:
        return value
    return copy.deepcopy(value)


# --- the plain case ------------------------------------------------------------------------------

# Keywords whose meaning the plain check knows exactly (the rest send the check to jsonschema).
_PLAIN_KEYWORDS = frozenset(
    {"type", "description", "title", "default", "examples", "properties", "required", "additionalProperties"}
    | {"items", "minItems"}
)
_PLAIN_TYPES: Mapping[str, tuple[type, ...]] = {
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "object": (dict,),
    "array": (list,),
    "null": (type(None),),
}


def _plainly_valid(schema: object, value: object) -> bool:
    """True when ``value`` certainly satisfies ``schema``: a schema made only of the keywords above
    and a value that meets each of them. False means "ask jsonschema" (which reports the errors),
    never "invalid". The schemas of the built-in tools are such, and so are most calls."""
    if not isinstance(schema, dict) or not _PLAIN_KEYWORDS.issuperset(schema):
        return False
    kind = schema.get("type")
    if kind is not None:
        allowed = _PLAIN_TYPES.get(kind) if isinstance(kind, str) else None
        # ``type(value) in`` and not isinstance: a bool is not an integer or a number here.
        if allowed is None or type(value) not in allowed:
            return False
        if type(value) is float and not math.isfinite(value):
            return False
    if "items" in schema or "minItems" in schema:
        if not isinstance(value, list):
            return False
        minimum = schema.get("minItems", 0)
        if type(minimum) is not int or len(value) < minimum:
            return False
        items = schema.get("items", {})
        if not all(_plainly_valid(items, item) for item in value):
            return False
    if "properties" in schema or "required" in schema or "additionalProperties" in schema:
        if not isinstance(value, dict):
            return False
        properties = schema.get("properties", {})
        required = schema.get("required", [])
        extra = schema.get("additionalProperties", True)
        if not isinstance(properties, dict) or not isinstance(required, list) or type(extra) is not bool:
            return False
        if not all(isinstance(name, str) and name in value for name in required):
            return False
        for name, member in value.items():
            if name in properties:
                if not _plainly_valid(properties[name], member):
                    return False
            elif not extra:
                return False
    return True


# --- coercion ---------------------------------------------------------------------------------

# What JavaScript's ``+value`` accepts as a decimal number (AJV coerces with it); Python's
# ``float`` would also take "nan", "inf" and "1_000", which must stay strings.
_NUMERIC_STRING = re.compile(r"\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*")
_MAX_REF_HOPS = 32


def _types(schema: Mapping[str, object]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    return []


def _resolve(schema: object, root: object) -> object:
    """Follow local ``$ref``s (``#``, ``#/$defs/...``, ``#/definitions/...``) for coercion."""
    for _ in range(_MAX_REF_HOPS):
        if not isinstance(schema, dict):
            return schema
        ref = schema.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#"):
            return schema
        target = root
        for raw in [p for p in ref[1:].split("/") if p]:
            part = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                return schema
        if target is schema:
            return schema
        schema = target
    return schema


def coerce(value: object, schema: object, root: object = None) -> object:
    """Coerce ``value`` towards ``schema`` like AJV's ``coerceTypes: true``; containers in place.

    ``root`` is the document local ``$ref``s point into (default: ``schema`` itself).
    """
    if root is None:
        root = schema
    schema = _resolve(schema, root)
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
                    value[key] = coerce(value[key], sub, root)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for key in value:
                if not isinstance(props, dict) or key not in props:
                    value[key] = coerce(value[key], extra, root)
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for i, item in enumerate(value):
                value[i] = coerce(item, items, root)
    for sub in schema.get("allOf", []) or []:
        value = coerce(value, sub, root)
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            value = _coerce_alternatives(value, branches, root)
    return value


def _coerce_alternatives(value: object, branches: list[object], root: object) -> object:
    """``anyOf``/``oneOf``: AJV tries the branches in order, coercing in the first that fits.

    A branch whose type already matches wins (and coerces nested members); otherwise the first
    branch whose type the value can be coerced to.
    """
    resolved = [b for b in (_resolve(b, root) for b in branches) if isinstance(b, dict)]
    for branch in resolved:
        types = _types(branch)
        if types and any(_matches(value, t) for t in types):
            return coerce(value, branch, root)
    for branch in resolved:
        for target in _types(branch):
            converted, ok = _coerce_scalar(value, target)
            if ok:
                return coerce(converted, branch, root)
    return value


def _matches(value: object, kind: str) -> bool:
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


def _coerce_scalar(value: object, target: str) -> tuple[object, bool]:
    if target in ("number", "integer"):
        if isinstance(value, bool):
            return int(value), True
        if value is None:
            return 0, True
        if isinstance(value, str) and _NUMERIC_STRING.fullmatch(value):
            number = float(value)
            if not math.isfinite(number):
                return value, False
            if number.is_integer():
                # JavaScript has one number type: "5.0" becomes 5, as AJV would produce.
                return int(number), True
            return (value, False) if target == "integer" else (number, True)
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
        if isinstance(value, bool):
            return value, False
        if value == "true" or (isinstance(value, int | float) and value == 1):
            return True, True
        if value == "false" or (isinstance(value, int | float) and value == 0) or value is None:
            return False, True
        return value, False
    if target == "null" and (
        value == "" or value is False or (isinstance(value, int | float) and not isinstance(value, bool) and value == 0)
    ):
        return None, True
    return value, False


# --- validation -------------------------------------------------------------------------------


# Validators are built once per schema object: tools keep their schema for the whole session.
_VALIDATORS: dict[int, tuple[Mapping[str, object], Validator]] = {}
_MAX_CACHED_VALIDATORS = 512


# The same schema may come as a new object for every call (tool lists rebuilt per turn): then
# the validator is found by the schema's content, which costs one compact encoding instead of
# building a validator (about half a millisecond) on every tool call.
_VALIDATORS_BY_CONTENT: dict[bytes, Validator] = {}


def _content_key(schema: Mapping[str, object]) -> bytes | None:
    import orjson

    try:
        return orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return None  # not plain JSON: only the identity cache applies


def _validator_for(schema: Mapping[str, object]) -> Validator:
    cached = _VALIDATORS.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    key = _content_key(schema)
    validator = _VALIDATORS_BY_CONTENT.get(key) if key is not None else None
    if validator is None:
        import jsonschema

        validator_cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
        validator = validator_cls(schema, format_checker=_format_checker(validator_cls))
        if key is not None:
            if len(_VALIDATORS_BY_CONTENT) >= _MAX_CACHED_VALIDATORS:
                _VALIDATORS_BY_CONTENT.clear()
            _VALIDATORS_BY_CONTENT[key] = validator
    if len(_VALIDATORS) >= _MAX_CACHED_VALIDATORS:
        _VALIDATORS.clear()
    _VALIDATORS[id(schema)] = (schema, validator)
    return validator


def _collect_errors(schema: Mapping[str, object], instance: JsonObject) -> list[tuple[str, str]]:
    validator = _validator_for(schema)
    errors = []
    for error in _ajv_order(list(validator.iter_errors(instance))):
        path = "/".join(str(p) for p in error.absolute_path)
        message = _ajv_message(error)
        if not path:
            missing = _missing_property(error)
            path = missing or "root"
        errors.append((path, message))
    return errors


# Formats ajv-formats checks that jsonschema only checks with optional packages installed.
_EXTRA_FORMATS: dict[str, re.Pattern[str]] = {
    "date-time": re.compile(
        r"(\d{4}-\d{2}-\d{2})[Tt ]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):?[0-5]\d)"
    ),
    "time": re.compile(r"([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3])(:?[0-5]\d)?)?"),
    "uri": re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s]*"),
    "uuid": re.compile(r"(?:urn:uuid:)?[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}"),
    "hostname": re.compile(
        r"(?=.{1,253}\.?$)[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[-0-9a-zA-Z]{0,61}[0-9a-zA-Z])?)*\.?"
    ),
}


@functools.cache
def _format_checker(validator_cls: type[Validator]) -> FormatChecker:
    import jsonschema

    checker = jsonschema.FormatChecker()
    checker.checkers = dict(validator_cls.FORMAT_CHECKER.checkers)
    for name, pattern in _EXTRA_FORMATS.items():
        if name not in checker.checkers:
            checker.checks(name)(functools.partial(_check_format, name, pattern))
    return checker


def _check_format(name: str, pattern: re.Pattern[str], value: object) -> bool:
    if not isinstance(value, str):
        return True  # formats only constrain strings
    match = pattern.fullmatch(value)
    if match is None:
        return False
    if name == "date-time":
        try:
            datetime.date.fromisoformat(match.group(1))
        except ValueError:
            return False
    return True


_Path = tuple[str | int, ...]


def _ajv_order(errors: list[ValidationError]) -> list[ValidationError]:
    """Depth-first: an object's own errors (e.g. ``required``) before those of its members, and
    members in the order the schema visits them, which is the order AJV reports them in."""
    children: dict[_Path, list[_Path]] = {(): []}
    own: dict[_Path, list[ValidationError]] = {(): []}
    for error in errors:
        path = tuple(error.absolute_path)
        for depth in range(1, len(path) + 1):
            node = path[:depth]
            if node not in own:
                own[node] = []
                children[node] = []
                children[path[: depth - 1]].append(node)
        own[path].append(error)
    ordered: list[ValidationError] = []
    stack: list[_Path] = [()]
    while stack:
        node = stack.pop()
        ordered.extend(own[node])
        stack.extend(reversed(children[node]))
    return ordered


def _missing_property(error: ValidationError) -> str | None:
    if error.validator != "required" or not isinstance(error.validator_value, list):
        return None
    message = str(error.message)
    for name in error.validator_value:
        if isinstance(name, str) and message.startswith(repr(name)):
            return name
    return None


def _ajv_message(error: ValidationError) -> str:
    kind = error.validator
    value = error.validator_value
    if kind == "required":
        missing = _missing_property(error)
        return f"must have required property '{missing}'" if missing else str(error.message)
    if kind == "type":
        types = value if isinstance(value, list) else [value]
        return f"must be {','.join(map(str, types))}"
    if kind == "minimum":
        return f"must be >= {value}"
    if kind == "maximum":
        return f"must be <= {value}"
    if kind == "exclusiveMinimum":
        return f"must be > {value}"
    if kind == "exclusiveMaximum":
        return f"must be < {value}"
    if kind == "multipleOf":
        return f"must be multiple of {value}"
    if kind == "minLength":
        return f"must NOT have fewer than {value} characters"
    if kind == "maxLength":
        return f"must NOT have more than {value} characters"
    if kind == "minItems":
        return f"must NOT have fewer than {value} items"
    if kind == "maxItems":
        return f"must NOT have more than {value} items"
    if kind == "minProperties":
        return f"must NOT have fewer than {value} properties"
    if kind == "maxProperties":
        return f"must NOT have more than {value} properties"
    if kind == "uniqueItems":
        pair = _duplicate_pair(error.instance)
        return (
            f"must NOT have duplicate items (items ## {pair[0]} and {pair[1]} are identical)"
            if pair
            else ("must NOT have duplicate items")
        )
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
    if kind == "not":
        return "must NOT be valid"
    if kind in ("anyOf", "oneOf"):
        return f"must match {'a schema in anyOf' if kind == 'anyOf' else 'exactly one schema in oneOf'}"
    return str(error.message)


def _duplicate_pair(items: object) -> tuple[int, int] | None:
    """The pair of indices AJV names in its ``uniqueItems`` message (it scans from the end)."""
    if not isinstance(items, list):
        return None
    if all(item is None or isinstance(item, str | int | float) for item in items):
        seen: dict[str, int] = {}
        for i in range(len(items) - 1, -1, -1):
            key = json.dumps(items[i])
            if key in seen:
                return seen[key], i
            seen[key] = i
        return None
    for i in range(len(items) - 1, -1, -1):
        for j in range(i - 1, -1, -1):
            if items[i] == items[j]:
                return j, i
    return None
