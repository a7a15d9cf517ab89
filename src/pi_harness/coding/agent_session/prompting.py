"""Turning input into runs and queued messages.

``start`` is the 1.4.0 prompt pipeline (the extension events are described in extensions.md):

1. while ``agent_settled`` is being emitted, wait for the emission to end (from inside an
   ``agent_settled`` listener the prompt is queued until then);
2. ``/name args`` of an extension command runs the command at once, even while streaming;
3. compaction in progress ⇒ ``Cannot submit a prompt while compaction is in progress``;
4. the extension ``input`` event (transforms chain, ``handled`` stops);
5. ``/skill:name args`` and prompt templates are expanded;
6. while streaming the text is queued as steering or follow-up (``streamingBehavior`` required);
7.-8. a model and credentials are required;
9. the run starts: busy at once, then (in the run) compaction check point 1,
   ``before_agent_start``, the user message, held ``nextTurn`` and extension messages.

Extension messages (``send_message``): ``nextTurn`` ones wait for the next prompt; while
streaming they are queued as steering/follow-up, or, without ``triggerTurn``, appended when the
current turn ends (so they never fall between a tool call and its result); when idle they start
a run (``triggerTurn``) or are appended at once.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Literal, cast

from pi_harness.agent import user_message
from pi_harness.agent.types import AgentMessage, CustomMessage
from pi_harness.ai.types import ImageContent, TextContent
from pi_harness.coding.agent_session.compaction_control import CompactionControl
from pi_harness.coding.agent_session.pump import EventPump
from pi_harness.coding.agent_session.queued_messages import QueuedMessages, QueueKind
from pi_harness.coding.agent_session.run_driver import RunDriver, RunHandle
from pi_harness.coding.agent_session.session_errors import (
    COMPACTION_IN_PROGRESS,
    NO_MODEL_SELECTED,
    SESSION_DISPOSED,
    STREAMING_BEHAVIOR_REQUIRED,
    SessionError,
    command_cannot_be_queued,
    no_api_key,
    oauth_failed,
)
from pi_harness.coding.agent_session.session_state import SessionState
from pi_harness.coding.agent_session.system_prompt_state import SystemPromptState
from pi_harness.coding.agent_session.tool_registry import ToolRegistry
from pi_harness.coding.resources.skills import SkillExpansionError, expand_skill_command
from pi_harness.coding.resources.templates import expand_template

Disposition = Literal["started", "queued", "handled"]
Source = Literal["interactive", "rpc", "extension"]
StreamingBehavior = Literal["steer", "followUp"]
CustomContent = str | list[TextContent | ImageContent]


def custom_message(message: Mapping[str, object]) -> CustomMessage:
    """An extension's ``{customType, content, display, details?}`` as a ``custom`` agent message."""
    content = message.get("content")
    custom: CustomMessage = {
        "role": "custom",
        "customType": str(message.get("customType") or message.get("custom_type") or "extension"),
        # Passed on as the extension gave it; the context conversion reads strings and blocks.
        "content": cast(CustomContent, content) if content is not None else "",
        "display": bool(message.get("display", True)),
        "timestamp": int(time.time() * 1000),
    }
    if message.get("details") is not None:
        custom["details"] = message["details"]
    return custom


def split_user_content(content: object) -> tuple[str, list[ImageContent] | None]:
    """Text and images of ``send_user_message`` content (a string or content blocks)."""
    if isinstance(content, str):
        return content, None
    texts: list[str] = []
    images: list[ImageContent] = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "text":
            texts.append(str(block.get("text") or ""))
        elif isinstance(block, dict) and block.get("type") == "image":
            images.append(cast(ImageContent, block))
    return "\n".join(texts), images or None


class Prompting:
    def __init__(
        self,
        state: SessionState,
        *,
        driver: RunDriver,
        queues: QueuedMessages,
        compaction: CompactionControl,
        prompt: SystemPromptState,
        tools: ToolRegistry,
        pump: EventPump,
        ensure_bound: Callable[[], Awaitable[None]],
    ) -> None:
        self._state = state
        self._driver = driver
        self._queues = queues
        self._compaction = compaction
        self._prompt = prompt
        self._tools = tools
        self._pump = pump
        # Binding extensions needs the extension host, which is built from this part (extensions
        # send messages through it); the session hands over the binding step as a function.
        self._ensure_bound = ensure_bound
        # Extension messages sent with ``deliverAs: "nextTurn"``: they go with the next prompt.
        self.next_turn: list[AgentMessage] = []

    # -- pieces of the pipeline ------------------------------------------------------------------

    def command(self, text: str) -> tuple[str, str] | None:
        """``(name, args)`` when ``text`` invokes an extension command."""
        if not text.startswith("/"):
            return None
        head, _, args = text[1:].partition(" ")
        name = head.split("\n", 1)[0]
        if not name or self._state.extensions.find_command(name) is None:
            return None
        return name, args

    def expand(self, text: str) -> str:
        """``/skill:name args`` first, then prompt templates."""
        state = self._state
        loader = state.resource_loader
        # ``enableSkillCommands`` only hides skills from interactive completion; a typed
        # ``/skill:name`` is expanded either way.
        if text.startswith("/skill:"):
            try:
                expanded = expand_skill_command(text, loader.get_skills())
            except SkillExpansionError as error:
                state.extensions.report(error.skill.file_path, "skill_expansion", error)
                return text
            if expanded != text:
                return expanded
        return expand_template(text, loader.get_prompts())

    async def _input(
        self,
        text: str,
        images: list[ImageContent] | None,
        source: Source,
        streaming_behavior: StreamingBehavior | None = None,
    ) -> tuple[str, list[ImageContent] | None] | None:
        """The ``input`` event: ``None`` when a handler handled the input. ``streaming_behavior``
        says how the input will be delivered while a run streams (Pi's ``streamingBehavior``)."""
        extensions = self._state.extensions
        if not extensions.has_handlers("input"):
            return text, images
        behavior = streaming_behavior if self._state.busy else None
        outcome = await extensions.emit_input(text, list(images) if images else None, source, behavior)
        if outcome.get("action") == "handled":
            return None
        return str(outcome.get("text", text)), outcome.get("images") or None

    def check_ready(self) -> None:
        """Steps 7 and 8: a model with usable credentials."""
        state = self._state
        model = state.model
        if model is None:
            raise SessionError(NO_MODEL_SELECTED)
        provider = model["provider"]
        runtime = state.model_runtime
        if not runtime.has_credentials(provider):
            raise SessionError(no_api_key(provider, str(state.agent_dir)))
        stored = runtime.auth.get(provider)
        if stored is not None and stored.get("type") == "oauth" and runtime.get_api_key(provider) is None:
            raise SessionError(oauth_failed(provider))

    # -- prompt ----------------------------------------------------------------------------------

    async def prompt(
        self,
        text: str,
        images: list[ImageContent] | None,
        streaming_behavior: StreamingBehavior | None,
        source: Source,
        *,
        wait: bool,
    ) -> Disposition:
        """Submit input. ``"started"`` returns once the whole run settled (unless ``wait=False``)."""
        disposition, handle = await self.start(text, images, streaming_behavior, source)
        if handle is not None and wait:
            await self._driver.wait(handle)
        return disposition

    async def start(
        self,
        text: str,
        images: list[ImageContent] | None,
        streaming_behavior: StreamingBehavior | None,
        source: Source,
    ) -> tuple[Disposition, RunHandle | None]:
        """Steps 1-9; returns the disposition and, when started, the run handle."""
        state = self._state
        if state.disposed:
            raise SessionError(SESSION_DISPOSED)
        driver = self._driver
        if driver.settling:
            if driver.in_settle_emission():
                driver.after_settle(lambda: self.start(text, images, streaming_behavior, source))
                return "queued", None
            await driver.wait_settled()
        await self._ensure_bound()
        command = self.command(text)
        if command is not None:
            await state.extensions.run_command(*command)
            return "handled", None
        if self._compaction.is_compacting:
            raise SessionError(COMPACTION_IN_PROGRESS)
        received = await self._input(text, images, source, streaming_behavior)
        if received is None:
            return "handled", None
        text, images = received
        text = self.expand(text)
        if state.busy:
            if streaming_behavior not in ("steer", "followUp"):
                raise SessionError(STREAMING_BEHAVIOR_REQUIRED)
            await self._queues.add(streaming_behavior, text, images)
            return "queued", None
        self.check_ready()
        handle = driver.start(lambda: self.prepare_run(text, images))
        return "started", handle

    async def prepare_run(self, text: str, images: list[ImageContent] | None) -> list[AgentMessage]:
        """Step 9 inside the run: check point 1, ``before_agent_start``, the messages to send."""
        self._compaction.reset_overflow_recovery()  # a new user message starts
        await self._compaction.before_prompt()
        extension_messages = await self._before_agent_start(text, images)
        messages: list[AgentMessage] = [user_message(text, images), *self.next_turn, *extension_messages]
        self.next_turn = []
        return messages

    async def _before_agent_start(self, text: str, images: list[ImageContent] | None) -> list[AgentMessage]:
        prompt = self._prompt
        extensions = self._state.extensions
        if not extensions.has_handlers("before_agent_start"):
            prompt.reset_run()
            return []
        active = self._tools.active_names()
        payload = prompt.before_agent_start_payload(text, images, active)
        result = await extensions.emit_before_agent_start(payload)
        tools = payload.get("tools")
        if isinstance(tools, list) and tools != active:
            self._tools.set_active([name for name in tools if isinstance(name, str)])
        system_prompt = result.get("systemPrompt")
        prompt.apply_before_agent_start(payload, system_prompt if isinstance(system_prompt, str) else None)
        return [custom_message(m) for m in result.get("messages") or [] if isinstance(m, dict)]

    # -- steering and follow-up ------------------------------------------------------------------

    async def queue(
        self, kind: QueueKind, text: str, images: list[ImageContent] | None, source: Source
    ) -> Literal["queued", "handled"]:
        if self._state.disposed:
            raise SessionError(SESSION_DISPOSED)
        await self._ensure_bound()
        command = self.command(text)
        if command is not None:
            raise SessionError(command_cannot_be_queued(command[0]))
        received = await self._input(text, images, source, kind)
        if received is None:
            return "handled"
        text, images = received
        await self._queues.add(kind, self.expand(text), images)
        return "queued"

    # -- extension messages ----------------------------------------------------------------------

    async def send_message(self, message: Mapping[str, object], *, trigger_turn: bool, deliver_as: str | None) -> None:
        state = self._state
        custom = custom_message(message)
        if deliver_as == "nextTurn":
            self.next_turn.append(custom)
            return
        if state.busy:
            if deliver_as == "followUp":
                state.agent.follow_up(custom)
            elif deliver_as == "steer" or trigger_turn:
                state.agent.steer(custom)
            else:
                self._pump.defer(custom)
            return
        if trigger_turn:
            self.check_ready()
            self._driver.start(lambda: self._prepare_messages([custom]))
            return
        await self._pump.deliver(custom)
        state.sync_agent_messages()

    async def _prepare_messages(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        await self._compaction.before_prompt()
        return messages

    async def send_user_message(
        self, content: object, *, deliver_as: str | None, expand_prompt_templates: bool = False
    ) -> None:
        text, images = split_user_content(content)
        if expand_prompt_templates:
            # As typed input: ``/command`` runs the extension command, templates and skills expand.
            behavior = cast("StreamingBehavior | None", deliver_as) if self._state.busy else None
            if self._state.busy and behavior is None:
                raise SessionError(STREAMING_BEHAVIOR_REQUIRED)
            await self.prompt(text, images, behavior, "extension", wait=False)
            return
        received = await self._input(text, images, "extension")
        if received is None:
            return
        text, images = received
        if self._state.busy:
            if deliver_as not in ("steer", "followUp"):
                raise SessionError(STREAMING_BEHAVIOR_REQUIRED)
            await self._queues.add(cast(QueueKind, deliver_as), text, images)
            return
        self.check_ready()
        self._driver.start(lambda: self.prepare_run(text, images))


__all__ = ["Disposition", "Prompting", "Source", "StreamingBehavior", "custom_message", "split_user_content"]
