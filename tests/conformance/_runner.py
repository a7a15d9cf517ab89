"""Play a scenario with a ``pi`` command (the real Pi 1.4.0 or ours) against the fake LLM server.

``play(scenario, pi_command, workdir)`` creates an isolated world under ``workdir`` (a project
directory, an agent directory with a ``models.json`` pointing at a fresh ``FakeLLMServer``, a
HOME and a TMPDIR), runs each of the scenario's runs as a subprocess and returns what came out
(:class:`RawResult`). ``_normalize`` turns that into the stable form kept as goldens.

The subprocess gets a minimal environment: PATH, HOME, TMPDIR, LANG, PI_CODING_AGENT_DIR,
PI_OFFLINE=1 and NO_PROXY, nothing from the caller's provider keys or Pi variables.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _scenario import Run, Scenario, Send, Sleep, Wait

from pi_harness.testing.fake_llm import FakeLLMServer, RecordedRequest, load_script

MODEL_ID = "scripted"
PROVIDER = "fake"


@dataclass
class RunOutput:
    mode: str
    exit_code: int | None
    stdout: str
    stderr: str
    records: list[Any] = field(default_factory=list)  # json / rpc: every stdout line, parsed
    errors: list[str] = field(default_factory=list)  # what the client could not do (timeouts, …)


@dataclass
class World:
    root: Path
    project: Path
    agent: Path
    home: Path
    tmp: Path

    @property
    def sessions_dir(self) -> Path:
        return self.agent / "sessions"


@dataclass
class RawResult:
    world: World
    runs: list[RunOutput]
    sessions: list[Path]  # in creation order
    session_texts: list[str]
    requests: list[RecordedRequest]


def base_model(overrides: dict[str, Any]) -> dict[str, Any]:
    """The ``fake/scripted`` model of models.json, with the scenario's overrides."""
    model: dict[str, Any] = {
        "id": MODEL_ID,
        "name": "Scripted fake model",
        "input": ["text"],
        "contextWindow": 128000,
        "maxTokens": 4096,
        "cost": {"input": 1, "output": 2, "cacheRead": 0.5, "cacheWrite": 1.25},
    }
    model.update(overrides)
    return model


def make_world(workdir: Path) -> World:
    world = World(
        root=workdir,
        project=workdir / "project",
        agent=workdir / "agent",
        home=workdir / "home",
        tmp=workdir / "tmp",
    )
    for path in (world.project, world.agent, world.home, world.tmp):
        path.mkdir(parents=True, exist_ok=True)
    return world


def write_config(scenario: Scenario, world: World, server: FakeLLMServer) -> None:
    provider = {
        "baseUrl": server.base_url(scenario.api),
        "api": scenario.api,
        "apiKey": "test-key",
        "models": [base_model(scenario.model)],
    }
    (world.agent / "models.json").write_text(json.dumps({"providers": {PROVIDER: provider}}, indent=2))
    settings: dict[str, Any] = {
        "defaultProvider": PROVIDER,
        "defaultModel": MODEL_ID,
        "retry": {"baseDelayMs": 10},
    }
    settings.update(scenario.settings)
    (world.agent / "settings.json").write_text(json.dumps(settings, indent=2))
    for relative, text in scenario.files.items():
        target = world.project / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    for relative, text in scenario.agent_files.items():
        target = world.agent / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def environment(world: World, extra_path: Sequence[str] = ()) -> dict[str, str]:
    path = os.pathsep.join([*extra_path, os.environ.get("PATH", "/usr/bin:/bin")])
    return {
        "PATH": path,
        "HOME": str(world.home),
        "TMPDIR": str(world.tmp),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "SHELL": "/bin/bash",
        "PI_CODING_AGENT_DIR": str(world.agent),
        "PI_OFFLINE": "1",
        "NO_PROXY": "127.0.0.1,localhost",
    }


def session_files(world: World) -> list[Path]:
    if not world.sessions_dir.is_dir():
        return []
    return list(world.sessions_dir.rglob("*.jsonl"))


def _creation_key(path: Path) -> tuple[str, int, str]:
    # File names start with the creation time (``2026-01-01T10-00-00-000Z_<id>.jsonl``); a file
    # with a parentSession (fork, clone) comes after its parent when both share a millisecond.
    try:
        header = json.loads(path.read_text().split("\n", 1)[0])
    except (OSError, ValueError, IndexError):
        header = {}
    has_parent = 1 if isinstance(header, dict) and header.get("parentSession") else 0
    return (path.name.split("_", 1)[0], has_parent, path.name)


def substitute(value: Any, world: World, sessions: list[Path], responses: dict[str, Any]) -> Any:
    """Fill in ``{session:N}``, ``{project}``, ``{agent}`` and ``$ref:ID:PATH`` (see _scenario)."""
    if isinstance(value, dict):
        return {k: substitute(v, world, sessions, responses) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [substitute(v, world, sessions, responses) for v in value]
    if not isinstance(value, str):
        return value
    if value.startswith("$ref:"):
        _, request_id, path = value.split(":", 2)
        return lookup(responses.get(request_id), path)

    def session_path(match: re.Match[str]) -> str:
        index = int(match.group(1)) - 1
        return str(sessions[index]) if index < len(sessions) else f"<no session {index + 1}>"

    value = re.sub(r"\{session:(\d+)\}", session_path, value)
    return value.replace("{project}", str(world.project)).replace("{agent}", str(world.agent))


def lookup(data: Any, path: str) -> Any:
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if data is None:
            return None
        if part.startswith("["):
            index = int(part[1:-1])
            data = data[index] if isinstance(data, list) and index < len(data) else None
        else:
            data = data.get(part) if isinstance(data, dict) else None
    return data


def _dotted(record: Any, key: str) -> Any:
    for part in key.split("."):
        if not isinstance(record, dict):
            return None
        record = record.get(part)
    return record


class _RpcSession:
    """Feeds steps to ``pi --mode rpc`` and keeps every stdout record in order."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.records: list[Any] = []
        self.raw: list[str] = []
        self.stderr = bytearray()
        self.eof = False
        self.changed = threading.Condition()
        self.position = 0  # records before this index were consumed by earlier waits
        self.readers = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for reader in self.readers:
            reader.start()

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        buffer = b""
        while chunk := os.read(fd, 65536):
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                self._add(line)
        if buffer:
            self._add(buffer)
        with self.changed:
            self.eof = True
            self.changed.notify_all()

    def _add(self, line: bytes) -> None:
        text = line.removesuffix(b"\r").decode("utf-8", errors="replace")
        try:
            record: Any = json.loads(text)
        except ValueError:
            record = {"__non_json__": text}
        with self.changed:
            self.raw.append(text)
            self.records.append(record)
            self.changed.notify_all()

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        fd = self.process.stderr.fileno()
        while chunk := os.read(fd, 65536):
            self.stderr += chunk

    def send(self, command: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command).encode("utf-8") + b"\n")
        self.process.stdin.flush()

    def responses(self) -> dict[str, Any]:
        with self.changed:
            return {
                r["id"]: r for r in self.records if isinstance(r, dict) and r.get("type") == "response" and "id" in r
            }

    def wait(self, step: Wait) -> str | None:
        def matches(record: Any) -> bool:
            if not isinstance(record, dict):
                return False
            if step.response is not None:
                return record.get("type") == "response" and record.get("id") == step.response
            if record.get("type") != step.event:
                return False
            return all(_dotted(record, key) == value for key, value in step.where.items())

        deadline = time.monotonic() + step.timeout
        found = 0
        with self.changed:
            index = self.position
            while True:
                while index < len(self.records):
                    if matches(self.records[index]):
                        found += 1
                        if found == step.count:
                            # Responses may come before or after the events around them, so a
                            # wait for a response does not move the cursor of event waits.
                            if step.response is None:
                                self.position = index + 1
                            return None
                    index += 1
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.eof:
                    what = f"response {step.response}" if step.response else f"event {step.event} {step.where or ''}"
                    return f"timed out waiting for {what}".rstrip()
                self.changed.wait(remaining)


def _run_rpc(run: Run, command: list[str], world: World, env: dict[str, str], sessions: list[Path]) -> RunOutput:
    process = subprocess.Popen(
        command, cwd=world.project, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    client = _RpcSession(process)
    errors: list[str] = []
    deadline = time.monotonic() + run.timeout
    try:
        for number, step in enumerate(run.steps, 1):
            if isinstance(step, Send):
                client.send(substitute(step.command, world, sessions, client.responses()))
            elif isinstance(step, Wait):
                error = client.wait(step)
                if error is not None:
                    errors.append(f"step {number}: {error}")
                    break
            elif isinstance(step, Sleep):
                time.sleep(step.seconds)
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            errors.append("did not exit after stdin was closed")
            process.kill()
            process.wait(10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
        for reader in client.readers:
            reader.join(10)
    with client.changed:
        records = list(client.records)
        raw = "\n".join(client.raw)
    return RunOutput(
        mode="rpc",
        exit_code=process.returncode,
        stdout=raw,
        stderr=client.stderr.decode("utf-8", errors="replace"),
        records=records,
        errors=errors,
    )


def _run_once(run: Run, command: list[str], world: World, env: dict[str, str]) -> RunOutput:
    try:
        done = subprocess.run(
            command,
            cwd=world.project,
            env=env,
            input=run.stdin,
            capture_output=True,
            text=True,
            timeout=run.timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as expired:
        out = expired.stdout.decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        err = expired.stderr.decode() if isinstance(expired.stderr, bytes) else (expired.stderr or "")
        return RunOutput(mode=run.mode, exit_code=None, stdout=out, stderr=err, errors=["timed out"])
    records: list[Any] = []
    if run.mode == "json":
        for line in done.stdout.split("\n"):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except ValueError:
                records.append({"__non_json__": line})
    return RunOutput(mode=run.mode, exit_code=done.returncode, stdout=done.stdout, stderr=done.stderr, records=records)


def command_line(pi_command: Sequence[str], run: Run, args: list[str]) -> list[str]:
    flag = {"print": ["-p"], "json": ["--mode", "json"], "rpc": ["--mode", "rpc"]}[run.mode]
    return [*pi_command, *flag, *args]


def play(scenario: Scenario, pi_command: Sequence[str], workdir: Path, extra_path: Sequence[str] = ()) -> RawResult:
    world = make_world(workdir)
    with FakeLLMServer(load_script(list(scenario.responses))) as server:
        write_config(scenario, world, server)
        env = environment(world, extra_path)
        outputs: list[RunOutput] = []
        sessions: list[Path] = []
        for run in scenario.runs:
            args = [str(a) for a in substitute(list(run.args), world, sessions, {})]
            command = command_line(pi_command, run, args)
            if run.mode == "rpc":
                outputs.append(_run_rpc(run, command, world, env, sessions))
            else:
                outputs.append(_run_once(run, command, world, env))
            known = set(sessions)
            sessions.extend(sorted((p for p in session_files(world) if p not in known), key=_creation_key))
        requests = list(server.requests)
    texts = [p.read_text() if p.exists() else "" for p in sessions]
    return RawResult(world=world, runs=outputs, sessions=sessions, session_texts=texts, requests=requests)
