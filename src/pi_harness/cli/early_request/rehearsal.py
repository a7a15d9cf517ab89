"""The next run's first request, recorded at the end of a run that continued a session file.

``pi --session FILE -p PROMPT`` sends the session's history with its prompt; the next such run
sends that history and this run's exchange too. So that record is made once this run has
answered: the session builds the request a next prompt would send (``AgentSession.rehearse_prompt``,
with a placeholder for the prompt), the transport hands its bytes over instead of sending it
(``early_exchange.rehearse``), and once the session is closed (every entry written) the record is
saved with the session file's signature as it is then (``save``).

What startup looked at comes from this run's trace or, when this run's own first request was sent
ahead, from the record it used. The files the session writes itself (the session file, its
index and lock, their directory) are signed again at the end; everything else keeps the
signature startup saw, so a file that changed during the run leaves the record stale.

After ``MAX_MISSES`` requests sent ahead in a row that were not the session's own, nothing more
is rehearsed for this command line (``misses`` in the record).
"""

from __future__ import annotations

import asyncio
import os

from pi_harness import early_exchange
from pi_harness.cli.early_request import record as records
from pi_harness.cli.early_request.recorder import build_record, model_key
from pi_harness.cli.early_request.state import STATE
from pi_harness.cli.early_request.trace import signature

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from pi_harness.agent.types import AgentMessage
    from pi_harness.ai.types import AssistantMessage, Model

    class RehearsingSession(Protocol):
        """What a rehearsal asks of the session (``AgentSession`` is one)."""

        @property
        def model(self) -> Model | None: ...

        @property
        def pending_message_count(self) -> int: ...

        def get_messages(self) -> list[AgentMessage]: ...

        async def rehearse_prompt(self, text: str) -> AssistantMessage: ...

__all__ = ["MAX_MISSES", "rehearse", "save"]

PLACEHOLDER_PREFIX = "pi-early-request-next-prompt-"
REHEARSAL_TIMEOUT_S = 2.0  # the request is only built, never sent: this is a safety net
MAX_MISSES = 2


def _misses() -> int:
    """Requests sent ahead in a row, up to this run's, that were not the session's own."""
    if STATE.record:  # this run's first request was sent ahead, from this record
        value = STATE.record.get("misses")
        return (value if isinstance(value, int) else 0) + 1 if STATE.mismatched else 0
    value = (records.load(STATE.path) or {}).get("misses")
    return value if isinstance(value, int) else 0


async def rehearse(session: RehearsingSession) -> None:
    """Build the next run's first request (see above) while the session is still open."""
    state = STATE
    if not state.rehearse or state.first_key is None or _misses() >= MAX_MISSES:
        return
    if model_key(session.model) != state.model_key or session.pending_message_count:
        return  # another model than the first request's, or messages queued for the next prompt
    from pi_harness.coding.virtual_models import is_virtual_model

    if is_virtual_model(session.model):
        return  # routing may ask a model and store its state in the session: not for a rehearsal
    messages = session.get_messages()
    if not messages or messages[-1].get("role") != "assistant" or messages[-1].get("stopReason") != "stop":
        return  # the run did not end with an answer: the next one may well be a retry of it
    captured: list[tuple[tuple[str, str, int], bytes]] = []
    early_exchange.rehearse(lambda key, data: captured.append((key, data)))
    placeholder = PLACEHOLDER_PREFIX + os.urandom(8).hex()
    try:
        await asyncio.wait_for(session.rehearse_prompt(placeholder), REHEARSAL_TIMEOUT_S)
    except Exception:  # recording for the next run never fails this one
        pass
    finally:
        early_exchange.refuse_rehearsal()
    if captured and captured[0][0] == state.first_key:
        state.rehearsed, state.prompt = captured[0], placeholder


def _owned_by_session(path: str, session_file: str) -> bool:
    """The session file, what sits beside it under its name (index, lock), and its directory."""
    return path in (session_file, os.path.dirname(session_file)) or path.startswith(session_file + ".")


def _startup_observations() -> dict[tuple[str, str], object]:
    if STATE.observed is not None:
        return STATE.observed
    observed: dict[tuple[str, str], object] = {}
    paths = STATE.record.get("paths")
    for entry in paths if isinstance(paths, list) else []:
        if isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str) and isinstance(entry[1], str):
            observed[(entry[0], entry[1])] = entry[2]
    return observed


def save() -> None:
    """Write the rehearsed request's record, after the session closed (see above)."""
    state = STATE
    misses = _misses() if state.rehearse else 0
    if state.rehearse and misses >= MAX_MISSES:
        kept = state.record or records.load(state.path) or {}
        records.save(state.path, {**kept, "disabled": True, "misses": misses})
        return
    if state.rehearsed is None:
        return
    key, data = state.rehearsed
    state.rehearsed = None
    session_file = os.path.abspath(state.session_file)
    observed = {
        (path, how): sign
        for (path, how), sign in _startup_observations().items()
        if not _owned_by_session(os.path.abspath(path), session_file)
    }
    observed[(session_file, "s")] = signature(session_file, "s")
    record = build_record(state, key, data, observed, same_session=True)
    if record is not None:
        # ``adopted`` counts the runs in a row whose request sent ahead was the session's own.
        before = state.record.get("adopted") if state.record and not state.mismatched else None
        adopted = before + 1 if isinstance(before, int) else 0
        records.save(state.path, {**record, "adopted": adopted, "misses": misses})
