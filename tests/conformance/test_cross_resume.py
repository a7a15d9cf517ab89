"""Switching programs on one session file: a session written by Pi 1.4.0 and continued by our
``pi``, or the other way round, sends the system prompt once (one preamble, one tool list).

Pi replays the system messages of a session (the first declares every prompt section and tool,
later ones patch sections by name) and sends ``content`` followed by the sections; both programs
write ``content: ""`` and tagged sections, so a continued session's prompt is the other
program's sections patched by name, not two prompts one after the other.

* With the reference Pi installed (``$PI_REFERENCE``, /work/pi-ref, ``$TMPDIR/pi-reference``),
  both directions are played for real; without it (CI) those tests are skipped.
* Always: session files written by Pi 1.4.0 (``tests/fixtures/cross_resume/pi14_*.jsonl``) and by
  pi-harness before it wrote Pi's shape (``pi_harness_legacy.jsonl``: the whole prompt in
  ``content``, untagged sections, removed tools as bare names) are continued by our ``pi``.

The Pi fixtures are recorded with ``python tests/conformance/test_cross_resume.py --record``:
the project directory becomes ``@PROJECT@`` (put back when a test copies the file) and the
program's package directory ``@PI_PACKAGE@`` (only prompt text).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from _programs import REPO, find_reference, our_pi
from _runner import World, environment, make_world, play, session_files, write_config
from _scenario import Run, Scenario, ask, prompt, rpc, settled

from pi_harness.testing.fake_llm import FakeLLMServer, RecordedRequest, load_script

FIXTURES = REPO / "tests" / "fixtures" / "cross_resume"
PROJECT = "@PROJECT@"
PACKAGE = "@PI_PACKAGE@"
# Both programs' preambles start so (Pi: "... inside pi, ...", ours: "... inside pi-harness, ...").
PREAMBLE = "You are an expert coding assistant operating inside pi"
OUR_PREAMBLE = "You are an expert coding assistant operating inside pi-harness"

ANSWER = {"steps": [{"text": "Continued."}]}


def text(value: str) -> dict[str, Any]:
    return {"steps": [{"text": value}]}


# What the Pi fixtures were recorded from (see ``record``).
PI_PLAIN = Scenario(
    name="pi14_plain",
    description="one prompt and its answer",
    runs=(Run(mode="print", args=("Remember the word mango",)),),
    responses=(text("I will remember mango."),),
)
COMPACTED = Scenario(
    name="pi14_compacted",
    description="two prompts, a manual compaction, one more prompt",
    settings={"compaction": {"keepRecentTokens": 10}},
    runs=(
        rpc(
            prompt("p1", "First task: list the files"),
            settled(),
            prompt("p2", "Second task: " + "explain every file in detail " * 20),
            settled(),
            *ask("compact", "compact", customInstructions="Keep it short"),
            prompt("p3", "Continue"),
            settled(),
        ),
    ),
    responses=(
        text("None."),
        text("Nothing."),
        text("## Goal\nList and explain files.\n\n## Progress\nNo files found."),
        text("Continuing after the compaction."),
    ),
)


@dataclass
class Bench:
    """A project, an agent dir pointing at a fake server, and the environment to run ``pi`` in."""

    world: World
    server: FakeLLMServer
    env: dict[str, str]

    def run(self, command: Sequence[str], *args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [*command, "-p", *args],
            cwd=self.world.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, f"{command[-1]} {args} failed ({done.returncode}):\n{done.stderr[-2000:]}"
        return done

    def session(self) -> Path:
        (path,) = session_files(self.world)
        return path

    def install(self, fixture: str, text: str | None = None) -> Path:
        """A copy of a fixture session file (or of ``text`` in that form) in this project's session dir."""
        if text is None:
            text = (FIXTURES / fixture).read_text()
        target = self.world.sessions_dir / "copied" / fixture
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text.replace(PROJECT, json.dumps(str(self.world.project))[1:-1]))
        return target


@contextmanager
def bench(tmp_path: Path, answers: int = 1) -> Iterator[Bench]:
    world = make_world(tmp_path / "world")
    with FakeLLMServer(load_script([ANSWER] * answers)) as server:
        write_config(Scenario(name="cross", description="", runs=()), world, server)
        yield Bench(world, server, environment(world))


def reference_command() -> list[str]:
    reference, looked = find_reference()
    if reference is None:
        pytest.skip(f"the reference Pi 1.4.0 is not installed (looked at {looked}); CI has none")
    return reference.command()


# -- what a request carries --------------------------------------------------------------------


def system_texts(request: RecordedRequest) -> list[str]:
    """The system/developer messages of an openai-completions request, as text."""
    texts: list[str] = []
    for message in request.json.get("messages", []):
        if message.get("role") not in ("system", "developer"):
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        texts.append(str(content))
    return texts


def tool_names(request: RecordedRequest) -> list[str]:
    return [tool["function"]["name"] for tool in request.json.get("tools", [])]


def assert_prompt_sent_once(request: RecordedRequest) -> str:
    """One system message with one preamble, one tool list and one cwd; no tool declared twice."""
    systems = system_texts(request)
    assert len(systems) == 1, f"{len(systems)} system messages"
    (prompt_text,) = systems
    assert prompt_text.count(PREAMBLE) == 1, prompt_text[:3000]
    assert prompt_text.count("<tools>") == 1, prompt_text[:3000]
    assert prompt_text.count("<cwd>") == 1, prompt_text[-1000:]
    names = tool_names(request)
    assert names and len(names) == len(set(names)), names
    return prompt_text


def roles(request: RecordedRequest) -> list[str]:
    return [str(message.get("role")) for message in request.json.get("messages", [])]


def system_messages(path: Path) -> list[dict[str, Any]]:
    entries = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [
        entry["message"] for entry in entries if entry.get("type") == "message" and entry["message"]["role"] == "system"
    ]


def assert_pi_shape(message: dict[str, Any]) -> None:
    assert message["content"] == ""
    assert isinstance(message["timestamp"], int) and message["timestamp"] > 0
    for name, text in (message.get("sections") or {}).items():
        if name != "preamble" and text is not None:
            assert text.startswith(f"<{name}>\n") and text.endswith(f"\n</{name}>"), (name, text[:80])
    for removed in message.get("toolsRemoved") or []:
        assert isinstance(removed, dict) and set(removed) == {"name"}


# -- CI: fixtures ------------------------------------------------------------------------------


def test_ours_continues_a_session_written_by_pi(tmp_path: Path) -> None:
    with bench(tmp_path) as b:
        path = b.install("pi14_plain.jsonl")
        original = path.read_bytes()
        b.run(our_pi(), "--session", str(path), "What was the word?")
        (request,) = b.server.requests
        prompt_text = assert_prompt_sent_once(request)
        assert prompt_text.startswith(OUR_PREAMBLE)  # our sections, patched over Pi's by name
        assert roles(request) == ["system", "user", "assistant", "user"]
        # Pi's lines stay as they are; ours follow in Pi's shape.
        data = path.read_bytes()
        assert data.startswith(original)
        pi_first, patch = system_messages(path)
        assert_pi_shape(pi_first)
        assert_pi_shape(patch)
        assert set(patch["sections"]) >= {"preamble", "tools", "cwd"}


def test_ours_continues_a_pi_session_after_its_compaction(tmp_path: Path) -> None:
    """Pi's compaction carries the system checkpoint; the compacted context starts with it."""
    with bench(tmp_path) as b:
        path = b.install("pi14_compacted.jsonl")
        b.run(our_pi(), "--session", str(path), "And now?")
        (request,) = b.server.requests
        assert_prompt_sent_once(request).startswith(OUR_PREAMBLE)
        assert roles(request)[0] == "system" and roles(request).count("system") == 1
        contents = [m.get("content") for m in request.json["messages"] if m.get("role") == "user"]
        assert "The conversation before this point was condensed" in json.dumps(contents[0])


def test_ours_continues_a_file_of_an_earlier_pi_harness(tmp_path: Path) -> None:
    """The old shape is upgraded when the file is opened: prompt sent once, the file in Pi's shape."""
    with bench(tmp_path) as b:
        path = b.install("pi_harness_legacy.jsonl")
        old = system_messages(path)
        assert old[0]["content"].startswith(OUR_PREAMBLE) and old[1]["toolsRemoved"] == ["edit", "write"]
        b.run(our_pi(), "--session", str(path), "And the word again?")
        (request,) = b.server.requests
        assert "Current date" not in assert_prompt_sent_once(request)
        upgraded = system_messages(path)
        for message in upgraded:
            assert_pi_shape(message)
        assert upgraded[1]["toolsRemoved"] == [{"name": "edit"}, {"name": "write"}]
        # The run's own patch: the <cwd> section without the date, the declarations with Pi's
        # constrainedSampling hint.
        assert len(upgraded) == 3 and "cwd" in upgraded[2]["sections"]
        assert all("constrainedSampling" in tool for tool in upgraded[2]["toolsAdded"])


# -- with the reference: both directions for real ----------------------------------------------


def test_pi_then_ours(tmp_path: Path) -> None:
    pi = reference_command()
    with bench(tmp_path, answers=2) as b:
        b.run(pi, "Remember the word mango")
        b.run(our_pi(), "--session", str(b.session()), "What was the word?")
        pi_request, our_request = b.server.requests
        assert assert_prompt_sent_once(pi_request).startswith(PREAMBLE + ",")
        assert assert_prompt_sent_once(our_request).startswith(OUR_PREAMBLE)
        assert roles(our_request) == ["system", "user", "assistant", "user"]


def test_ours_then_pi(tmp_path: Path) -> None:
    pi = reference_command()
    with bench(tmp_path, answers=2) as b:
        b.run(our_pi(), "Remember the word mango")
        for message in system_messages(b.session()):
            assert_pi_shape(message)
        b.run(pi, "--session", str(b.session()), "What was the word?")
        our_request, pi_request = b.server.requests
        assert_prompt_sent_once(our_request)
        assert assert_prompt_sent_once(pi_request).startswith(PREAMBLE + ",")
        assert roles(pi_request) == ["system", "user", "assistant", "user"]


def test_pi_continues_our_session_after_our_compaction(tmp_path: Path) -> None:
    """Our compaction's system checkpoint is what Pi's compacted context starts with."""
    pi = reference_command()
    raw = play(COMPACTED, our_pi(), tmp_path / "ours")
    assert not [error for run in raw.runs for error in run.errors] and len(raw.session_texts) == 1
    with bench(tmp_path) as b:
        text = raw.session_texts[0].replace(str(raw.world.project), PROJECT)
        path = b.install("ours_compacted.jsonl", text)
        entries = [json.loads(line) for line in text.splitlines() if line.strip()]
        (checkpoint,) = [entry["systemMessage"] for entry in entries if entry["type"] == "compaction"]
        assert_pi_shape(checkpoint)
        b.run(pi, "--session", str(path), "And now?")
        (request,) = b.server.requests
        assert assert_prompt_sent_once(request).startswith(PREAMBLE + ",")
        assert roles(request)[0] == "system" and roles(request).count("system") == 1


def test_pi_continues_an_upgraded_file_of_an_earlier_pi_harness(tmp_path: Path) -> None:
    pi = reference_command()
    with bench(tmp_path, answers=2) as b:
        path = b.install("pi_harness_legacy.jsonl")
        b.run(our_pi(), "--session", str(path), "And the word again?")
        b.run(pi, "--session", str(path), "Once more?")
        assert_prompt_sent_once(b.server.requests[1])


# -- recording the Pi fixtures -----------------------------------------------------------------


def record() -> None:
    """Play the fixture scenarios with the reference Pi and write the normalised session files."""
    reference, looked = find_reference()
    if reference is None:
        raise SystemExit(f"the reference Pi 1.4.0 is not installed (looked at {looked})")
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for scenario in (PI_PLAIN, COMPACTED):
        with tempfile.TemporaryDirectory() as workdir:
            raw = play(scenario, reference.command(), Path(workdir))
            errors = [error for run in raw.runs for error in run.errors]
            if errors or len(raw.session_texts) != 1:
                raise SystemExit(f"{scenario.name}: {errors or raw.sessions}")
            text = raw.session_texts[0]
            for root in sorted(reference.package_roots(), key=len, reverse=True):
                text = text.replace(root, PACKAGE)
            text = text.replace(str(raw.world.project), PROJECT)
            (FIXTURES / f"{scenario.name}.jsonl").write_text(text)
            print(f"wrote {FIXTURES / scenario.name}.jsonl ({len(text)} bytes)")


if __name__ == "__main__":
    if sys.argv[1:] == ["--record"]:
        record()
    else:
        raise SystemExit("usage: python tests/conformance/test_cross_resume.py --record")
