"""A user prompt: markdown on the ``userMessageBg`` block, inside the context's output padding.

Files attached with ``@path`` arrive as ``<file name="…">…</file>`` blocks, which markdown would
drop as HTML; they are shown as one ``[file: path]`` line each instead of their whole content.
"""

from __future__ import annotations

import re

from pi_harness.tui.components.base import MessageView, box
from pi_harness.tui.components.content import blocks, content_text
from pi_harness.tui.components.images import image_rows

_FILE_BLOCK_RE = re.compile(r'<file name="([^"\n]*)">.*?</file>\n?', re.DOTALL)


def collapse_file_blocks(text: str) -> str:
    return _FILE_BLOCK_RE.sub(lambda match: f"`[file: {match.group(1)}]`\n\n", text)


class UserMessageView(MessageView):
    def _render(self, width: int) -> list[str]:
        theme = self.context.theme
        inner = self.context.padded(width)
        content = self.message.get("content")
        text = collapse_file_blocks(content_text(content, images=False))
        lines = self.context.markdown.render(text, inner, style="user") if text.strip() else []
        for block in blocks(content):
            if block.get("type") == "image":
                lines.extend(image_rows(block, self.context, inner))
        return box(lines or [""], width, theme.bg_code("userMessageBg"), pad_x=self.context.output_pad)
