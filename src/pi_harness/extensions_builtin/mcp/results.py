"""MCP ``CallToolResult`` (as a JSON dict) → the tool result the agent records.

Text and image blocks pass through; audio, resource links and embedded resources become short
text (or an image for embedded image blobs), since the model's context holds only text and
images. ``structuredContent`` is kept as is (and shown as JSON text when the server sent no
content). ``isError`` carries over. Text is cut at 2000 lines / 50 KB in total, like the built-in
tools, with a notice telling the model that output was cut.

``raw`` is the SDK's validated ``CallToolResult`` dumped to JSON, so its blocks have the shapes
the MCP schema gives them; values are passed on as the server sent them.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import cast

from pi_harness.ai.jsonutil import dumps_str, sanitize_surrogates
from pi_harness.ai.types import ImageContent, TextContent, UserContent
from pi_harness.coding.extensions import AgentToolResult

MAX_LINES = 2000
MAX_BYTES = 50 * 1024


def to_tool_result(
    raw: Mapping[str, object], *, server: str, tool: str, readable_resources: bool = False
) -> AgentToolResult:
    blocks = [b for b in cast("list[object]", raw.get("content") or []) if isinstance(b, dict)]
    content = convert_blocks(blocks, server=server if readable_resources else None)
    structured = raw.get("structuredContent")
    if not content and structured is not None:
        content.append(_text(dumps_str(structured)))
    if raw.get("isError") and not any(b["type"] == "text" and b["text"] for b in content):
        content.append(_text(f"The MCP tool {tool} of {server} reported an error without a message."))
    if not content:
        content.append(_text("(no output)"))
    content, truncated = _truncate(content)
    details: dict[str, object] = {"server": server, "tool": tool}
    if truncated:
        details["truncated"] = True
    result: AgentToolResult = {"content": content, "details": details}
    if raw.get("isError"):
        result["isError"] = True
    if structured is not None:
        result["structuredContent"] = structured
    return result


def convert_blocks(blocks: Sequence[Mapping[str, object]], *, server: str | None = None) -> list[UserContent]:
    """MCP content blocks as the model's text and images; ``server`` names where resource links
    can be read (``read_mcp_resource``), when that server's resources are reachable."""
    return [_convert_block(block, server) for block in blocks]


def limit_text(text: str) -> tuple[str, bool]:
    """One text cut like a tool result (2000 lines / 50 KB), with the notice."""
    content, truncated = _truncate([_text(text)])
    first = content[0]
    return (first["text"] if first["type"] == "text" else text), truncated


def _text(text: str) -> TextContent:
    return {"type": "text", "text": sanitize_surrogates(text)}


def _image(data: object, mime_type: object) -> ImageContent:
    return cast(ImageContent, {"type": "image", "data": data, "mimeType": mime_type})


def _is_text_mime(mime: object) -> bool:
    if not isinstance(mime, str):
        return False
    kind = mime.split(";", 1)[0].strip().lower()
    return kind.startswith("text/") or kind == "application/json" or kind.endswith(("+json", "+xml"))


def _convert_block(block: Mapping[str, object], server: str | None) -> UserContent:
    kind = block.get("type")
    if kind == "text":
        return _text(str(block.get("text", "")))
    if kind == "image":
        return _image(block.get("data", ""), block.get("mimeType", "image/png"))
    if kind == "audio":
        size = _decoded_size(block.get("data", ""))
        return _text(f"[audio ({block.get('mimeType', 'unknown type')}, {size} bytes) not shown]")
    if kind == "resource_link":
        label = block.get("title") or block.get("name") or ""
        lines = [f"[resource link: {block.get('uri', '')}{f' {label}' if label else ''}]"]
        if block.get("description"):
            lines.append(str(block["description"]))
        if server is not None:
            lines.append(f'(read it with read_mcp_resource, server "{server}")')
        return _text("\n".join(lines))
    if kind == "resource":
        resource = cast(Mapping[str, object], block.get("resource") or {})
        uri = resource.get("uri", "")
        mime = resource.get("mimeType") or "unknown type"
        if "text" in resource:
            return _text(f"[resource {uri}]\n{resource['text']}")
        blob = resource.get("blob", "")
        if _is_text_mime(mime) and isinstance(blob, str):
            return _text(base64.b64decode(blob, validate=False).decode("utf-8", errors="replace"))
        if isinstance(mime, str) and mime.startswith("image/"):
            return _image(blob, mime)
        return _text(f"[binary resource {uri} ({mime}, {_decoded_size(blob)} bytes) not shown]")
    return _text(f"[unsupported MCP content block of type {kind!r}]")


def _decoded_size(data: object) -> int:
    if not isinstance(data, str):
        return 0
    try:
        return len(base64.b64decode(data, validate=False))
    except ValueError:
        return len(data)


def _truncate(content: list[UserContent]) -> tuple[list[UserContent], bool]:
    lines_left, bytes_left = MAX_LINES, MAX_BYTES
    out: list[UserContent] = []
    for index, block in enumerate(content):
        if block["type"] != "text":
            out.append(block)
            continue
        kept, lines_left, bytes_left, cut = _cut_text(block["text"], lines_left, bytes_left)
        if cut:
            omitted_blocks = sum(1 for b in content[index + 1 :] if b["type"] == "text")
            note = "\n\n[MCP output truncated: the result was longer than 2000 lines or 50 KB"
            note += f"; {omitted_blocks} further text block(s) omitted]" if omitted_blocks else "]"
            out.append({"type": "text", "text": kept + note})
            out.extend(b for b in content[index + 1 :] if b["type"] != "text")
            return out, True
        out.append(block)
    return out, False


def _cut_text(text: str, lines_left: int, bytes_left: int) -> tuple[str, int, int, bool]:
    lines = text.split("\n")
    kept: list[str] = []
    for line in lines:
        cost = len(line.encode("utf-8")) + (1 if kept else 0)
        if lines_left <= 0 or cost > bytes_left:
            return "\n".join(kept), lines_left, bytes_left, True
        kept.append(line)
        lines_left -= 1
        bytes_left -= cost
    return text, lines_left, bytes_left, False
