"""The RFC 8628 device flow against the fake authorization server over real HTTP; the waits are
recorded instead of slept, so the polling states run without depending on time."""

from __future__ import annotations

import pytest
from _login_ui import RecordingUI

from pi_harness.coding.auth_flows import LoginError, device_code, flow_for
from pi_harness.testing.fake_oauth import FakeOAuthServer


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


async def _run(server: FakeOAuthServer, clock: Clock) -> dict[str, object]:
    spec = flow_for("acme", server.env("acme"))
    assert spec is not None and spec.kind == "device-code"
    ui = RecordingUI()
    authorization = await device_code.start(spec)
    ui.show_url(authorization.verification_uri, authorization.user_code)
    return await device_code.poll(spec, authorization, sleep=clock.sleep, clock=clock)


async def test_pending_then_slow_down_then_approved() -> None:
    clock = Clock()
    with FakeOAuthServer(device_states=["authorization_pending", "slow_down", "approve"], interval=2) as server:
        credential = await _run(server, clock)
        polls = [r for r in server.requests if r.path == "/token"]
    assert credential["type"] == "oauth"
    assert credential["access"] == server.access_tokens[0]
    assert str(credential["refresh"]).startswith("refresh-")
    # First wait is the server's interval; slow_down adds five seconds (RFC 8628 section 3.5).
    assert clock.waits == [2.0, 2.0, 7.0]
    assert len(polls) == 3
    assert {p.params["grant_type"] for p in polls} == {"urn:ietf:params:oauth:grant-type:device_code"}
    assert {p.params["client_id"] for p in polls} == {"pi-test-client"}


async def test_expired_device_code_ends_the_sign_in() -> None:
    clock = Clock()
    server = FakeOAuthServer(device_states=["authorization_pending", "expired_token"])
    with server, pytest.raises(LoginError, match="device code expired"):
        await _run(server, clock)


async def test_denied_sign_in() -> None:
    server = FakeOAuthServer(device_states=["access_denied"])
    with server, pytest.raises(LoginError, match="denied"):
        await _run(server, Clock())


async def test_client_side_deadline_after_slow_down_names_the_clock() -> None:
    clock = Clock()
    server = FakeOAuthServer(device_states=["slow_down"], interval=1, expires_in=10)
    with server, pytest.raises(LoginError, match="timed out after the server asked to slow down"):
        await _run(server, clock)
    assert sum(clock.waits) == pytest.approx(10.0)


async def test_unknown_client_is_reported() -> None:
    with FakeOAuthServer() as server:
        env = server.env("acme") | {"PI_OAUTH_ACME_CLIENT_ID": "someone-else"}
        spec = flow_for("acme", env)
        assert spec is not None
        with pytest.raises(LoginError, match=r"HTTP 401.*unknown client"):
            await device_code.start(spec)
