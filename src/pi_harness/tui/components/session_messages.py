"""The coding agent's own message roles: ``!`` shell commands, extension messages and summaries.

Each keeps the context's output padding (``outputPad``: one blank column left and right, or
none); the borders of a ``!`` command still span the whole width.
"""

from __future__ import annotations

from collections.abc import Mapping

from pi_harness.tui.ansi import sanitize, wrap
from pi_harness.tui.components.base import MessageView, RenderContext, box, guarded, wrap_all
from pi_harness.tui.components.content import content_text
from pi_harness.tui.components.notices import format_count

# Output lines a ``!`` command shows until tools are expanded (Pi's bash execution component).
USER_BASH_PREVIEW_LINES = 20


class BashExecutionView(MessageView):
    """A user shell command (``!cmd``, or ``!!cmd`` kept out of the model's context).

    While it runs, ``append_output`` adds streamed output; ``finish`` takes the final message.
    """

    def __init__(self, message: Mapping[str, object], context: RenderContext, *, running: bool = False) -> None:
        super().__init__(message, context)
        self.running = running
        self._output = str(message.get("output") or "")

    def append_output(self, delta: str) -> None:
        self._output += delta
        self.touch()

    def finish(self, message: Mapping[str, object]) -> None:
        self.message = message
        self._output = str(message.get("output") or "")
        self.running = False
        self.touch()

    def _render(self, width: int) -> list[str]:
        # Pi's look: ``$ <command>`` in the bash colour (dim, borders too, for ``!!``), a blank row,
        # the output's last lines muted, then a blank row and the status lines.
        theme = self.context.theme
        message = self.message
        color = "dim" if message.get("excludeFromContext") else "bashMode"
        pad = " " * self.context.output_pad
        inner = self.context.padded(width)
        border = theme.fg(color, "─" * width)
        lines = wrap_all([theme.style(f"$ {message.get('command', '')}", color, bold=True)], inner)
        output = sanitize(self._output)
        rows = output.split("\n") if output else []
        hidden = 0 if self.context.expand_tools else max(0, len(rows) - USER_BASH_PREVIEW_LINES)
        if rows:
            lines.append("")
            lines.extend(wrap_all([theme.fg("muted", row) if row else "" for row in rows[hidden:]], inner))
        status: list[str] = []
        if self.running:
            status.append(theme.fg("muted", f"Running... ({self.context.key('tui.select.cancel')} to cancel)"))
        else:
            expand = theme.fg("dim", self.context.key("app.tools.expand"))
            if hidden:
                more = theme.fg("muted", f"... {hidden} more lines (")
                status.append(more + expand + theme.fg("muted", " to expand)"))
            elif self.context.expand_tools and len(rows) > USER_BASH_PREVIEW_LINES:
                status.append(theme.fg("muted", "(") + expand + theme.fg("muted", " to collapse)"))
            code = message.get("exitCode")
            if message.get("cancelled"):
                status.append(theme.fg("warning", "(cancelled)"))
            elif isinstance(code, int) and code != 0:
                status.append(theme.fg("error", f"(exit {code})"))
            if message.get("truncated") and message.get("fullOutputPath"):
                status.append(theme.fg("warning", f"Output truncated. Full output: {message['fullOutputPath']}"))
        if status:
            lines.append("")
            lines.extend(wrap_all(status, inner))
        return [border, *(pad + line if line else "" for line in lines), border]


class CustomMessageView(MessageView):
    """An extension message with ``display: true``; a registered renderer wins over the default look."""

    def _render(self, width: int) -> list[str]:
        custom_type = str(self.message.get("customType", "custom"))
        renderer = self.context.custom_renderers.get(custom_type)
        if renderer is not None:
            message, context = self.message, self.context
            rows = guarded(lambda: renderer(message, width, context), context, f"{custom_type} renderer")
            if rows is not None:
                return [line for row in rows for line in wrap(row, width)]
        theme = self.context.theme
        inner = self.context.padded(width)
        label = theme.style(f"[{custom_type}]", "customMessageLabel", bold=True)
        text = content_text(self.message.get("content"))
        lines = [label, *self.context.markdown.render(text, inner, style="custom")] if text.strip() else [label]
        return box(lines, width, theme.bg_code("customMessageBg"), pad_x=self.context.output_pad)


class SummaryView(MessageView):
    """A compaction or branch summary: a one-line header, the summary itself when tools are expanded."""

    def _render(self, width: int) -> list[str]:
        theme = self.context.theme
        inner = self.context.padded(width)
        if self.message.get("role") == "compactionSummary":
            tokens = self.message.get("tokensBefore")
            counted = f" from {format_count(tokens)} tokens" if isinstance(tokens, int) else ""
            header = theme.style("[compaction]", "customMessageLabel", bold=True) + theme.fg(
                "muted", f" Conversation compacted{counted}"
            )
        else:
            header = theme.style("[branch summary]", "customMessageLabel", bold=True) + theme.fg(
                "muted", " Summary of the branch left behind"
            )
        lines = wrap(header, inner)
        summary = str(self.message.get("summary") or "")
        if self.context.expand_tools and summary.strip():
            lines.extend(self.context.markdown.render(summary, inner, style="custom"))
        else:
            lines.append(theme.fg("muted", f"({self.context.key('app.tools.expand')} to show the summary)"))
        return box(lines, width, theme.bg_code("customMessageBg"), pad_x=self.context.output_pad)


class CustomEntryView(MessageView):
    """An extension's custom entry (``pi.append_entry``) drawn by its registered entry renderer;
    nothing when the renderer fails or returns nothing."""

    def _render(self, width: int) -> list[str]:
        custom_type = str(self.message.get("customType", ""))
        renderer = self.context.entry_renderers.get(custom_type)
        if renderer is None:
            return []
        entry, context = self.message, self.context
        rows = guarded(lambda: renderer(entry, width, context), context, f"{custom_type} entry renderer")
        return [line for row in rows or [] for line in wrap(str(row), width)]
