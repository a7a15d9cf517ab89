"""OpenRouter's PKCE flow against the fake authorization server: the test's HTTP client plays the
browser (following the redirect to the loopback callback), or the user pastes the redirect URL."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from _login_ui import RecordingUI

from pi_harness.coding.auth_flows import LoginError, flow_for, openrouter_pkce
from pi_harness.testing.fake_oauth import FakeOAuthServer


async def _browser(url: str) -> int:
    async with httpx2.AsyncClient(follow_redirects=True) as client:
        return (await client.get(url)).status_code


async def test_loopback_callback_gets_the_key() -> None:
    with FakeOAuthServer() as server:
        spec = flow_for("openrouter", server.env("openrouter"))
        assert spec is not None
        ui = RecordingUI(on_url=_browser)
        credential = await openrouter_pkce.login(spec, ui, timeout_s=30)
        assert [await task for task in ui.tasks] == [200]
        exchange = [r for r in server.requests if r.path == "/api/v1/auth/keys"]
    query = parse_qs(urlsplit(ui.urls[0]).query)
    assert query["code_challenge_method"] == ["S256"]
    assert query["callback_url"][0].startswith("http://127.0.0.1:")
    assert "/oauth/callback/" in query["callback_url"][0]
    assert credential == {"type": "oauth", "refresh": "", "access": server.keys[0], "expires": 2**53 - 1}
    assert exchange[0].params["code_challenge_method"] == "S256"


async def test_pasted_redirect_url_completes_the_sign_in() -> None:
    with FakeOAuthServer() as server:
        spec = flow_for("openrouter", server.env("openrouter"))
        assert spec is not None
        pasted: list[str] = []

        async def remote_browser(url: str) -> None:
            # A browser on another machine: the redirect never reaches the loopback server.
            async with httpx2.AsyncClient(follow_redirects=False) as client:
                pasted.append((await client.get(url)).headers["location"])

        ui = RecordingUI(on_url=remote_browser)

        async def paste(prompt: str) -> str | None:
            await ui.tasks[0]
            return pasted.pop() if pasted else None

        ui.paste = paste  # type: ignore[method-assign]  # the paste comes from the remote browser
        credential = await openrouter_pkce.login(spec, ui, timeout_s=30)
    assert credential["access"] == server.keys[0]


async def test_garbage_paste_is_asked_again_then_bare_code_works() -> None:
    with FakeOAuthServer() as server:
        spec = flow_for("openrouter", server.env("openrouter"))
        assert spec is not None
        codes: list[str] = []

        async def remote_browser(url: str) -> None:
            async with httpx2.AsyncClient() as client:
                location = (await client.get(url)).headers["location"]
            codes.append(parse_qs(urlsplit(location).query)["code"][0])

        ui = RecordingUI(on_url=remote_browser)
        answers = ["http://localhost/?nothing=here"]

        async def paste(prompt: str) -> str | None:
            await ui.tasks[0]
            return answers.pop(0) if answers else codes[0]

        ui.paste = paste  # type: ignore[method-assign]  # scripted answers
        credential = await openrouter_pkce.login(spec, ui, timeout_s=30)
    assert credential["access"] == server.keys[0]
    assert any("No authorization code" in line for line in ui.lines)


async def test_wrong_verifier_is_rejected() -> None:
    with FakeOAuthServer() as server:
        spec = flow_for("openrouter", server.env("openrouter"))
        assert spec is not None
        async with httpx2.AsyncClient() as client:
            location = (
                await client.get(f"{server.url}/auth", params={
                    "callback_url": "http://127.0.0.1:9/cb", "code_challenge": "x" * 43,
                    "code_challenge_method": "S256",
                })
            ).headers["location"]  # fmt: skip
        code = parse_qs(urlsplit(location).query)["code"][0]
        with pytest.raises(LoginError, match=r"HTTP 403.*code_verifier does not match"):
            await openrouter_pkce.exchange_code(spec, code, "not-the-verifier-" + "a" * 30)


async def test_denied_in_the_browser() -> None:
    with FakeOAuthServer(deny_pkce=True) as server:
        spec = flow_for("openrouter", server.env("openrouter"))
        assert spec is not None
        with pytest.raises(LoginError, match="access_denied"):
            await openrouter_pkce.login(spec, RecordingUI(on_url=_browser), timeout_s=30)
