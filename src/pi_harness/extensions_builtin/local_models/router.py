"""A llama.cpp router's model management (``GET /models``, ``POST /models/load|unload``).

A router (``llama-server --models-dir DIR`` without ``--model``) lists every model it can run
with a ``status`` and starts or stops them on request; ``/llama`` drives it through this client.
Errors are ``RouterError`` with the text a user sees: the server's own ``error.message`` when it
sent one, ``llama.cpp returned HTTP <status>`` otherwise, ``Could not connect to the server.`` when
nothing answers, and ``Server is not running in llama.cpp router mode`` for a single-model server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass

from pi_harness.extensions_builtin.local_models.config import llama_base_url
from pi_harness.extensions_builtin.local_models.discovery import ctx_size_arg

CANNOT_CONNECT = "Could not connect to the server."
NOT_A_ROUTER = "Server is not running in llama.cpp router mode"
BAD_CATALOG = "llama.cpp returned an invalid model catalog"
LOAD_FAILED = "Model failed to load"
REQUEST_TIMEOUT_S = 15.0
POLL_S = 0.25


class RouterError(Exception):
    """A failure of a router request, worded for the user."""


@dataclass(frozen=True)
class RouterModelState:
    id: str
    status: str  # unloaded, loading, loaded, sleeping (or what a newer router says)
    context: int | None = None  # the loaded context, else the --ctx-size it is started with
    failed: bool = False
    exit_code: int | None = None

    @property
    def loaded(self) -> bool:
        return self.status in ("loaded", "sleeping")

    def describe(self) -> str:
        """``id · loaded · 32k context`` as the list shows it."""
        details = [self.id]
        if self.loaded:
            details.append("loaded")
        elif self.status != "unloaded":
            details.append(self.status)
        if self.failed:
            details.append("failed to load")
        if self.context:
            size = f"{round(self.context / 1000)}k" if self.context >= 1000 else str(self.context)
            details.append(f"{size} context")
        return " · ".join(details)


def server_root(url: str) -> str:
    """The router's root URL from a base URL with or without ``/v1``."""
    return llama_base_url(url)[: -len("/v1")]


class RouterClient:
    def __init__(self, url: str, api_key: str | None = None) -> None:
        self.url = server_root(url)
        self.api_key = api_key

    async def _request(self, method: str, path: str, body: Mapping[str, object] | None = None) -> object:
        import httpx2

        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        try:
            async with httpx2.AsyncClient(timeout=REQUEST_TIMEOUT_S, headers=headers, trust_env=False) as client:
                response = await client.request(method, f"{self.url}{path}", json=body)
        except (httpx2.ConnectError, httpx2.TimeoutException, httpx2.NetworkError) as exc:
            raise RouterError(CANNOT_CONNECT) from exc
        try:
            payload: object = response.json()
        except ValueError:
            payload = None
        if response.status_code >= 400:
            raise RouterError(_error_message(payload) or f"llama.cpp returned HTTP {response.status_code}")
        return payload

    async def list(self) -> list[RouterModelState]:
        payload = await self._request("GET", "/models")
        data = payload.get("data") if isinstance(payload, Mapping) else None
        if not isinstance(data, list):
            raise RouterError(BAD_CATALOG)
        models = [_state(entry) for entry in data]
        if any(model is None for model in models):
            raise RouterError(NOT_A_ROUTER)
        return [model for model in models if model is not None]

    async def load(self, model_id: str) -> RouterModelState:
        """Start ``model_id`` and wait until the router says it is loaded (or failed)."""
        await self._request("POST", "/models/load", {"model": model_id})
        while True:
            entry = next((m for m in await self.list() if m.id == model_id), None)
            if entry is not None and entry.status == "loaded":
                return entry
            if entry is None or entry.failed:
                code = entry.exit_code if entry is not None else None
                raise RouterError(LOAD_FAILED if code is None else f"Model exited with code {code}")
            await asyncio.sleep(POLL_S)

    async def unload(self, model_id: str) -> None:
        await self._request("POST", "/models/unload", {"model": model_id})
        while True:
            entry = next((m for m in await self.list() if m.id == model_id), None)
            if entry is None or entry.status == "unloaded":
                return
            await asyncio.sleep(POLL_S)


def _error_message(payload: object) -> str | None:
    error = payload.get("error") if isinstance(payload, Mapping) else None
    message = error.get("message") if isinstance(error, Mapping) else None
    return message if isinstance(message, str) and message else None


def _state(entry: object) -> RouterModelState | None:
    if not isinstance(entry, Mapping) or not isinstance(entry.get("id"), str):
        return None
    status = entry.get("status")
    value = status.get("value") if isinstance(status, Mapping) else None
    if not isinstance(status, Mapping) or not isinstance(value, str):
        return None  # a single-model server lists models without a status
    meta = entry.get("meta")
    context = meta.get("n_ctx") if isinstance(meta, Mapping) else None
    if not isinstance(context, int) or context <= 0:
        context = ctx_size_arg(status.get("args"))
    code = status.get("exit_code")
    return RouterModelState(
        entry["id"],
        value,
        context,
        failed=bool(status.get("failed")),
        exit_code=code if isinstance(code, int) else None,
    )
