"""Asking the model for a compaction summary.

Each request is one user message (the serialised conversation, an optional previous summary,
the instructions) under a fixed system prompt, with prompt-cache writes off (a one-off prompt),
a fresh UUIDv7 as its session id (as Pi 1.4.0 gives one-off requests) and the model's output
limit as the budget. Only the text blocks of the reply are used; a reply cut by the output limit
or calling a tool is no summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi_harness.agent.types import AgentMessage
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.api import complete_simple
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.types import AssistantMessage, Context, Model, Usage
from pi_harness.coding.compaction import prompts
from pi_harness.coding.compaction.file_ops import format_file_lists
from pi_harness.coding.compaction.prepare import CompactionPreparation
from pi_harness.coding.compaction.serialize import serialize_conversation
from pi_harness.coding.compaction.types import CompactionResult, CompleteFn, add_usage
from pi_harness.coding.message_content import text_parts
from pi_harness.coding.session_store.uuid7 import uuid7

INCOMPLETE = "generation hit the token cap and the summary is incomplete"


class SummarizationError(Exception):
    """The model call for a summary failed; the message is user-facing.

    ``detail`` is the provider's own error text (``None`` when it gave none).
    """

    def __init__(self, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = detail


class SummarizationAborted(Exception):
    """The summary request was aborted through its signal."""


@dataclass
class SummaryOutput:
    text: str
    usage: Usage | None


def summary_request(user_text: str) -> Context:
    return {
        "systemPrompt": prompts.SYSTEM_PROMPT,
        "messages": [{"role": "user", "content": [{"type": "text", "text": user_text}], "timestamp": 0}],
    }


def summary_options(model: Model, api_key: str | None, signal: AbortSignal | None) -> SimpleStreamOptions:
    max_tokens = int(model.get("maxTokens") or 0)
    return SimpleStreamOptions(
        api_key=api_key,
        signal=signal,
        max_tokens=max_tokens if max_tokens > 0 else None,
        # Pi's ``cacheRetention: "none"``: no prompt-cache key or markers for a one-off prompt.
        cache_retention="none",
        disable_cache_writes=True,
        session_id=str(uuid7()),
    )


def response_text(message: AssistantMessage) -> str:
    return "\n".join(text_parts(list(message.get("content") or [])))


async def request_summary(
    model: Model,
    user_text: str,
    *,
    api_key: str | None,
    signal: AbortSignal | None,
    complete_fn: CompleteFn,
    failure_prefix: str,
) -> SummaryOutput:
    """Run one summary request; raises ``SummarizationError`` / ``SummarizationAborted``."""
    response = await complete_fn(model, summary_request(user_text), summary_options(model, api_key, signal))
    stop = response.get("stopReason")
    if stop == "aborted" or (signal is not None and signal.aborted):
        raise SummarizationAborted(response.get("errorMessage") or "Summarization aborted")
    if stop == "error":
        detail = response.get("errorMessage") or None
        raise SummarizationError(f"{failure_prefix}: {detail or 'Unknown error'}", detail)
    if stop == "length":
        raise SummarizationError(f"{failure_prefix}: {INCOMPLETE}")
    if any(block.get("type") == "toolCall" for block in response.get("content") or []):
        raise SummarizationError(f"{failure_prefix.removesuffix(' failed')} attempted to call a tool")
    return SummaryOutput(response_text(response), response.get("usage"))


async def generate_summary(
    messages: Sequence[AgentMessage],
    model: Model,
    *,
    api_key: str | None = None,
    signal: AbortSignal | None = None,
    custom_instructions: str | None = None,
    previous_summary: str | None = None,
    complete_fn: CompleteFn = complete_simple,
) -> SummaryOutput:
    """The history summary (initial prompt, or the update prompt when a previous summary exists)."""
    text = prompts.conversation_block(serialize_conversation(messages))
    if previous_summary:
        text += prompts.previous_summary_block(previous_summary)
        instructions = prompts.UPDATE_PROMPT
    else:
        instructions = prompts.INITIAL_PROMPT
    text += prompts.with_focus(instructions, custom_instructions)
    return await request_summary(
        model, text, api_key=api_key, signal=signal, complete_fn=complete_fn, failure_prefix="Summarization failed"
    )


async def generate_turn_prefix_summary(
    messages: Sequence[AgentMessage],
    model: Model,
    *,
    api_key: str | None = None,
    signal: AbortSignal | None = None,
    custom_instructions: str | None = None,
    complete_fn: CompleteFn = complete_simple,
) -> SummaryOutput:
    text = prompts.conversation_block(serialize_conversation(messages))
    text += prompts.with_focus(prompts.TURN_PREFIX_PROMPT, custom_instructions)
    return await request_summary(
        model,
        text,
        api_key=api_key,
        signal=signal,
        complete_fn=complete_fn,
        failure_prefix="Turn prefix summarization failed",
    )


async def summarize_compaction(
    preparation: CompactionPreparation,
    model: Model,
    *,
    api_key: str | None = None,
    custom_instructions: str | None = None,
    signal: AbortSignal | None = None,
    complete_fn: CompleteFn = complete_simple,
) -> CompactionResult:
    """Generate the summary for ``preparation``: for a split turn the history first, then the turn
    prefix (one request after the other, in that order)."""

    async def history() -> SummaryOutput:
        if not preparation.messages_to_summarize:
            # Nothing new before the split turn: keep the previous summary rather than lose it.
            return SummaryOutput(preparation.previous_summary or prompts.NO_PRIOR_HISTORY, None)
        return await generate_summary(
            preparation.messages_to_summarize,
            model,
            api_key=api_key,
            signal=signal,
            custom_instructions=custom_instructions,
            previous_summary=preparation.previous_summary,
            complete_fn=complete_fn,
        )

    if preparation.is_split_turn and preparation.turn_prefix_messages:
        main = await history()
        prefix = await generate_turn_prefix_summary(
            preparation.turn_prefix_messages,
            model,
            api_key=api_key,
            signal=signal,
            custom_instructions=custom_instructions,
            complete_fn=complete_fn,
        )
        summary = main.text + prompts.SPLIT_TURN_SEPARATOR + prefix.text
        usage = add_usage(main.usage, prefix.usage)
    else:
        main = await history()
        summary, usage = main.text, main.usage
    read_files, modified_files = preparation.file_ops.file_lists()
    summary += format_file_lists(read_files, modified_files)
    result: CompactionResult = {
        "summary": summary,
        "firstKeptEntryId": preparation.first_kept_entry_id,
        "tokensBefore": preparation.tokens_before,
        "details": {"readFiles": read_files, "modifiedFiles": modified_files},
    }
    if usage is not None:
        result["usage"] = usage
    return result
