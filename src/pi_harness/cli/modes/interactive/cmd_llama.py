"""``/llama``: list, load and unload the models of a llama.cpp router.

The server is ``LLAMA_BASE_URL`` when set, else the ``llama.cpp`` provider's base URL, else
``http://127.0.0.1:8080``. The list always shows what the router says now (other clients may
share it). Choosing an unloaded model loads it (asking first whether to unload the others),
choosing a loaded one unloads it after a confirmation; Escape closes. After every change the
``llama.cpp`` provider is probed again, so ``/model`` offers exactly the loaded models. A server
that does not answer offers Retry and Close; a single-model server is reported as not a router.
With ``builtin:llama.cpp`` disabled (``"extensions": ["-builtin:llama.cpp"]``) there is no ``/llama``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from pi_harness.cli.modes.interactive.builtin import Builtin
from pi_harness.extensions_builtin import LOCAL_MODELS
from pi_harness.extensions_builtin.local_models import LLAMA_CPP, LocalServer, discover, provider_config
from pi_harness.extensions_builtin.local_models.config import (
    DEFAULT_API_KEY,
    ENV_LLAMA_API_KEY,
    ENV_LLAMA_BASE_URL,
    llama_base_url,
)
from pi_harness.extensions_builtin.local_models.router import (
    CANNOT_CONNECT,
    RouterClient,
    RouterError,
    RouterModelState,
)

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext

DEFAULT_URL = "http://127.0.0.1:8080"
UNLOAD_ALL = "Unload all and load"
KEEP_LOADED = "Keep loaded and load"
CANCEL = "Cancel"
RETRY = "Retry"
CLOSE = "Close"


def _client(mode: ModeContext) -> RouterClient:
    runtime = mode.session.model_runtime
    provider = runtime.extension_provider(LLAMA_CPP)
    url = os.environ.get(ENV_LLAMA_BASE_URL, "").strip() or (provider.base_url if provider else None) or DEFAULT_URL
    key = os.environ.get(ENV_LLAMA_API_KEY, "").strip() or (provider.api_key if provider else None)
    return RouterClient(url, key or None)


async def _catalog(mode: ModeContext, client: RouterClient) -> list[RouterModelState] | None:
    """The router's models; on a connection failure the user may retry or close (None)."""
    while True:
        try:
            return await client.list()
        except RouterError as exc:
            if str(exc) != CANNOT_CONNECT:
                mode.shell.notice("error", str(exc))
                return None
            choice = await mode.shell.ask_select(f"llama.cpp unavailable\n{client.url}\n\n{exc}", [RETRY, CLOSE])
            if choice != RETRY:
                return None


async def _refresh_provider(mode: ModeContext, client: RouterClient) -> None:
    """Probe the router again and register what it now serves (or drop the provider)."""
    runtime = mode.session.model_runtime
    server = LocalServer(LLAMA_CPP, llama_base_url(client.url), "llama.cpp", api_key=client.api_key or DEFAULT_API_KEY)
    [result] = await discover([server], timeout_s=5, offline=False)
    if result.reachable:
        runtime.register_provider(LLAMA_CPP, provider_config(result), source="builtin:llama.cpp")
    else:
        runtime.unregister_provider(LLAMA_CPP)


async def _load(mode: ModeContext, client: RouterClient, catalog: list[RouterModelState], target: str) -> None:
    others = [model for model in catalog if model.id != target and model.loaded]
    if others:
        noun = "model is" if len(others) == 1 else "models are"
        choice = await mode.shell.ask_select(f"{len(others)} {noun} loaded", [UNLOAD_ALL, KEEP_LOADED, CANCEL])
        if choice not in (UNLOAD_ALL, KEEP_LOADED):
            return
        if choice == UNLOAD_ALL:
            for model in others:
                await client.unload(model.id)
    mode.shell.notice("info", f"Loading {target}…")
    await client.load(target)
    await _refresh_provider(mode, client)
    mode.shell.notice("success", f"Loaded {target}")


async def _unload(mode: ModeContext, client: RouterClient, target: str) -> None:
    if not await mode.shell.ask_confirm("Unload model?", target):
        return
    await client.unload(target)
    await _refresh_provider(mode, client)
    mode.shell.notice("success", f"Unloaded {target}")


async def llama(mode: ModeContext, args: str) -> None:
    client = _client(mode)
    while True:
        catalog = await _catalog(mode, client)
        if catalog is None:
            return
        if not catalog:
            mode.shell.notice("warning", f"The router at {client.url} lists no models (check --models-dir)")
            return
        # Loaded models first, as they are what /model offers.
        ordered = sorted(catalog, key=lambda model: (not model.loaded, model.id))
        labels = {model.describe(): model for model in ordered}
        choice = await mode.shell.ask_select(f"llama.cpp models\n{client.url}", list(labels))
        if choice is None:
            return
        model = labels[choice]
        try:
            if model.loaded:
                await _unload(mode, client, model.id)
            elif model.status == "unloaded":
                await _load(mode, client, catalog, model.id)
            else:
                mode.shell.notice("warning", f"{model.id} is {model.status}")
        except RouterError as exc:
            mode.shell.notice("error", str(exc))


def _enabled(mode: ModeContext) -> bool:
    """``builtin:llama.cpp`` is loaded in this session (not disabled in settings)."""
    return any(extension.path == LOCAL_MODELS for extension in mode.session.extensions.extensions)


COMMANDS = [Builtin("llama", "Manage llama.cpp router models (load, unload)", llama, available=_enabled)]
