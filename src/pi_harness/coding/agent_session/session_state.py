"""What the parts of one live session share.

Every part of ``AgentSession`` gets this object plus the other parts it works with, each passed
explicitly; no part sees the ``AgentSession`` facade. It holds the session's services (working
directory, session file, settings, models, resources, extension runner), its ``Agent`` and its
event registry, and the few flags that more than one part reads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path

from pi_harness.agent import Agent
from pi_harness.ai.types import AssistantMessage, Model, ThinkingLevel
from pi_harness.coding.agent_session.session_events import SessionEvents
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.extensions.runner import ExtensionRunner
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.coding.resources.loader import ResourceLoader
from pi_harness.coding.secrets import SecretMasker
from pi_harness.coding.session_store.store import SessionManager
from pi_harness.coding.virtual_models import find_latest_response, is_virtual_model

# The extension path under which the session reports its own failures (background work, a run
# that failed with nobody awaiting it) on the extension error channel.
INTERNAL_PATH = "<session>"
# ... and the one under which actions extensions asked for (``send_message``, ``user_bash``
# handlers) are reported when they fail, instead of raising into the handler.
RUNTIME_PATH = "<runtime>"


@dataclass(eq=False)
class SessionState:
    cwd: str
    agent_dir: Path
    manager: SessionManager
    settings: SettingsManager
    model_runtime: ModelRuntime
    resource_loader: ResourceLoader
    extensions: ExtensionRunner
    agent: Agent
    events: SessionEvents
    # ``sdk``, ``interactive``, ``print``, ``json`` or ``rpc``; set again when extensions are bound.
    mode: str
    # Masks credentials in tool results and ``!command`` output (``security.maskSecrets``).
    masker: SecretMasker = field(default_factory=lambda: SecretMasker(lambda: ()))
    # A logical run is in progress: from the moment a prompt is accepted until ``agent_settled``
    # (set by the run driver; input arriving meanwhile is queued, navigation is refused).
    busy: bool = False
    disposed: bool = False
    # Virtual models: the failed response a retry follows (``reason: "retry"``), and the physical
    # model the latest request was routed to (whose limits the conversation is judged by).
    failed_response: AssistantMessage | None = None
    routed_model: Model | None = None
    _background: set[asyncio.Future[object]] = field(default_factory=set, repr=False)

    @property
    def model(self) -> Model | None:
        return self.agent.state.model

    @property
    def thinking_level(self) -> ThinkingLevel:
        return self.agent.state.thinking_level

    def limits_model(self) -> Model | None:
        """The model whose limits apply to the conversation: under a virtual selection, the
        physical model of the latest response (else the virtual model's declared limits)."""
        model = self.model
        if model is None or not is_virtual_model(model):
            return model
        if self.routed_model is not None:
            return self.routed_model
        latest = find_latest_response(self.manager.build_session_context().messages)
        if latest is not None:
            physical = self.model_runtime.get_physical_model(str(latest.get("provider")), str(latest.get("model")))
            if physical is not None:
                return physical
        return model

    def context_window(self) -> int | None:
        model = self.limits_model()
        return int(model["contextWindow"]) if model is not None else None

    def sync_agent_messages(self) -> None:
        """The agent's transcript := the session projection (after compaction, edits, navigation)."""
        self.agent.replace_messages(list(self.manager.build_session_context().messages))

    def report_internal_error(self, event: str, error: BaseException) -> None:
        self.extensions.report(INTERNAL_PATH, event, error)

    def spawn(self, work: Awaitable[object]) -> None:
        """Run ``work`` in the background; a failure is reported on the extension error channel."""
        task = asyncio.ensure_future(work)
        self._background.add(task)

        def done(finished: asyncio.Future[object]) -> None:
            self._background.discard(finished)
            if finished.cancelled():
                return
            error = finished.exception()
            if error is not None:
                self.report_internal_error("background", error)

        task.add_done_callback(done)


__all__ = ["INTERNAL_PATH", "RUNTIME_PATH", "SessionState"]
