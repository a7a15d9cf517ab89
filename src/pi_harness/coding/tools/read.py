"""The ``read`` tool: text files by line window, images as attachments."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator
from typing import cast

from pi_harness.agent.types import AgentTool, AgentToolResult
from pi_harness.ai.json_values import JsonValue
from pi_harness.ai.types import ImageContent, TextContent
from pi_harness.coding.tools.declarations import READ
from pi_harness.coding.tools.definition import BuiltinTool, ToolCall
from pi_harness.coding.tools.images import IMAGE_BLOCKED_TEXT, SNIFF_BYTES, detect_image_mime_type, fit_image
from pi_harness.coding.tools.options import ToolOptions
from pi_harness.coding.tools.paths import read_path_variants, resolve_to_cwd
from pi_harness.coding.tools.read_operations import ChunkedReadOperations, LocalReadOperations, ReadOperations
from pi_harness.coding.tools.read_window import TextWindow, read_text_window, text_window, truncate_window
from pi_harness.coding.tools.results import ToolError, as_int, format_number, raise_if_aborted, text_result
from pi_harness.coding.tools.truncate import DEFAULT_MAX_BYTES, format_size

CHUNK_SIZE = 1024 * 1024
BINARY_SNIFF_BYTES = 8192


async def _existing_variant(operations: ReadOperations, resolved: str) -> tuple[str, bool]:
    """The first spelling of the path that exists (see ``paths.read_path_variants``), and whether
    it passed the access check (else the check below reports the problem)."""
    try:
        await operations.access(resolved)
        return resolved, True
    except FileNotFoundError:
        pass
    except Exception:
        return resolved, False
    for candidate in read_path_variants(resolved):  # only for a path that does not exist
        try:
            await operations.access(candidate)
            return candidate, True
        except FileNotFoundError:
            continue
        except Exception:
            return candidate, False
    return resolved, False


async def _check_readable(operations: ReadOperations, path: str, shown: str) -> None:
    try:
        await operations.access(path)
    except FileNotFoundError:
        raise ToolError(f"File not found: {shown}") from None
    except PermissionError:
        raise ToolError(f"Permission denied: {shown}") from None
    except IsADirectoryError:
        raise ToolError(f"Is a directory: {shown}") from None
    except OSError as exc:
        raise ToolError(exc.strerror or str(exc)) from None


async def _one_chunk(operations: ReadOperations, path: str) -> AsyncIterator[bytes]:
    yield await operations.read_file(path)


def _check_text(first_chunk: bytes, shown: str) -> None:
    if b"\0" in first_chunk[:BINARY_SNIFF_BYTES]:
        raise ToolError(
            f"Cannot read {shown}: it is a binary file. The read tool shows text files and "
            "JPEG, PNG, GIF or WebP images."
        )


async def _refuse_binary(chunks: AsyncIterator[bytes], shown: str) -> AsyncIterator[bytes]:
    first = True
    try:
        async for chunk in chunks:
            if first:
                _check_text(chunk, shown)
            first = False
            yield chunk
    finally:
        close = getattr(chunks, "aclose", None)
        if close is not None:
            await close()  # release the file now, not when the generator is collected


def image_limits(options: ToolOptions) -> dict[str, int]:
    """``fit_image`` limits from the model's resize profile (its ``maxBytes`` counts base64)."""
    resize = options.image_resize() if options.image_resize is not None else None
    if resize is None:
        return {}
    limits = {"max_width": resize.max_width, "max_height": resize.max_height, "jpeg_quality": resize.jpeg_quality}
    if resize.max_bytes is not None:
        limits["max_bytes"] = resize.max_bytes * 3 // 4
    return {name: value for name, value in limits.items() if value is not None}


async def _read_image(operations: ReadOperations, path: str, mime_type: str, options: ToolOptions) -> AgentToolResult:
    note = f"Read image file [{mime_type}]"
    if options.block_images:
        return {"content": [{"type": "text", "text": note}, {"type": "text", "text": IMAGE_BLOCKED_TEXT}]}
    data = await operations.read_file(path)
    if options.tracks_reads():
        options.file_views.saw(path, data)
    out_type = mime_type
    if options.auto_resize_images:
        fitted = await asyncio.to_thread(fit_image, data, mime_type, **image_limits(options))
        if fitted is not None:
            data, out_type = fitted.data, fitted.mime_type
            if fitted.resized:
                note += "\n" + fitted.dimension_note()
    text: TextContent = {"type": "text", "text": note}
    image: ImageContent = {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": out_type}
    return {"content": [text, image]}


async def _window(
    operations: ReadOperations, path: str, shown: str, start: int, limit: int | None, options: ToolOptions
) -> TextWindow:
    # What ``isinstance(operations, ChunkedReadOperations)`` asks of the runtime protocol (all
    # the others it has as ``ReadOperations``), for a fraction of its cost on every read.
    if hasattr(operations, "read_chunks"):
        chunks = cast(ChunkedReadOperations, operations).read_chunks(path, CHUNK_SIZE)
    else:
        chunks = _one_chunk(operations, path)
    if options.tracks_reads():
        chunks = options.file_views.reading(path, chunks)  # what the model saw, for edit/write
    return await read_text_window(_refuse_binary(chunks, shown), start, limit)


def _window_of(
    data: bytes, path: str, shown: str, start: int, limit: int | None, options: ToolOptions, mtime_ns: int | None
) -> TextWindow:
    """``_window`` of a file read whole already (the same checks, the same record)."""
    _check_text(data, shown)
    if options.tracks_reads():
        options.file_views.saw(path, data, mtime_ns)
    return text_window(data, start, limit)


async def _read_text(
    operations: ReadOperations,
    path: str,
    shown: str,
    offset: object,
    limit: object,
    options: ToolOptions,
    data: bytes | None = None,
    mtime_ns: int | None = None,
) -> AgentToolResult:
    start = max(0, as_int(offset, 1) - 1)
    line_limit = None if limit is None else as_int(limit, 0)
    if data is not None:
        window = _window_of(data, path, shown, start, line_limit, options, mtime_ns)
    else:
        window = await _window(operations, path, shown, start, line_limit, options)
    if start >= window.total_lines:
        shown_offset = format_number(offset) if isinstance(offset, int | float) else str(offset)
        raise ToolError(f"Offset {shown_offset} is beyond end of file ({window.total_lines} lines total)")
    truncation = truncate_window(window)
    first = start + 1
    if truncation["firstLineExceedsLimit"]:
        text = (
            f"[Line {first} is {format_size(window.first_line_bytes)}, exceeds {format_size(DEFAULT_MAX_BYTES)} "
            f"limit. Use bash: sed -n '{first}p' {shown} | head -c {DEFAULT_MAX_BYTES}]"
        )
        return text_result(text, {"truncation": truncation})
    content = truncation["content"]
    if truncation["truncated"]:
        last = first + truncation["outputLines"] - 1
        size_note = "" if truncation["truncatedBy"] == "lines" else f" ({format_size(DEFAULT_MAX_BYTES)} limit)"
        notice = (
            f"[Showing lines {first}-{last} of {window.total_lines}{size_note}. Use offset={last + 1} to continue.]"
        )
        return text_result(f"{content}\n\n{notice}", {"truncation": truncation})
    if line_limit is not None and start + line_limit < window.total_lines:
        remaining = window.total_lines - (start + line_limit)
        notice = f"[{remaining} more lines in file. Use offset={start + line_limit + 1} to continue.]"
        return text_result(f"{content}\n\n{notice}")
    return text_result(content)


async def _read(call: ToolCall[ReadOperations]) -> AgentToolResult:
    operations = call.operations
    shown = call.text("path")
    resolved = resolve_to_cwd(shown, call.cwd)
    local = type(operations) is LocalReadOperations
    # The usual read, a small local file that exists as named: one ``stat``, one read, for its
    # checks, its type, its text and its record; everything else goes the general way.
    found = cast(LocalReadOperations, operations).readable_small_file(resolved) if local else None
    mtime_ns: int | None = None
    if found is not None:
        path = resolved
        data: bytes | None
        data, mtime_ns = found
    else:
        path, readable = await _existing_variant(operations, resolved)
        if not readable:
            await _check_readable(operations, path, shown)
        # A small local file is read once, for its type and its text; others as they come.
        data = cast(LocalReadOperations, operations).small_file(path) if local else None
    if data is not None:
        mime_type = detect_image_mime_type(data[:SNIFF_BYTES])
    else:
        mime_type = await operations.detect_image_mime_type(path)
    raise_if_aborted(call.signal)
    if mime_type is not None:
        result = await _read_image(operations, path, mime_type, call.options)
    else:
        params = call.params
        offset, limit = params.get("offset"), params.get("limit")
        result = await _read_text(operations, path, shown, offset, limit, call.options, data, mtime_ns)
    result["structuredContent"] = _read_output(result)
    return result


def _read_output(result: AgentToolResult) -> JsonValue:
    """What programmatic callers get: the text read, or the image with the text as its note."""
    blocks = result["content"]
    text = next((block["text"] for block in blocks if block["type"] == "text"), "")
    image = next((block for block in blocks if block["type"] == "image"), None)
    if image is None:
        return text
    return {"type": "image", "data": image["data"], "mimeType": image["mimeType"], "note": text}


READ_TOOL: BuiltinTool[ReadOperations] = BuiltinTool.declared(
    READ,
    operations=lambda options: options.read_operations or LocalReadOperations(),
    run=_read,
)


def create_read_tool(cwd: str, options: ToolOptions | None = None) -> AgentTool:
    return READ_TOOL.create(cwd, options)
