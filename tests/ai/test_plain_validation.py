"""The plain check (``validation._plainly_valid``) never calls valid what jsonschema calls invalid.

Tool calls whose arguments plainly fit a plain schema are accepted without jsonschema (which is
then never imported); every verdict of the check is compared here with jsonschema's own.
"""

from __future__ import annotations

import math

import jsonschema
import pytest

from pi_harness.ai import validation
from pi_harness.coding.tools.declarations import BASH_PARAMETERS, EDIT_PARAMETERS, LS_PARAMETERS, READ_PARAMETERS

STRICT = {
    "type": "object",
    "properties": {"n": {"type": "integer"}, "flag": {"type": "boolean"}, "none": {"type": "null"}},
    "required": ["n"],
    "additionalProperties": False,
}
LIST = {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "number"}, "minItems": 2}}}
OTHER_KEYWORDS = {"type": "object", "properties": {"s": {"type": "string", "minLength": 3}}}

CASES = [
    (READ_PARAMETERS, {"path": "a.txt"}),
    (READ_PARAMETERS, {"path": "a.txt", "offset": 3, "limit": 2.5}),
    (READ_PARAMETERS, {"path": 3}),
    (READ_PARAMETERS, {"offset": 1}),
    (READ_PARAMETERS, {"path": "a", "offset": True}),
    (READ_PARAMETERS, {"path": "a", "offset": math.inf}),
    (READ_PARAMETERS, {"path": "a", "extra": [1]}),
    (BASH_PARAMETERS, {"command": "ls", "timeout": None}),
    (LS_PARAMETERS, {}),
    (EDIT_PARAMETERS, {"path": "a", "edits": [{"oldText": "x", "newText": "y"}]}),
    (EDIT_PARAMETERS, {"path": "a", "edits": [{"oldText": "x"}]}),
    (EDIT_PARAMETERS, {"path": "a", "edits": []}),
    (EDIT_PARAMETERS, {"path": "a", "edits": "x"}),
    (STRICT, {"n": 1}),
    (STRICT, {"n": 1.0}),
    (STRICT, {"n": True}),
    (STRICT, {"n": 1, "flag": False, "none": None}),
    (STRICT, {"n": 1, "other": 1}),
    (STRICT, {"n": 1, "flag": 0}),
    (LIST, {"xs": [1, 2.5]}),
    (LIST, {"xs": [1]}),
    (LIST, {"xs": [1, "2"]}),
    (LIST, {}),
    (OTHER_KEYWORDS, {"s": "abcd"}),
    ({}, {"anything": [1, {"x": None}]}),
]


@pytest.mark.parametrize(("schema", "value"), CASES)
def test_the_plain_check_agrees_with_jsonschema(schema: dict[str, object], value: dict[str, object]) -> None:
    valid = jsonschema.Draft7Validator(schema).is_valid(value)
    if validation._plainly_valid(schema, value):
        assert valid
    # The built-in tools' well-formed calls are all decided without jsonschema.
    if (
        valid
        and schema in (READ_PARAMETERS, BASH_PARAMETERS, LS_PARAMETERS)
        and not any(isinstance(v, float) and not math.isfinite(v) for v in value.values())
    ):
        assert validation._plainly_valid(schema, value)


def test_plain_calls_are_accepted_and_the_rest_still_reported() -> None:
    tool = {"name": "read", "description": "", "parameters": READ_PARAMETERS}
    call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.txt", "limit": "5"}}
    assert validation.validate_tool_arguments(tool, call) == {"path": "a.txt", "limit": 5}  # type: ignore[arg-type]
    bad = {"type": "toolCall", "id": "c2", "name": "read", "arguments": {"limit": 5}}
    with pytest.raises(validation.ToolValidationError, match="path"):
        validation.validate_tool_arguments(tool, bad)  # type: ignore[arg-type]
