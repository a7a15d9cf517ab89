"""The scenario format of the conformance suite.

A scenario is one situation played twice: once by the real Pi 1.4.0 (``scripts/record-goldens``,
which writes the goldens) and once by our ``pi`` (the tests, which compare with the goldens). Both
runs get the same fake LLM server script, the same project and agent-dir files and the same
command lines, so every difference in what comes out is a difference of the implementations.

A scenario is made of one or more *runs* of the ``pi`` command in the same project and agent dir
(one after the other, so a later run can ``--continue`` an earlier one's session). A run is in one
of three modes:

* ``print``: ``pi -p ARGS``; what is kept is stdout, stderr and the exit code.
* ``json``: ``pi --mode json ARGS``; stdout is kept as JSON records.
* ``rpc``: ``pi --mode rpc ARGS`` fed with ``steps``, see :class:`Send` and :class:`Wait`; every
  stdout record is kept.

Strings in ``args`` and in RPC commands may name things only known while the scenario runs:

* ``{session:N}``: the path of the N-th session file (1-based, in creation order) found after the
  previous runs, e.g. ``["--session", "{session:1}", "Again"]``;
* ``{project}`` and ``{agent}``: the project directory and the agent directory;
* ``$ref:ID:PATH`` (the whole string): a value from the response to the RPC command with id
  ``ID`` in the same run, ``PATH`` being dotted keys and ``[n]`` indexes into that response, e.g.
  ``"$ref:forks:data.messages[0].entryId"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Mode = Literal["print", "json", "rpc"]


@dataclass(frozen=True)
class Send:
    """Write one RPC command (give it an ``id`` so that its response can be waited for)."""

    command: dict[str, Any]


@dataclass(frozen=True)
class Wait:
    """Wait for a stdout record, looking only at records after the one the previous wait found.

    ``response``: the response to the command with this id. ``event``: the next event of this
    type whose fields include ``where`` (dotted keys, e.g. ``{"assistantMessageEvent.type":
    "text_delta"}``). ``count``: wait for that many such events.
    """

    event: str | None = None
    response: str | None = None
    where: dict[str, Any] = field(default_factory=dict)
    count: int = 1
    timeout: float = 20.0


@dataclass(frozen=True)
class Sleep:
    """Pause the client (only where Pi itself gives no event to wait for)."""

    seconds: float


Step = Send | Wait | Sleep


@dataclass(frozen=True)
class Run:
    mode: Mode
    args: tuple[str, ...] = ()
    steps: tuple[Step, ...] = ()  # rpc only; stdin is closed after the last step
    stdin: str = ""  # print and json: what is piped to stdin
    timeout: float = 30.0


@dataclass(frozen=True)
class Scenario:
    """One conformance situation.

    ``responses``: the fake server's script (the JSON script format of
    ``pi_harness.testing.fake_llm``, see docs/testing.md), one response per model request.
    ``api``: the wire API of the ``fake`` provider. ``model``: keys merged into the model entry
    of models.json (e.g. ``{"reasoning": True}``). ``settings``: keys merged into the agent dir's
    settings.json. ``files`` / ``agent_files``: files created in the project / agent dir before
    the first run (relative paths, text content).
    """

    name: str
    description: str
    runs: tuple[Run, ...]
    responses: tuple[dict[str, Any], ...] = ()
    api: str = "openai-completions"
    model: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    agent_files: dict[str, str] = field(default_factory=dict)


def rpc(*steps: Step, args: tuple[str, ...] = (), timeout: float = 30.0) -> Run:
    return Run(mode="rpc", args=args, steps=steps, timeout=timeout)


def prompt(request_id: str, message: str, **fields: Any) -> Send:
    return Send({"id": request_id, "type": "prompt", "message": message, **fields})


def command(request_id: str, kind: str, **fields: Any) -> Send:
    return Send({"id": request_id, "type": kind, **fields})


def settled(timeout: float = 20.0) -> Wait:
    return Wait(event="agent_settled", timeout=timeout)


def response(request_id: str, timeout: float = 20.0) -> Wait:
    return Wait(response=request_id, timeout=timeout)


def ask(request_id: str, kind: str, **fields: Any) -> tuple[Send, Wait]:
    """A command and the wait for its response."""
    return command(request_id, kind, **fields), response(request_id)
