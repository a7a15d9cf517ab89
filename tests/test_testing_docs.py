"""docs/testing.md and its examples in ``examples/testing/``: the examples run, and the docs show them.

* the documented shell example runs for real: the fake LLM server as a subprocess on a port the
  system picks, ``pi -p`` against it, the scripted ``bash`` call really executed;
* the same steps driven from Python, reading the port from the server's first output line;
* the example pytest file passes when copied into a project of its own;
* every ``<!-- example: path -->`` block in testing.md is byte-for-byte that file, every example
  file is shown, the JSON blocks parse, and every key of the script format is documented.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_harness.coding.system_prompt import default_docs_dir
from pi_harness.testing.fake_llm import ScriptedResponse, load_script, response_from_dict

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples" / "testing"
DOC = default_docs_dir() / "testing.md"
SCRIPT = EXAMPLES / "script_tool_call.json"
LISTENING = "fake LLM server listening on "
TIMEOUT = 300  # a safety net for a hung subprocess; nothing waits for it to pass

_EXAMPLE_BLOCK = re.compile(r"^<!-- example: (\S+) -->\n```[\w-]*\n(.*?)^```$", re.M | re.S)
_FENCED = re.compile(r"^```([\w-]*)\n(.*?)^```$", re.M | re.S)


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def bin_dir() -> Path:
    """The directory of this interpreter, where ``pi`` and ``python`` of the same install live."""
    return Path(sys.executable).parent


def pi_executable() -> str:
    candidate = bin_dir() / "pi"
    return str(candidate) if candidate.exists() else "pi"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


# --- the command-line example -------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs a POSIX shell")
def test_the_documented_shell_example_runs_the_tool_and_prints_the_answer(project: Path) -> None:
    env = {**os.environ, "PATH": os.pathsep.join([str(bin_dir()), os.environ.get("PATH", "")])}
    done = subprocess.run(
        ["sh", str(EXAMPLES / "run_tool_call.sh")],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "I created hello.txt.\n"
    assert (project / "hello.txt").read_text() == "Hello from the fake model\n"


@pytest.fixture
def server_url(tmp_path: Path) -> Iterator[str]:
    """The command-line server playing the example script; its address from its first line."""
    process = subprocess.Popen(
        [sys.executable, "-m", "pi_harness.testing.fake_llm", "--script", str(SCRIPT)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        if not first.startswith(LISTENING):
            process.kill()
            _, err = process.communicate(timeout=TIMEOUT)
            pytest.fail(f"unexpected first line {first!r}; stderr: {err}")
        yield first[len(LISTENING) :].strip()
    finally:
        process.terminate()
        try:
            process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


def test_pi_against_the_command_line_server_with_an_isolated_agent_dir(
    server_url: str, project: Path, tmp_path: Path
) -> None:
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", server_url)
    agent_dir = tmp_path / "fake-agent"
    agent_dir.mkdir()
    provider = {
        "baseUrl": f"{server_url}/v1",
        "api": "openai-completions",
        "apiKey": "not-needed",
        "models": [{"id": "scripted"}],
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent_dir), "PI_OFFLINE": "1"}
    done = subprocess.run(
        [pi_executable(), "--model", "fake/scripted", "-p", "Create hello.txt"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "I created hello.txt.\n"
    assert (project / "hello.txt").read_text() == "Hello from the fake model\n"

    # The session pi wrote: the scripted call, its real result, then the answer.
    [session_file] = (agent_dir / "sessions").rglob("*.jsonl")
    entries = [json.loads(line) for line in session_file.read_text().splitlines()]
    messages: list[dict[str, Any]] = [e["message"] for e in entries if e.get("type") == "message"]
    call = next(m for m in messages if m["role"] == "assistant")
    assert {"type": "toolCall", "id": "call_hello", "name": "bash"}.items() <= call["content"][-1].items()
    result = next(m for m in messages if m["role"] == "toolResult")
    assert result["toolCallId"] == "call_hello" and result["isError"] is False
    assert messages[-1]["content"] == [{"type": "text", "text": "I created hello.txt."}]

    # The script is used up: the server now echoes.
    again = subprocess.run(
        [pi_executable(), "--model", "fake/scripted", "-p", "anyone there?"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    assert again.stdout == "You said: anyone there?\n"


# --- the pytest example -------------------------------------------------------------------------


def test_the_example_pytest_file_passes_in_a_project_of_its_own(tmp_path: Path) -> None:
    copied = tmp_path / "my-project"
    copied.mkdir()
    for name in ("my_extension.py", "test_my_extension.py"):
        shutil.copy(EXAMPLES / name, copied / name)
    (copied / "pytest.ini").write_text("[pytest]\n")  # this project's config, not the repository's
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_my_extension.py"],
        cwd=copied,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"\b3 passed\b", done.stdout), done.stdout


# --- the document -------------------------------------------------------------------------------


def test_the_example_blocks_are_the_example_files() -> None:
    blocks = _EXAMPLE_BLOCK.findall(doc_text())
    shown = {path for path, _ in blocks}
    for path, content in blocks:
        assert content == (REPO / path).read_text(encoding="utf-8"), f"testing.md differs from {path}"
    files = {f"examples/testing/{p.name}" for p in EXAMPLES.iterdir() if p.is_file() and p.suffix != ".pyc"}
    assert files == shown, "every example file is shown in testing.md, and only those"
    for path in shown:  # the reader is pointed at the file too
        assert f"]({path})" in doc_text()


def test_the_json_blocks_parse_and_the_scripts_load() -> None:
    scripts = 0
    for language, content in _FENCED.findall(doc_text()):
        if language != "json":
            continue
        data = json.loads(content)
        if isinstance(data, list) or "responses" in data:
            assert load_script(data), content
            scripts += 1
    assert scripts >= 3


def test_every_key_of_the_script_format_is_documented() -> None:
    text = doc_text()
    source = inspect.getsource(response_from_dict) + inspect.getsource(load_script)
    keys = set(re.findall(r'"(\w+)"', source))  # the keys the script loader reads
    assert {"toolCall", "httpError", "streamError", "dropAfter", "fragmentBytes", "arguments"} <= keys
    undocumented = sorted(key for key in keys if f"`{key}`" not in text and f'"{key}"' not in text)
    assert undocumented == []
    python_names = [field.name for field in dataclasses.fields(ScriptedResponse)]
    assert [name for name in python_names if name not in text] == []


def test_the_docs_index_links_the_page() -> None:
    assert "(testing.md)" in (DOC.parent / "README.md").read_text(encoding="utf-8")
