"""structured-output: end a run on a tool call, with a machine-readable answer.

What it shows:

* a tool result with ``terminate=True``: when every result of a batch asks for it, the run
  stops there, with no further request to the model (saving a turn);
* ``output_schema`` and ``structured_content``: the answer as data, for ``tool_result``
  handlers, ``tool_execution_end`` listeners and codemode scripts, while the transcript keeps
  a one-line text;
* the same data in ``details``, kept in the session file for a renderer or a later reader;
* ``render_result``, which the interactive mode uses to draw the headline, summary and items.

Ask for "a structured summary" and the model calls ``structured_output`` as its last action.

Load it with ``pi -e examples/extensions/structured_output.py``.
"""

from __future__ import annotations

from typing import Any

from pi_harness.coding.extensions import ToolResult
from pi_harness.coding.extensions.api import ExtensionAPI

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "headline": {"type": "string", "description": "A short title"},
        "summary": {"type": "string", "description": "One paragraph"},
        "actionItems": {"type": "array", "items": {"type": "string"}, "description": "Next steps"},
    },
    "required": ["headline", "summary", "actionItems"],
}


def render_answer(result: dict[str, Any], *_options: object) -> list[str]:
    """The lines the interactive mode shows for a result."""
    answer = result.get("details")
    if not isinstance(answer, dict):
        return [block.get("text", "") for block in result.get("content", [])]
    items = [f"{number}. {item}" for number, item in enumerate(answer.get("actionItems", []), start=1)]
    return [str(answer.get("headline", "")), str(answer.get("summary", "")), "", *items]


def extension(pi: ExtensionAPI) -> None:
    @pi.tool(
        name="structured_output",
        label="Structured answer",
        description="Give the final answer as structured data. Call it last when the user wants a "
        "structured or machine-readable summary.",
        parameters=ANSWER_SCHEMA,
        output_schema=ANSWER_SCHEMA,
        prompt_snippet="give a final structured answer that ends the run",
        prompt_guidelines=[
            "When the user asks for a structured or machine-readable summary, end with structured_output.",
            "Write nothing more after calling structured_output.",
        ],
        render_result=render_answer,
    )
    async def structured_output(tool_call_id: str, params: dict[str, Any], *_rest: object) -> ToolResult:
        answer = {key: params[key] for key in ("headline", "summary", "actionItems")}
        return ToolResult(
            f"Saved the structured answer: {answer['headline']}",
            details=answer,
            structured_content=answer,
            terminate=True,
        )
