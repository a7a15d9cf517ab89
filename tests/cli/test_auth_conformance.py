"""``pi auth`` compared with what the real Pi 1.4.0 printed for the same command lines in the same
setup (``tests/fixtures/pi_auth_command.json``): exit code and stdout exactly; stderr exactly
when Pi wrote something there (our text mode adds a hint on stderr when Pi is silent about a
missing credential, and our usage text is our own).

Recorded with ``python tests/cli/test_auth_conformance.py --record /work/pi-ref/pi14`` (the
reference from ``shared/tools/pi-reference``); the test itself never runs Pi.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pi_auth_command.json"
FAKE_PROVIDER = {
    "providers": {
        "fake": {
            "baseUrl": "http://127.0.0.1:9/v1",
            "api": "openai-completions",
            "apiKey": "k",
            "models": [{"id": "fake-model", "name": "Fake", "contextWindow": 200000, "maxTokens": 8192}],
        }
    }
}
CASES: list[list[str]] = [
    ["check", "--provider", "fake"],
    ["check", "--provider", "fake", "--json"],
    ["check", "--provider", "anthropic", "--json"],
    ["check", "--provider", "anthropic"],
    ["check", "--provider", "nope", "--json"],
    ["check", "--provider", "Fake"],
    ["check", "--model", "zzz"],
    ["check", "--model", "zzz", "--json"],
    ["check", "--model", "fake-model", "--json"],
    ["check", "--model", "fake/unlisted-model", "--json"],
    ["check", "--provider", "fake", "--credentials"],
    ["check", "--provider", "fake", "--credentials", "--json"],
    ["check", "--provider", "fake", "--no-refresh", "--json"],
    ["check"],
    ["check", "--provider", "fake", "extra"],
    ["check", "--bogus"],
    ["print-api-key", "--provider", "fake"],
    ["print-api-key", "--model", "fake-model"],
    ["print-api-key", "--provider", "anthropic"],
    ["print-api-key", "--provider", "nope"],
    ["print-api-key"],
    ["print-api-key", "--json", "--provider", "fake"],
    ["print-api-key", "--provider", "fake", "--min-expiry", "1h"],
    ["print-bearer-token", "--provider", "fake"],
    ["print-bearer-token", "--provider", "fake", "--min-expiry", "zz"],
    ["nope"],
    ["help"],
]


def make_world(root: Path) -> tuple[Path, dict[str, str]]:
    """A home, an agent dir with the ``fake`` provider (key ``k`` in models.json), a project."""
    agent = root / "home" / ".pi" / "agent"
    project = root / "project"
    agent.mkdir(parents=True)
    project.mkdir()
    (agent / "models.json").write_text(json.dumps(FAKE_PROVIDER))
    (agent / "settings.json").write_text(json.dumps({"defaultProvider": "fake", "defaultModel": "fake-model"}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PI_", "PYTHON"))}
    env = {k: v for k, v in env.items() if not k.endswith(("_API_KEY", "_OAUTH_TOKEN", "_TOKEN"))}
    env.update(HOME=str(root / "home"), PI_CODING_AGENT_DIR=str(agent), PI_OFFLINE="1")
    return project, env


def run(program: list[str], args: list[str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="pi-auth-") as tmp:
        project, env = make_world(Path(tmp))
        result = subprocess.run(
            [*program, "auth", *args], cwd=project, env=env, capture_output=True, text=True, timeout=60, check=False
        )
    return {"args": args, "rc": result.returncode, "stdout": result.stdout, "stderr": result.stderr}


def our_pi() -> list[str]:
    candidate = Path(sys.executable).with_name("pi")
    return [str(candidate) if candidate.exists() else "pi"]


GOLDENS: dict[str, dict[str, Any]] = (
    {" ".join(case["args"]): case for case in json.loads(FIXTURE.read_text())} if FIXTURE.exists() else {}
)


@pytest.mark.parametrize("args", CASES, ids=[" ".join(case) for case in CASES])
def test_auth_command_matches_pi(args: list[str]) -> None:
    golden = GOLDENS[" ".join(args)]
    ours = run(our_pi(), args)
    if args == ["help"]:  # the usage text is ours; where it goes and the exit code are Pi's
        assert (ours["rc"], ours["stderr"], ours["stdout"].startswith("Usage:")) == (0, "", True)
        return
    assert (ours["rc"], ours["stdout"]) == (golden["rc"], golden["stdout"])
    if golden["stderr"]:
        assert ours["stderr"] == golden["stderr"]


def test_the_hint_for_a_missing_key_goes_to_stderr() -> None:
    ours = run(our_pi(), ["check", "--provider", "anthropic"])
    assert ours["stdout"] == "not_ready\n"
    assert "ANTHROPIC_API_KEY" in ours["stderr"]


def _record(pi: str) -> None:
    cases = [run([pi], args) for args in CASES]
    FIXTURE.write_text(json.dumps(cases, indent=1) + "\n")
    print(f"recorded {len(cases)} cases in {FIXTURE}")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--record":
        sys.exit("usage: python tests/cli/test_auth_conformance.py --record <pi14 wrapper>")
    _record(sys.argv[2])
