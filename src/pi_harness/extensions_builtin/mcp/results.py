"""MCP ``CallToolResult`` (as a JSON dict) → the tool result the agent records.

Text and image blocks pass through; audio, resource links and embedded resources become short
text (or an image for embedded image blobs), since the model's context holds only text and
images; binary resources are saved to temp files named in the text. ``structuredContent`` is
kept as is (and shown as JSON text when the server sent no content). ``isError`` carries over.
Text over 20 KB is cut in the middle, with the complete text saved to a file
(``output_limit.py``).

``raw`` is the SDK's validated ``CallToolResult`` dumped to JSON, so its blocks have the shapes
the MCP schema gives them; values are passed on as the server sent them.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping, Sequence
from typing import cast

from pi_harness.ai.jsonutil import dumps_str, sanitize_surrogates
from pi_harness.ai.types import ImageContent, TextContent, UserContent
from pi_harness.coding.extensions import AgentToolResult
from pi_harness.extensions_builtin.mcp.output_limit import limit_content, save_output


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
    content, full_output, truncated = limit_content(content)
    details: dict[str, object] = {"server": server, "tool": tool}
    if truncated:
        details["truncated"] = True
    if full_output:
        details["fullOutputPath"] = full_output
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


def limit_text(text: str) -> tuple[str, str | None]:
    """One text within the limit, and the file with the complete text when it was cut."""
    content, path, _cut = limit_content([_text(text)])
    first = content[0]
    return (first["text"] if first["type"] == "text" else text), path


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
        return _save_binary(str(uri), str(mime), blob)
    return _text(f"[unsupported MCP content block of type {kind!r}]")


def _extension(uri: str) -> str:
    from urllib.parse import urlsplit

    found = re.search(r"\.[A-Za-z0-9]{1,8}$", urlsplit(uri).path or uri)
    return found.group(0) if found else ".bin"


def _save_binary(uri: str, mime: str, blob: object) -> UserContent:
    try:
        data = base64.b64decode(blob if isinstance(blob, str) else "", validate=False)
    except ValueError:
        data = b""
    kind = f"{mime}, {len(data)} bytes"
    try:
        path = save_output(data, _extension(uri))
    except OSError as exc:
        return _text(f"[binary resource {uri} ({kind}) could not be saved: {exc}]")
    return _text(f"[binary resource {uri} ({kind}) saved to {path}]")


def _decoded_size(data: object) -> int:
    if not isinstance(data, str):
        return 0
    try:
        return len(base64.b64decode(data, validate=False))
    except ValueError:
        return len(data)
