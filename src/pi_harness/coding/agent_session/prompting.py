"""Turning input into runs and queued messages (agent-loop.md 8.2 and 5.4, extensions.md 6).

``start`` is the 1.4.0 prompt pipeline:

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
from typing import TYPE_CHECKING, Any, Literal, cast

from pi_harness.agent import user_message
from pi_harness.agent.types import AgentMessage, CustomMessage
from pi_harness.ai.types import ImageContent
from pi_harness.coding.agent_session.errors import (
    COMPACTION_IN_PROGRESS,
    NO_MODEL_SELECTED,
    SESSION_DISPOSED,
    STREAMING_BEHAVIOR_REQUIRED,
    SessionError,
    command_cannot_be_queued,
    no_api_key,
    oauth_failed,
)
from pi_harness.coding.agent_session.queues import QueueKind
from pi_harness.coding.resources.skills import SkillExpansionError, expand_skill_command
from pi_harness.coding.resources.templates import expand_template

if TYPE_CHECKING:
    from pi_harness.coding.agent_session.agent_session import AgentSession

Disposition = Literal["started", "queued", "handled"]
Source = Literal["interactive", "rpc", "extension"]
StreamingBehavior = Literal["steer", "followUp"]


def custom_message(message: dict[str, Any]) -> CustomMessage:
    """An extension's ``{customType, content, display, details?}`` as a ``custom`` agent message."""
    custom: CustomMessage = {
        "role": "custom",
        "customType": str(message.get("customType") or message.get("custom_type") or "extension"),
        "content": cast(Any, message.get("content")) if message.get("content") is not None else "",
        "display": bool(message.get("display", True)),
        "timestamp": int(time.time() * 1000),
    }
    if message.get("details") is not None:
        custom["details"] = message["details"]
    return custom


def split_user_content(content: Any) -> tuple[str, list[ImageContent] | None]:
    """Text and images of ``send_user_message`` content (a string or content blocks)."""
    if isinstance(content, str):
        return content, None
    texts: list[str] = []
    images: list[ImageContent] = []
    for block in content or []:
        if isinstance(block, dict) and block.get("type") == "text":
            texts.append(str(block.get("text") or ""))
        elif isinstance(block, dict) and block.get("type") == "image":
            images.append(cast(ImageContent, block))
    return "\n".join(texts), images or None


class Prompting:
    def __init__(self, session: AgentSession) -> None:
        self._session = session
        self.next_turn: list[AgentMessage] = []
        self.deferred: list[AgentMessage] = []

    # -- pieces of the pipeline ------------------------------------------------------------------

    def command(self, text: str) -> tuple[str, str] | None:
        """``(name, args)`` when ``text`` invokes an extension command."""
        if not text.startswith("/"):
            return None
        head, _, args = text[1:].partition(" ")
        name = head.split("\n", 1)[0]
        if not name or self._session.extensions.find_command(name) is None:
            return None
        return name, args

    def expand(self, text: str) -> str:
        """``/skill:name args`` first, then prompt templates."""
        session = self._session
        loader = session.resource_loader
        if text.startswith("/skill:") and session.settings.get("enableSkillCommands") is not False:
            try:
                expanded = expand_skill_command(text, loader.get_skills())
            except SkillExpansionError as error:
                session.extensions.report(error.skill.file_path, "skill_expansion", error)
                return text
            if expanded != text:
                return expanded
        return expand_template(text, loader.get_prompts())

    async def _input(
        self, text: str, images: list[ImageContent] | None, source: Source
    ) -> tuple[str, list[ImageContent] | None] | None:
        """The ``input`` event: ``None`` when a handler handled the input."""
        extensions = self._session.extensions
        if not extensions.has_handlers("input"):
            return text, images
        outcome = await extensions.emit_input(text, list(images) if images else None, source)
        if outcome.get("action") == "handled":
            return None
        return str(outcome.get("text", text)), outcome.get("images") or None

    def check_ready(self) -> None:
        """Steps 7 and 8: a model with usable credentials."""
        session = self._session
        model = session.model
        if model is None:
            raise SessionError(NO_MODEL_SELECTED)
        provider = model["provider"]
        runtime = session.model_runtime
        if not runtime.has_credentials(provider):
            raise SessionError(no_api_key(provider, str(session.agent_dir)))
        stored = runtime.auth.get(provider)
        if stored is not None and stored.get("type") == "oauth" and runtime.get_api_key(provider) is None:
            raise SessionError(oauth_failed(provider))

    async def enqueue(self, kind: QueueKind, text: str, images: list[ImageContent] | None) -> None:
        agent = self._session.agent
        message = user_message(text, images)
        if kind == "steer":
            agent.steer(message)
        else:
            agent.follow_up(message)
        await self._session.queues.add(kind, text)

    # -- prompt ----------------------------------------------------------------------------------

    async def start(
        self,
        text: str,
        images: list[ImageContent] | None,
        streaming_behavior: StreamingBehavior | None,
        source: Source,
    ) -> tuple[Disposition, Any]:
        """Steps 1-9; returns the disposition and, when started, the run handle."""
        session = self._session
        if session.is_disposed:
            raise SessionError(SESSION_DISPOSED)
        driver = session.driver
        if driver.settling:
            if driver.in_settle_emission():
                driver.after_settle(lambda: self.start(text, images, streaming_behavior, source))
                return "queued", None
            await driver.wait_settled()
        await session.ensure_bound()
        command = self.command(text)
        if command is not None:
            await session.extensions.run_command(*command)
            return "handled", None
        if session.is_compacting:
            raise SessionError(COMPACTION_IN_PROGRESS)
        received = await self._input(text, images, source)
        if received is None:
            return "handled", None
        text, images = received
        text = self.expand(text)
        if session.is_streaming:
            if streaming_behavior not in ("steer", "followUp"):
                raise SessionError(STREAMING_BEHAVIOR_REQUIRED)
            await self.enqueue(streaming_behavior, text, images)
            return "queued", None
        self.check_ready()
        handle = driver.start(lambda: self.prepare_run(text, images))
        return "started", handle

    async def prepare_run(self, text: str, images: list[ImageContent] | None) -> list[AgentMessage]:
        """Step 9 inside the run: check point 1, ``before_agent_start``, the messages to send."""
        session = self._session
        session.compaction.reset_overflow_recovery()  # a new user message starts
        await session.compaction.before_prompt()
        extension_messages = await self._before_agent_start(text, images)
        messages: list[AgentMessage] = [user_message(text, images), *self.next_turn, *extension_messages]
        self.next_turn = []
        return messages

    async def _before_agent_start(self, text: str, images: list[ImageContent] | None) -> list[AgentMessage]:
        session = self._session
        state = session.prompt_state
        extensions = session.extensions
        if not extensions.has_handlers("before_agent_start"):
            state.reset_run()
            return []
        active = session.tool_registry.active_names()
        payload = state.before_agent_start_payload(text, images, active)
        result = await extensions.emit_before_agent_start(payload)
        tools = payload.get("tools")
        if isinstance(tools, list) and tools != active:
            session.tool_registry.set_active([name for name in tools if isinstance(name, str)])
        system_prompt = result.get("systemPrompt")
        state.apply_before_agent_start(payload, system_prompt if isinstance(system_prompt, str) else None)
        return [custom_message(m) for m in result.get("messages") or [] if isinstance(m, dict)]

    # -- steering and follow-up ------------------------------------------------------------------

    async def queue(
        self, kind: QueueKind, text: str, images: list[ImageContent] | None, source: Source
    ) -> Literal["queued", "handled"]:
        session = self._session
        if session.is_disposed:
            raise SessionError(SESSION_DISPOSED)
        await session.ensure_bound()
        command = self.command(text)
        if command is not None:
            raise SessionError(command_cannot_be_queued(command[0]))
        received = await self._input(text, images, source)
        if received is None:
            return "handled"
        text, images = received
        await self.enqueue(kind, self.expand(text), images)
        return "queued"

    # -- extension messages ----------------------------------------------------------------------

    async def send_message(self, message: dict[str, Any], *, trigger_turn: bool, deliver_as: str | None) -> None:
        session = self._session
        custom = custom_message(message)
        if deliver_as == "nextTurn":
            self.next_turn.append(custom)
            return
        if session.is_streaming:
            if deliver_as == "followUp":
                session.agent.follow_up(custom)
            elif deliver_as == "steer" or trigger_turn:
                session.agent.steer(custom)
            else:
                self.deferred.append(custom)
            return
        if trigger_turn:
            self.check_ready()
            session.driver.start(lambda: self._prepare_messages([custom]))
            return
        await session.pump.deliver(custom)
        session.sync_agent_messages()

    async def _prepare_messages(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        await self._session.compaction.before_prompt()
        return messages

    async def send_user_message(self, content: Any, *, deliver_as: str | None) -> None:
        session = self._session
        text, images = split_user_content(content)
        received = await self._input(text, images, "extension")
        if received is None:
            return
        text, images = received
        if session.is_streaming:
            if deliver_as not in ("steer", "followUp"):
                raise SessionError(STREAMING_BEHAVIOR_REQUIRED)
            await self.enqueue(cast(QueueKind, deliver_as), text, images)
            return
        self.check_ready()
        session.driver.start(lambda: self.prepare_run(text, images))


__all__ = ["Disposition", "Prompting", "Source", "StreamingBehavior", "custom_message", "split_user_content"]
