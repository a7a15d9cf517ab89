"""Refreshing an expired signed-in token: once, under the auth.json lock, even when two processes
want it at the same time; a failed refresh resolves no key and keeps the entry."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from pi_harness.coding.auth_flows import fresh_api_key
from pi_harness.coding.config.auth import AuthStorage
from pi_harness.testing.fake_oauth import FakeOAuthServer

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "auth" / "pi14_oauth_auth.json"

# Each child waits until both have started (a file barrier), then resolves the key.
_CHILD = """
import sys, time
from pathlib import Path
from pi_harness.coding.auth_flows import fresh_api_key
from pi_harness.coding.config.auth import AuthStorage
barrier = Path(sys.argv[2])
(barrier / sys.argv[3]).touch()
while len(list(barrier.iterdir())) < 2:
    time.sleep(0.005)
print(fresh_api_key(AuthStorage(Path(sys.argv[1])), "acme"))
"""


def _expired(refresh: str) -> dict[str, object]:
    return {"type": "oauth", "refresh": refresh, "access": "old-access", "expires": 1000}


def test_two_processes_refresh_once(agent_dir: Path, tmp_path: Path) -> None:
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    # Without the lock both children reach the server within the hold and one gets invalid_grant.
    with FakeOAuthServer(refresh_hold_s=1.0) as server:
        AuthStorage(agent_dir).set("acme", _expired(server.issue_refresh_token()))
        env = dict(os.environ) | server.env("acme")
        children = [
            subprocess.Popen(
                [sys.executable, "-c", _CHILD, str(agent_dir), str(barrier), str(n)],
                env=env,
                stdout=subprocess.PIPE,
                text=True,
            )
            for n in range(2)
        ]
        outputs = [child.communicate(timeout=60)[0].strip() for child in children]
        assert [child.returncode for child in children] == [0, 0]
        assert server.refresh_count == 1
        new_access = server.access_tokens[0]
    assert outputs == [new_access, new_access]
    stored = json.loads((agent_dir / "auth.json").read_text())["acme"]
    assert stored["access"] == new_access and stored["refresh"] != "old-access"
    assert stored["expires"] > 1000
    assert stat.S_IMODE((agent_dir / "auth.json").stat().st_mode) == 0o600
    assert not (agent_dir / "auth.json.lock").exists()


def test_failed_refresh_keeps_the_entry(agent_dir: Path) -> None:
    with FakeOAuthServer() as server:
        auth = AuthStorage(agent_dir)
        auth.set("acme", _expired("refresh-the-server-never-issued"))
        assert fresh_api_key(auth, "acme", server.env("acme")) is None
        assert server.refresh_count == 0
    assert auth.get("acme") == _expired("refresh-the-server-never-issued")


def test_fresh_token_is_used_without_a_request(agent_dir: Path) -> None:
    with FakeOAuthServer() as server:
        auth = AuthStorage(agent_dir)
        auth.set("acme", {"type": "oauth", "refresh": "r", "access": "still-good", "expires": 2**53 - 1})
        assert fresh_api_key(auth, "acme", server.env("acme")) == "still-good"
        assert server.requests == []


def test_pi_written_auth_json_is_read_and_refreshed(agent_dir: Path) -> None:
    data = json.loads(FIXTURE.read_text())
    with FakeOAuthServer() as server:
        data["acme"]["refresh"] = server.issue_refresh_token()
        (agent_dir / "auth.json").write_text(json.dumps(data, indent=2))
        auth = AuthStorage(agent_dir)
        assert fresh_api_key(auth, "openrouter") == "sk-or-v1-0123456789abcdef"
        assert fresh_api_key(auth, "openai") == "sk-test"
        assert fresh_api_key(auth, "acme", server.env("acme")) == server.access_tokens[0]
    after = json.loads((agent_dir / "auth.json").read_text())
    # Pi's validation: type "oauth", string access and refresh, finite number expires.
    assert set(after["acme"]) == {"type", "access", "refresh", "expires"}
    assert isinstance(after["acme"]["expires"], int)
    assert after["openrouter"] == data["openrouter"] and after["openai"] == data["openai"]
