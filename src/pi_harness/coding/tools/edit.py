"""The ``edit`` tool: exact-text replacements in one file, atomically.

The file's byte order mark and line endings (LF or CRLF) are kept; bytes that are not valid
UTF-8 pass through unchanged outside the replaced regions. Edits of one file are serialised with
other mutations of it (``mutation_queue``). A file that changed on disk since the model read it is
refused (``file_freshness``, setting ``tools.staleEditCheck``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

import orjson

from pi_harness.agent.types import AgentTool, AgentToolResult
from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.jsonutil import sanitize_surrogates
from pi_harness.coding.tools.declarations import EDIT
from pi_harness.coding.tools.definition import BuiltinTool, ToolCall
from pi_harness.coding.tools.edit_diff import EditDiff, generate_diff
from pi_harness.coding.tools.edit_match import (
    EditSpec,
    apply_edits,
    detect_line_ending,
    normalize_to_lf,
    restore_line_endings,
    strip_bom,
)
from pi_harness.coding.tools.edit_patch import generate_unified_patch
from pi_harness.coding.tools.mutation_queue import with_file_mutation_queue
from pi_harness.coding.tools.operations import EditOperations, LocalEditOperations
from pi_harness.coding.tools.options import ToolOptions
from pi_harness.coding.tools.paths import resolve_to_cwd
from pi_harness.coding.tools.results import ToolError, raise_if_aborted, text_result


def prepare_edit_arguments(args: JsonObject) -> JsonObject:
    """Accept the legacy single-replacement form (top-level ``oldText``/``newText``) and ``edits``
    sent as a JSON string."""
    prepared = dict(args)
    edits = prepared.get("edits")
    if isinstance(edits, str):
        try:
            edits = orjson.loads(edits)
        except orjson.JSONDecodeError:
            pass
        prepared["edits"] = edits
    if "oldText" in prepared or "newText" in prepared:
        legacy = {"oldText": prepared.pop("oldText", None), "newText": prepared.pop("newText", None)}
        existing = prepared.get("edits")
        prepared["edits"] = [*(existing if isinstance(existing, list) else []), legacy]
    return prepared


def _specs(params: Mapping[str, object]) -> list[EditSpec]:
    # The arguments were validated against EDIT_PARAMETERS: a list of {oldText, newText} objects.
    edits = cast(list[Mapping[str, object]], params["edits"])
    return [EditSpec(str(edit["oldText"]), str(edit["newText"])) for edit in edits]


def _split(raw: bytes) -> tuple[str, str, str]:
    """``(bom, line ending, LF text)`` of a file's bytes."""
    bom, body = strip_bom(raw.decode("utf-8", "surrogateescape"))
    return bom, detect_line_ending(body), normalize_to_lf(body)


def _diff(base: str, new: str) -> EditDiff:
    result = generate_diff(base, new)
    result["diff"] = sanitize_surrogates(result["diff"])
    return result


def _details(path: str, base: str, new: str) -> JsonObject:
    """The result's details, as Pi's: the numbered diff shown to the user, the unified patch of
    the file (headers name the path as given) and the first changed line."""
    shown = _diff(base, new)
    patch = sanitize_surrogates(generate_unified_patch(path, base, new))
    return {"diff": shown["diff"], "patch": patch, "firstChangedLine": shown["firstChangedLine"]}


async def compute_edit_diff(
    path: str, edits: list[EditSpec], cwd: str, operations: EditOperations | None = None
) -> EditDiff:
    """The diff an edit would produce, for previews; raises ``ToolError`` like the tool would."""
    operations = operations or LocalEditOperations()
    absolute = resolve_to_cwd(path, cwd)
    try:
        await operations.access(absolute)
    except Exception:
        raise ToolError(f"File not found: {path}") from None
    _bom, _ending, content = _split(await operations.read_file(absolute))
    no_change = f"No changes would be made to {path}. The replacement produces identical content."
    base, new = apply_edits(content, edits, path, no_change_message=no_change)
    return _diff(base, new)


async def _edit(call: ToolCall[EditOperations]) -> AgentToolResult:
    operations, signal = call.operations, call.signal
    shown = call.text("path")
    absolute = resolve_to_cwd(shown, call.cwd)
    edits = _specs(call.params)

    async def mutate() -> AgentToolResult:
        raise_if_aborted(signal)
        try:
            await operations.access(absolute)
        except Exception:
            raise ToolError(f"File not found: {shown}") from None
        raw = await operations.read_file(absolute)
        if call.options.stale_edit_check:
            call.options.file_views.check(absolute, raw, shown, "edit")
        bom, ending, content = _split(raw)
        base, new = apply_edits(content, edits, shown)
        raise_if_aborted(signal)
        final = (bom + restore_line_endings(new, ending)).encode("utf-8", "surrogateescape")
        await operations.write_file(absolute, final)
        if call.options.tracks_reads():
            call.options.file_views.saw(absolute, final)
        text = (
            f"Successfully replaced text in {shown}."
            if len(edits) == 1
            else f"Successfully replaced {len(edits)} block(s) in {shown}."
        )
        return text_result(text, _details(shown, base, new))

    return await with_file_mutation_queue(absolute, mutate)


EDIT_TOOL: BuiltinTool[EditOperations] = BuiltinTool.declared(
    EDIT,
    operations=lambda options: options.edit_operations or LocalEditOperations(),
    run=_edit,
    prepare_arguments=prepare_edit_arguments,
)


def create_edit_tool(cwd: str, options: ToolOptions | None = None) -> AgentTool:
    return EDIT_TOOL.create(cwd, options)
