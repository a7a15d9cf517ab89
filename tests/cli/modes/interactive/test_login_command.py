"""``/login`` in the interactive mode: the browser sign-in against the fake authorization server
(the test is the browser ``webbrowser.open`` would start), and the refused subscription sign-in."""

from __future__ import annotations

import json
import webbrowser
from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest

from pi_harness.testing.fake_llm import FakeLLMServer
from pi_harness.testing.fake_oauth import FakeOAuthServer

from .harness import run_pi


def _browser_recording(opened: list[str]) -> Callable[..., bool]:
    """Stands in for the user's browser: remembers the address instead of starting one."""

    def open_url(url: str, *args: object, **kwargs: object) -> bool:
        opened.append(url)
        return True

    return open_url


async def test_login_openrouter_signs_in_through_the_browser(
    server: FakeLLMServer, project: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", _browser_recording(opened))
    monkeypatch.setenv("DISPLAY", ":0")  # a desktop, where pi opens the browser itself
    with FakeOAuthServer() as oauth:
        for name, value in oauth.env("openrouter").items():
            monkeypatch.setenv(name, value)
        async with run_pi() as pi:
            await pi.started()
            await pi.submit("/login openrouter")
            await pi.wait_for(lambda: "how to authenticate" in pi.screen(), "the method choice")
            await pi.press("enter")  # "Sign in"
            await pi.wait_for(lambda: opened, "the browser being opened")
            async with httpx2.AsyncClient(follow_redirects=True) as browser:
                page = await browser.get(opened[0])
            assert "Signed in" in page.text
            await pi.wait_for(lambda: "Signed in to openrouter" in pi.scrollback(), "the confirmation")
        key = oauth.keys[0]
    assert json.loads((agent_dir / "auth.json").read_text())["openrouter"]["access"] == key


async def test_login_anthropic_says_why_there_is_no_sign_in(server: FakeLLMServer, project: Path) -> None:
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/login anthropic")
        await pi.wait_for(lambda: "API key for anthropic" in pi.screen(), "the key prompt")
        assert "does not authorize other applications" in " ".join(pi.scrollback().split())
        await pi.press("escape")


async def test_login_with_a_device_code(
    server: FakeLLMServer, project: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", _browser_recording(opened))
    monkeypatch.setenv("DISPLAY", ":0")  # a desktop, where pi opens the browser itself
    with FakeOAuthServer(device_states=["authorization_pending", "approve"]) as oauth:
        for name, value in oauth.env("acme").items():
            monkeypatch.setenv(name, value)
        async with run_pi() as pi:
            await pi.started()
            await pi.submit("/login acme")
            await pi.wait_for(lambda: "how to authenticate" in pi.screen(), "the method choice")
            await pi.press("enter")
            await pi.wait_for(lambda: "WDJB-MJHT" in pi.scrollback(), "the user code")
            await pi.wait_for(lambda: "Signed in to acme" in pi.scrollback(), "the confirmation", timeout=30)
        access = oauth.access_tokens[0]
        device_page = f"{oauth.url}/device"
    assert opened == [device_page]
    assert json.loads((agent_dir / "auth.json").read_text())["acme"]["access"] == access
