"""Recording a run's first request, for the next run of the same command (``replay.py``).

The print and JSON modes call ``arm`` once the session has started, with what only startup
knows: that the run's one prompt is the command line's last word as it was typed, that the session
is new (its request carries nothing but that prompt), and that no extension other than the
built-in ones, and no MCP server, is loaded (their tools and hooks could depend on anything).
A request that names the session's id is not recorded either (the next session has another).
When the first request then goes out (``pi_harness.early_exchange`` calls ``after_traced``), the trace of
startup ends and, if the run was armed, its record is written.

A run that continues a session file (``--session FILE``) is recorded at its end instead: its first
request carries the history as it was, the next run's carries this run's exchange too
(``rehearsal.py``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import NamedTuple

from pi_harness.cli.early_request import record as records
from pi_harness.cli.early_request.state import STATE, EarlyState, stop_tracing
from pi_harness.cli.early_request.template import head_segments, read_files, split_body, split_request


class PromptFacts(NamedTuple):
    """What only the started session knows about a print or JSON run's first request
    (``cli/modes/headless.py`` says)."""

    recordable: bool  # one typed prompt, nothing loaded that the files don't show
    prompt: str
    session_id: str
    session_file: str = ""  # the session file the run continues (``--session FILE``), else ""
    model_key: tuple[str, str, str] = ("", "", "")  # provider, id and base URL of its model


def model_key(model: Mapping[str, object] | None) -> tuple[str, str, str]:
    """Provider, id and base URL of ``model`` (a rehearsal is for the model of the first request)."""
    if model is None:
        return ("", "", "")
    return (str(model.get("provider", "")), str(model.get("id", "")), str(model.get("baseUrl", "")))


def arm(facts: PromptFacts) -> None:
    """Record this run's first request if it is one the next run can send ahead (see above)."""
    state = STATE
    prompt = state.argv[-1] if state.argv else ""
    usable = facts.recordable and facts.prompt == prompt
    if usable and facts.session_file and state.mode in ("tracing", "sent"):
        state.rehearse, state.prompt = True, prompt
        state.session_file, state.model_key = facts.session_file, facts.model_key
        if state.mode == "sent":
            state.first_key = _target_key(state.record)
        return
    if state.mode != "tracing":
        return
    if usable:
        state.eligible, state.prompt, state.session_id = True, prompt, facts.session_id
    else:
        stop_tracing()


def _target_key(record: dict[str, object]) -> tuple[str, str, int] | None:
    target = record.get("target")
    if isinstance(target, list) and len(target) == 3:
        scheme, host, port = target
        if isinstance(scheme, str) and isinstance(host, str) and isinstance(port, int):
            return (scheme, host, port)
    return None


def after_traced(key: tuple[str, str, int], data: bytes, outcome: str) -> None:
    state = STATE
    trace = state.trace
    if trace is not None:
        trace.stop()
    if state.mode != "tracing" or trace is None or trace.overflowed or key[0] != "http":
        state.rehearse = False
        return
    if state.rehearse:  # recorded at the end of the run (``rehearsal.py``)
        state.mode, state.first_key, state.observed = "off", key, dict(trace.observed)
        return
    if not state.eligible:
        return
    state.mode = "off"
    record = build_record(state, key, data, trace.observed)
    if record is not None:
        records.save(state.path, record)


def build_record(
    state: EarlyState,
    key: tuple[str, str, int],
    data: bytes,
    observed: dict[tuple[str, str], object],
    *,
    same_session: bool = False,
) -> dict[str, object] | None:
    """The record of request ``data`` to ``key``; ``same_session``: the next run continues this
    run's session, so the session's id may be in it."""
    from pi_harness.__about__ import __version__

    parts = split_request(data)
    if parts is None:
        return None
    head, body = parts
    if not same_session and state.session_id and state.session_id.encode() in data:
        return None  # the next run's session has another id: its request could never match
    body_parts = split_body(body, state.prompt)
    segments = head_segments(head, state.environ, read_files(observed, (state.agent_dir, state.cwd)))
    if body_parts is None or segments is None:
        return None
    # The record's own file and its directory are not inputs of the request.
    own = (state.path, os.path.dirname(state.path))
    paths = [[path, how, sign] for (path, how), sign in observed.items() if path not in own]
    return {
        "format": records.FORMAT,
        "version": __version__,
        "python": records.interpreter(),
        "argv": state.argv[:-1],
        "cwd": state.cwd,
        "env": records.environment_digest(state.environ),
        "stdin": state.stdin,
        "stdoutTty": state.stdout_tty,
        "paths": paths,
        "target": list(key),
        "head": segments,
        "body": body_parts,
        "adopted": 0,
        "disabled": False,
    }
