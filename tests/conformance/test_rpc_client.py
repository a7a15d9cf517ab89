"""Our ``pi --mode rpc`` driven by Pi 1.4.0's own ``RpcClient``, every method of it.

``rpc_client_driver.mjs`` calls each RpcClient method once in a fixed story (state, models,
thinking levels, queue modes, a prompt, bash, a tool run with steer/follow-up/clear_queue, an abort,
compaction, fork, entries, tree, clone, name, export, new and switched sessions) and writes what each
call returned or threw. The golden (tests/fixtures/conformance/rpc_client/result.json) is what the
calls gave with the real Pi; the test runs the same story with ours (through ``pi_shim.mjs``) and
compares each method's result by shape. The differences must be exactly those listed under
``"rpc_client"`` in known_differences.py: those methods do not get Pi-shaped answers yet.

Needs, at test time, Node >= 22 and the reference package (for rpc-client.js itself): otherwise
the test is skipped with the reason. CI does not install the reference, so it skips there.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from _compare import compare_sequences, compare_shapes, shape, split_record, tree_order
from _normalize import Normalizer
from _programs import GOLDENS, Reference, find_reference, node_major, our_package_roots, our_pi
from _runner import RawResult, environment, make_world, session_files, write_config
from _scenario import Scenario
from known_differences import KNOWN

from pi_harness.testing.fake_llm import FakeLLMServer, load_script

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "rpc_client_driver.mjs"
SHIM = HERE / "pi_shim.mjs"
GOLDEN = GOLDENS / "rpc_client" / "result.json"
NAME = "rpc_client"

# The model requests of the story, in order; anything more gets the default answer.
STORY = Scenario(
    name=NAME,
    description="every RpcClient method",
    runs=(),
    model={"reasoning": True},
    settings={"compaction": {"keepRecentTokens": 10}},
    responses=(
        {"steps": [{"text": "Hello from the client test."}]},
        {"steps": [{"toolCall": {"name": "bash", "arguments": {"command": "sleep 1.5; echo done"}, "id": "call_s"}}]},
        {"steps": [{"text": "Done."}]},
        {"steps": [{"text": "word " * 40, "chunks": 40}], "chunkDelayMs": 150},
        {"steps": [{"text": "Short."}]},
        {"steps": [{"text": "## Goal\nTest the client.\n\n## Progress\nAll methods called."}]},
    ),
)
DEFAULT_ANSWER = {"steps": [{"text": "Fallback answer."}]}


def find_node(reference: Reference) -> str | None:
    for candidate in (str(reference.node), shutil.which("node")):
        if candidate and Path(candidate).exists() and (node_major(candidate) or 0) >= 22:
            return candidate
    return None


def availability() -> tuple[Reference, str] | str:
    """The reference and a Node >= 22, or why the test cannot run."""
    reference, looked = find_reference()
    if reference is None:
        return f"the reference Pi 1.4.0 (for its rpc-client.js) is not installed (looked at {looked})"
    node = find_node(reference)
    if node is None:
        return "no Node >= 22 (neither the reference's own nor `node` on PATH)"
    return reference, node


def run_story(reference: Reference, node: str, workdir: Path, *, ours: bool) -> dict[str, Any]:
    """Run the driver against ours (``ours``) or the reference; return its normalised result."""
    world = make_world(workdir)
    responses = load_script(list(STORY.responses))
    with FakeLLMServer(responses, default=load_script([DEFAULT_ANSWER])[0]) as server:
        write_config(STORY, world, server)
        env = environment(world, [str(Path(node).parent)])
        child_env: dict[str, str] = {}
        if ours:
            child_env["PI_CONFORMANCE_TARGET"] = our_pi()[0]
        out = world.root / "result.json"
        config = {
            "rpcClient": str(reference.rpc_client),
            "cliPath": str(SHIM if ours else reference.cli),
            "cwd": str(world.project),
            "env": child_env,
            "out": str(out),
            "exportPath": str(world.tmp / "export.html"),
        }
        (world.root / "config.json").write_text(json.dumps(config))
        done = subprocess.run(
            [node, str(DRIVER), str(world.root / "config.json")],
            cwd=world.project,
            env={**env, **child_env},
            capture_output=True,
            text=True,
            timeout=150,
            check=False,
        )
    if not out.is_file():
        raise AssertionError(f"the RpcClient driver failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    result = json.loads(out.read_text())
    sessions = sorted(session_files(world), key=lambda p: p.name)
    raw = RawResult(world=world, runs=[], sessions=sessions, session_texts=[], requests=[])
    roots = our_package_roots() if ours else reference.package_roots()
    normalized: dict[str, Any] = Normalizer(raw, roots).value(result)
    return normalized


def compare_calls(golden: dict[str, Any], ours: dict[str, Any]) -> list[str]:
    """One line per difference, ``method NAME: …``, like the scenario comparator's lines."""
    diffs: list[str] = []
    our_calls = {call["method"]: call for call in ours["calls"]}
    for expected in golden["calls"]:
        method = expected["method"]
        actual = our_calls.get(method)
        where = f"method {method}"
        if actual is None:
            diffs.append(f"{where}: not called (the driver stopped before it)")
        elif expected["ok"] and not actual["ok"]:
            diffs.append(f"{where}: threw {actual['error']!r}; Pi answered")
        elif not expected["ok"] and actual["ok"]:
            diffs.append(f"{where}: answered; Pi threw {expected['error']!r}")
        elif not expected["ok"]:
            if expected["error"] != actual["error"]:
                diffs.append(f"{where}: error: Pi {expected['error']!r}, ours {actual['error']!r}")
        else:
            diffs += compare_values(where, method, expected["value"], actual["value"])
    return sorted(set(diffs))


# What a method returns, as the rpc response whose parts the scenario comparator knows.
RESPONSE_OF = {
    "getMessages": "get_messages",
    "getEntries": "get_entries",
    "getEntries(since)": "get_entries",
    "getTree": "get_tree",
}


EVENT_LISTS = {"promptAndWait", "collectEvents"}  # these return events: compared as event orders


def _event_types(value: Any) -> list[str]:
    order: list[str] = []
    for kind in value if isinstance(value, list) else []:
        if kind == "tool_execution_update" or (order and kind == order[-1] == "message_update"):
            continue
        order.append(str(kind))
    return order


def compare_values(where: str, method: str, expected: Any, actual: Any) -> list[str]:
    if method in EVENT_LISTS:
        return compare_sequences(f"{where} event order", _event_types(expected), _event_types(actual))
    command = RESPONSE_OF.get(method)
    if command is None:
        return compare_shapes(where, shape(expected), shape(actual))
    diffs: list[str] = []
    groups: list[dict[str, dict[str, set[str]]]] = []
    for value in (expected, actual):
        data = {"messages": value} if command == "get_messages" else value
        parts: dict[str, dict[str, set[str]]] = {}
        for label, part in split_record({"type": "response", "id": method, "command": command, "data": data}):
            for path, kinds in shape(part).items():
                parts.setdefault(label, {}).setdefault(path, set()).update(kinds)
        groups.append(parts)
    for label in sorted(set(groups[0]) | set(groups[1])):
        name = "" if label == f"response {method}" else f" {label}"
        if label not in groups[1]:
            diffs.append(f"{where}{name}: none (Pi has some)")
        elif label not in groups[0]:
            diffs.append(f"{where}{name}: some (Pi has none)")
        else:
            diffs += compare_shapes(f"{where}{name}", groups[0][label], groups[1][label])
    if command == "get_tree":
        diffs += compare_sequences(
            f"{where} tree order", tree_order(expected.get("tree")), tree_order(actual.get("tree"))
        )
    return diffs


def record_golden(reference: Reference, out_root: Path) -> str:
    node = find_node(reference)
    if node is None:
        return f"{NAME}: skipped: no Node >= 22"
    import tempfile

    with tempfile.TemporaryDirectory(prefix="pi-conf-client-") as tmp:
        result = run_story(reference, node, Path(tmp), ours=False)
    target = out_root / NAME / "result.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    failed = [c["method"] for c in result["calls"] if not c["ok"]]
    return (
        f"{NAME}: recorded {len(result['calls'])} calls ({'all answered' if not failed else f'Pi threw for {failed}'})"
    )


def client_differences(workdir: Path) -> list[str] | str:
    """Our differences from the golden, or why they cannot be computed here."""
    available = availability()
    if isinstance(available, str):
        return available
    reference, node = available
    if not GOLDEN.is_file():
        return f"no golden at {GOLDEN}: run scripts/record-goldens"
    ours = run_story(reference, node, workdir, ours=True)
    return compare_calls(json.loads(GOLDEN.read_text()), ours)


def test_rpc_client_methods(tmp_path: Path) -> None:
    available = availability()
    if isinstance(available, str):
        pytest.skip(available)
    result = client_differences(tmp_path / "story")
    assert isinstance(result, list), result
    listed = KNOWN.get(NAME, {})
    new = [line for line in result if line not in listed]
    gone = [line for line in listed if line not in result]
    report = [f"RpcClient methods: {len(new)} new difference(s), {len(gone)} listed but gone"]
    report += [f"  + {line}" for line in new]
    report += [f"  - {line}  (fixed? remove it from known_differences.py)" for line in gone]
    report.append("update with: .venv/bin/python tests/conformance/_known.py --update rpc_client")
    assert not new and not gone, "\n".join(report)
