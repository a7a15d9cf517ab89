"""Turns agent events into transcript blocks: finished ones go to scrollback, the rest stay live.

The interactive screen prints finished blocks into the terminal's own scrollback (like Pi) and
keeps only the unfinished ones at the bottom: the streaming response, tool calls still running,
a compaction in progress. Blocks leave in order — a finished tool call waits for the one above
it — so the scrollback reads like the conversation. A streamed answer taller than the space at
the bottom hands its settled top lines to the scrollback early (``take_finished(live_limit=…)``).

Feed it AgentSession events with ``handle(event)`` (unknown events are ignored) or whole
messages with ``add_message``/``load_messages`` (resuming a session). ``render_history`` redraws
the printed blocks, e.g. after ``app.tools.expand`` or ``app.thinking.toggle`` changed the context.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from pi_harness.tui.components.assistant_message import AssistantMessageView
from pi_harness.tui.components.base import Component, RenderContext
from pi_harness.tui.components.content import blocks, mapping
from pi_harness.tui.components.notices import (
    Notice,
    compaction_finished,
    compaction_started,
    retry_finished,
    retry_started,
    summarization_retry,
)
from pi_harness.tui.components.session_messages import BashExecutionView, CustomMessageView, SummaryView
from pi_harness.tui.components.tool_call import ToolCallView
from pi_harness.tui.components.user_message import UserMessageView

NOT_EXECUTED_TEXT = "Not executed"


@dataclass
class _Block:
    component: Component
    final: bool = False
    committed: int = 0  # leading lines already printed into the scrollback
    tag: str | None = None

    def uncommitted_lines(self, width: int) -> list[str]:
        """The lines not printed yet; a block that starts here is separated by a blank line."""
        lines = self.component.render(width)
        if self.committed:
            return lines[self.committed :]
        return ["", *lines] if lines else []


class Transcript:
    def __init__(self, context: RenderContext) -> None:
        self.context = context
        self.history: list[Component] = []  # every block that left the live area, in order
        self._blocks: list[_Block] = []
        self._assistant: _Block | None = None
        self._stream_tools: dict[int, ToolCallView] = {}
        self._tools: dict[str, _Block] = {}
        self._bash: _Block | None = None

    # --- feeding -----------------------------------------------------------------------------

    def _append(self, component: Component, *, final: bool, tag: str | None = None) -> _Block:
        block = _Block(component, final, tag=tag)
        self._blocks.append(block)
        return block

    def add_component(self, component: Component, *, final: bool = True) -> None:
        """Any block (a notice, an extension's component, the header of a resumed session …)."""
        self._append(component, final=final)

    def replace_component(self, old: Component, new: Component) -> bool:
        """Put ``new`` where ``old`` is (an extension's header); False when ``old`` is not here."""
        for index, shown in enumerate(self.history):
            if shown is old:
                self.history[index] = new
                return True
        for block in self._blocks:
            if block.component is old:
                block.component = new
                return True
        return False

    def add_notice(self, notice: Notice) -> None:
        self._append(notice, final=True)

    def _notice_if_any(self, notice: Notice | None) -> None:
        """The end of a compaction or retry says something only when it did not simply succeed."""
        if notice is not None:
            self.add_notice(notice)

    def handle(self, event: Mapping[str, object]) -> None:
        kind = event.get("type")
        if kind == "message_start":
            self._message_start(mapping(event.get("message")))
        elif kind == "message_update":
            self._message_update(mapping(event.get("message")))
        elif kind == "message_end":
            self._message_end(mapping(event.get("message")))
        elif kind in ("tool_execution_start", "tool_execution_update", "tool_execution_end"):
            if not event.get("parentToolCallId"):  # nested calls are not part of the transcript
                self._tool_event(kind, event)
        elif kind in ("compaction_start", "auto_compaction_start"):
            self._drop_tag("compaction")
            self._append(compaction_started(event, self.context), final=False, tag="compaction")
        elif kind in ("compaction_end", "auto_compaction_end"):
            self._drop_tag("compaction")
            self._compaction_summary(event)
            self._notice_if_any(compaction_finished(event, self.context))
        elif kind == "auto_retry_start":
            self.add_notice(retry_started(event, self.context))
        elif kind == "auto_retry_end":
            self._notice_if_any(retry_finished(event, self.context))
        elif kind == "summarization_retry_scheduled":
            self.add_notice(summarization_retry(event, self.context))
        elif kind == "bash_execution_update":
            self._bash_output(str(event.get("delta") or ""))
        elif kind == "agent_settled" or (kind == "agent_end" and not event.get("willRetry")):
            self.settle()

    def add_message(self, message: Mapping[str, object]) -> None:
        """A complete message (no streaming), e.g. from a resumed session."""
        role = message.get("role")
        if role == "assistant":
            self._message_start(message)
            self._message_end(message)
        elif role == "toolResult":
            self._message_end(message)
        else:
            self._message_start(message)

    def load_messages(self, messages: Iterable[Mapping[str, object]]) -> None:
        for message in messages:
            self.add_message(message)
        self.settle()

    def begin_bash(self, command: str, *, exclude_from_context: bool = False) -> None:
        """A user ``!`` command started; its output arrives through ``bash_execution_update``."""
        message = {"role": "bashExecution", "command": command, "output": "", "exitCode": None,
                   "cancelled": False, "truncated": False, "excludeFromContext": exclude_from_context}  # fmt: skip
        self._bash = self._append(BashExecutionView(message, self.context, running=True), final=False)

    def settle(self) -> None:
        """The agent stopped: nothing is live any more (tool calls without a result are closed)."""
        for block in self._blocks:
            if block.tag == "compaction" or block is self._bash:
                continue
            component = block.component
            if isinstance(component, ToolCallView) and not component.done:
                component.finish({"content": [{"type": "text", "text": NOT_EXECUTED_TEXT}]}, True)
            if isinstance(component, AssistantMessageView) and component.streaming:
                component.finish(component.message)
            block.final = True
        self._assistant = None
        self._stream_tools = {}
        live = {id(block) for block in self._blocks}
        self._tools = {call_id: block for call_id, block in self._tools.items() if id(block) in live}

    # --- events ------------------------------------------------------------------------------

    def _message_start(self, message: Mapping[str, object]) -> None:
        role = message.get("role")
        if role == "user":
            self._append(UserMessageView(message, self.context), final=True)
        elif role == "assistant":
            view = AssistantMessageView(message, self.context, streaming=True)
            self._assistant = self._append(view, final=False)
            self._stream_tools = {}
            self._sync_tool_calls(message)
        elif role == "custom":
            if message.get("display"):
                self._append(CustomMessageView(message, self.context), final=True)
        elif role == "bashExecution":
            if self._bash is not None and isinstance(self._bash.component, BashExecutionView):
                self._bash.component.finish(message)
                self._bash.final = True
                self._bash = None
            else:
                self._append(BashExecutionView(message, self.context), final=True)
        elif role in ("compactionSummary", "branchSummary"):
            self._append(SummaryView(message, self.context), final=True)

    def _message_update(self, message: Mapping[str, object]) -> None:
        if message.get("role") != "assistant" or self._assistant is None:
            return
        component = self._assistant.component
        if isinstance(component, AssistantMessageView):
            component.update(message)
        self._sync_tool_calls(message)

    def _message_end(self, message: Mapping[str, object]) -> None:
        role = message.get("role")
        if role == "assistant":
            if self._assistant is None:
                self._message_start(message)
            assert self._assistant is not None
            component = self._assistant.component
            if isinstance(component, AssistantMessageView):
                component.finish(message)
            self._assistant.final = True
            self._sync_tool_calls(message)
            if message.get("stopReason") in ("error", "aborted"):
                for view in self._stream_tools.values():
                    if not view.done:
                        view.finish({"content": [{"type": "text", "text": NOT_EXECUTED_TEXT}]}, True)
                        self._tools[view.tool_call_id].final = True
            self._assistant = None
            self._stream_tools = {}
        elif role == "toolResult":
            block = self._tools.get(str(message.get("toolCallId")))
            if block is None:
                view = ToolCallView(str(message.get("toolCallId")), str(message.get("toolName")), {}, self.context)
                block = self._append(view, final=False)
                self._tools[view.tool_call_id] = block
            component = block.component
            if isinstance(component, ToolCallView) and not component.done:
                component.finish(message, bool(message.get("isError")))
            block.final = True

    def _sync_tool_calls(self, message: Mapping[str, object]) -> None:
        for index, content in enumerate(blocks(message.get("content"))):
            if content.get("type") != "toolCall":
                continue
            view = self._stream_tools.get(index)
            call_id = str(content.get("id") or f"pending-{index}")
            if view is None:
                existing = self._tools.get(call_id)
                if existing is not None and isinstance(existing.component, ToolCallView):
                    view = existing.component
                else:
                    view = ToolCallView(call_id, str(content.get("name") or ""), content.get("arguments"), self.context)
                    self._tools[call_id] = self._append(view, final=False)
                self._stream_tools[index] = view
            else:
                view.set_args(content.get("arguments"))
                if call_id != view.tool_call_id and call_id not in self._tools:
                    self._tools[call_id] = self._tools.pop(view.tool_call_id)
                    view.tool_call_id = call_id
                if content.get("name") and not view.name:
                    view.name = str(content["name"])

    def _tool_event(self, kind: str, event: Mapping[str, object]) -> None:
        call_id = str(event.get("toolCallId"))
        block = self._tools.get(call_id)
        if block is None:
            created = ToolCallView(call_id, str(event.get("toolName") or ""), event.get("args"), self.context)
            block = self._tools[call_id] = self._append(created, final=False)
        view = block.component
        if not isinstance(view, ToolCallView):
            return
        if kind == "tool_execution_start":
            view.start(event.get("args"))
        elif kind == "tool_execution_update":
            partial = event.get("partialResult")
            if isinstance(partial, Mapping):
                view.update(partial)
        else:
            result = event.get("result")
            duration = event.get("durationMs")
            view.finish(result if isinstance(result, Mapping) else {}, bool(event.get("isError")),
                        duration if isinstance(duration, int) else None)  # fmt: skip
            block.final = True

    def _bash_output(self, delta: str) -> None:
        if self._bash is None:
            self.begin_bash("")
        assert self._bash is not None
        component = self._bash.component
        if isinstance(component, BashExecutionView):
            component.append_output(delta)

    def _compaction_summary(self, event: Mapping[str, object]) -> None:
        """A finished compaction shows its summary block right away (a reload would show it too)."""
        result = event.get("result")
        if event.get("aborted") or event.get("errorMessage") or not isinstance(result, Mapping):
            return
        message = {"role": "compactionSummary", "summary": result.get("summary") or "",
                   "tokensBefore": result.get("tokensBefore")}  # fmt: skip
        self._append(SummaryView(message, self.context), final=True)

    def _drop_tag(self, tag: str) -> None:
        self._blocks = [block for block in self._blocks if block.tag != tag]

    # --- output ------------------------------------------------------------------------------

    @property
    def has_live(self) -> bool:
        return bool(self._blocks)

    @property
    def behind(self) -> bool:
        """A streaming answer was drawn only in part (its frame budget ran out): draw again soon."""
        return any(isinstance(block.component, AssistantMessageView) and block.component.behind
                   for block in self._blocks)  # fmt: skip

    def take_finished(self, width: int, *, live_limit: int | None = None) -> list[str]:
        """Lines to print into the scrollback now, in order; each block starts with a blank line.

        With ``live_limit``, a streaming answer taller than that hands its settled top lines over.
        """
        out: list[str] = []
        for lines in self.finished_blocks(width):
            out.extend(lines)
        if live_limit is not None and self._blocks:
            block = self._blocks[0]
            component = block.component
            if isinstance(component, AssistantMessageView) and component.streaming:
                lines, stable = component.render_stable(width)
                upto = min(stable, len(lines) - max(1, live_limit))
                if upto > block.committed:
                    if not block.committed:
                        out.append("")
                    out.extend(lines[block.committed : upto])
                    block.committed = upto
        return out

    def finished_blocks(self, width: int) -> Iterator[list[str]]:
        """The lines of each finished block in turn, rendered only when asked for: a printer can
        write one block while the next is laid out."""
        while self._blocks and self._blocks[0].final:
            block = self._blocks.pop(0)
            lines = block.uncommitted_lines(width)
            self.history.append(block.component)
            yield lines

    def render_live(self, width: int) -> list[str]:
        """The blocks still at the bottom of the screen."""
        out: list[str] = []
        for block in self._blocks:
            out.extend(block.uncommitted_lines(width))
        return out

    def uncommit_live(self) -> bool:
        """Live blocks are drawn again from their first line (their printed part is forgotten);
        True when one had printed lines."""
        committed = any(block.committed for block in self._blocks)
        for block in self._blocks:
            block.committed = 0
        return committed

    def render_history(self, width: int, start: int = 0) -> list[str]:
        """Every block already printed (from ``history[start]``), for a full redraw (after the
        screen and scrollback were cleared).

        Live blocks are drawn again from their first line afterwards, so their printed part is reset.
        """
        self.uncommit_live()
        out: list[str] = []
        for component in self.history[start:]:
            lines = component.render(width)
            if lines:
                out.append("")
                out.extend(lines)
        return out
