"""Ask local OpenAI-compatible servers which models they serve (``GET <baseUrl>/models``).

Every server is probed concurrently with short timeouts and the whole discovery is capped, so a
dead port costs nothing (connection refused) and a hung one at most the cap. The context window
comes from the server when it says: vLLM's ``max_model_len`` in the model list, llama.cpp's
``/props`` (``n_ctx``), Ollama's ``/api/show`` (``num_ctx`` parameter, else the model's
``context_length``), LM Studio's ``/api/v0/models``; otherwise 128000. With ``PI_OFFLINE`` set,
servers that are not on this machine are skipped without a request.

A llama.cpp router lists every model it knows with a ``status``; only those that answer a
request are offered: loaded and sleeping ones, and unloaded ones when the router loads models on
demand (``/props`` says ``models_autoload``). Otherwise the model picked by default could be one
the router refuses.
"""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pi_harness.extensions_builtin.local_models.config import DEFAULT_API_KEY, LocalServer

if TYPE_CHECKING:
    import httpx2

DEFAULT_CONTEXT_WINDOW = 128_000
DEFAULT_MAX_TOKENS = 16_384
MAX_METADATA_MODELS = 32  # per-model metadata requests (Ollama) stop here
NOT_REACHABLE = "not reachable (connection refused or no such host)"
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})

# Chat templates of local servers know only the classic roles and take ``max_tokens``.
LOCAL_COMPAT: dict[str, object] = {
    "supportsStore": False,
    "supportsDeveloperRole": False,
    "maxTokensField": "max_tokens",
}


# llama.cpp router states of a model that serve requests without loading it first
READY_STATES = frozenset({"loaded", "sleeping"})
NOTHING_LOADED = "the server has no model loaded"


@dataclass
class ModelInfo:
    id: str
    context_window: int | None = None
    vision: bool = False
    status: str | None = None  # a llama.cpp router's ``status.value``; None for plain servers
    failed: bool = False  # the router's last attempt to load it failed
    source: str | None = None  # a router's ``source``: ``models_dir``, ``preset``, ``cache``
    chat: bool = True  # False for llama.cpp decision models (they answer no chat requests)
    reasoning: bool = False  # its chat template switches thinking (``enable_thinking``)

    def offered(self, autoload: bool) -> bool:
        if not self.chat:
            return False
        if self.status is None or self.status in READY_STATES:
            return True
        # A router loads on first use only the models of its presets (as Pi takes it).
        return autoload and self.status == "unloaded" and not self.failed and self.source == "preset"


@dataclass
class RouterState:
    """What a llama.cpp router's ``/props`` says about the whole server."""

    autoload: bool = False  # ``models_autoload``: an unloaded model is loaded by its first request


@dataclass
class DiscoveryResult:
    server: LocalServer
    models: list[dict[str, object]] = field(default_factory=list)
    error: str | None = None
    skipped: str | None = None

    @property
    def reachable(self) -> bool:
        return self.error is None and self.skipped is None


def is_loopback(host: str) -> bool:
    return host.lower() in LOOPBACK_HOSTS or host.startswith("127.")


async def discover(servers: list[LocalServer], *, timeout_s: float, offline: bool) -> list[DiscoveryResult]:
    """Probe every server concurrently; never raises and never takes much longer than ``timeout_s``."""

    async def one(server: LocalServer) -> DiscoveryResult:
        if offline and not is_loopback(server.host):
            return DiscoveryResult(server, skipped="offline (PI_OFFLINE) and not on this machine")
        if is_loopback(server.host) and await _refused(server):
            return DiscoveryResult(server, error=NOT_REACHABLE)
        try:
            return await asyncio.wait_for(_probe(server, timeout_s), timeout_s + 0.5)
        except TimeoutError:
            return DiscoveryResult(server, error=f"no answer within {timeout_s:g} s")
        except Exception as exc:
            return DiscoveryResult(server, error=_describe(exc))

    return list(await asyncio.gather(*(one(server) for server in servers)))


async def _refused(server: LocalServer) -> bool:
    """A plain TCP connect first: on this machine a port nobody listens on refuses at once, and
    most default ports are unused, so the HTTP client (and its TLS setup) is only built for a
    server that is actually there."""
    parts = urlsplit(server.base_url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        _reader, writer = await asyncio.wait_for(asyncio.open_connection(server.host.strip("[]"), port), 0.5)
    except TimeoutError:
        return False  # something is there but slow: the real probe reports it
    except OSError:
        return True
    writer.close()
    return False


async def _probe(server: LocalServer, timeout_s: float) -> DiscoveryResult:
    import httpx2

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    timeout = httpx2.Timeout(timeout_s, connect=min(timeout_s, 0.5))
    headers = {"Authorization": f"Bearer {server.api_key}"} if server.api_key else {}
    # Local servers are reached directly: a proxy from the environment must not intercept them.
    async with httpx2.AsyncClient(timeout=timeout, headers=headers, trust_env=not is_loopback(server.host)) as client:
        response = await client.get(f"{server.base_url.rstrip('/')}/models")
        response.raise_for_status()
        infos = _parse_model_list(response.json())
        if not infos:
            return DiscoveryResult(server, error="the server lists no models")
        router = RouterState()
        try:
            # Metadata is a bonus: when it is slow or missing, the models keep their defaults
            # (and a router is taken not to load models on demand).
            await asyncio.wait_for(_add_metadata(client, server, infos, router), max(deadline - loop.time(), 0.05))
        except Exception:
            pass
    offered = [info for info in infos if info.offered(router.autoload)]
    if not offered:
        return DiscoveryResult(server, error=NOTHING_LOADED)
    return DiscoveryResult(server, models=[_model_entry(server, info) for info in offered])


def _parse_model_list(payload: object) -> list[ModelInfo]:
    entries = payload.get("data") if isinstance(payload, Mapping) else payload
    infos: list[ModelInfo] = []
    seen: set[str] = set()
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("id"), str) or entry["id"] in seen:
            continue
        seen.add(entry["id"])
        info = ModelInfo(entry["id"])
        meta = entry.get("meta")
        meta = meta if isinstance(meta, Mapping) else {}
        status = entry.get("status")
        status = status if isinstance(status, Mapping) else {}
        # What the server runs with first (llama.cpp's loaded context, then the --ctx-size it was
        # started with), what the model was trained for last.
        info.context_window = (
            _first_int(meta, "n_ctx")
            or ctx_size_arg(status.get("args"))
            or _first_int(entry, "max_model_len", "context_length", "context_window", "max_context_length")
            or _first_int(meta, "n_ctx_train")
        )
        state = status.get("value")
        info.status = state if isinstance(state, str) else None
        info.failed = bool(status.get("failed"))
        source = entry.get("source")
        info.source = source if isinstance(source, str) else None
        architecture = entry.get("architecture")
        if isinstance(architecture, Mapping):
            inputs, outputs = architecture.get("input_modalities"), architecture.get("output_modalities")
            info.vision = isinstance(inputs, list) and "image" in inputs
            info.chat = not (isinstance(outputs, list) and "decisions" in outputs and "text" not in outputs)
        infos.append(info)
    return infos


def ctx_size_arg(args: object) -> int | None:
    """``--ctx-size N`` (or ``-c``/``-ctx``) among the arguments a router started a model with."""
    if not isinstance(args, list):
        return None
    for flag, value in itertools.pairwise(args):
        if flag in ("--ctx-size", "-c", "-ctx") and isinstance(value, str) and value.isdigit() and int(value) > 0:
            return int(value)
    return None


async def _add_metadata(
    client: httpx2.AsyncClient, server: LocalServer, infos: list[ModelInfo], router: RouterState
) -> None:
    if server.kind in ("llama.cpp", "generic"):
        props = await _get_json(client, f"{server.root_url}/props")
        if isinstance(props, Mapping) and props.get("role") == "router":
            router.autoload = props.get("models_autoload") is True
            # Only a loaded model shows its template without being woken or loaded.
            loaded = [info for info in infos if info.status == "loaded"][:MAX_METADATA_MODELS]
            answers = await asyncio.gather(
                *(_get_json(client, f"{server.root_url}/props", {"model": i.id, "autoload": "false"}) for i in loaded),
                return_exceptions=True,
            )
            for info, answer in zip(loaded, answers, strict=True):
                if isinstance(answer, Mapping):
                    _apply_props(info, answer, single=False)
        elif isinstance(props, Mapping):
            router.autoload = props.get("models_autoload") is True
            for info in infos:
                _apply_props(info, props, single=True)
    elif server.kind == "ollama":
        selected = infos[:MAX_METADATA_MODELS]
        answers = await asyncio.gather(
            *(_post_json(client, f"{server.root_url}/api/show", {"model": info.id}) for info in selected),
            return_exceptions=True,
        )
        for info, shown in zip(selected, answers, strict=True):
            if isinstance(shown, Mapping):
                info.context_window = _ollama_context(shown) or info.context_window
                capabilities = shown.get("capabilities")
                info.vision = isinstance(capabilities, list) and "vision" in capabilities
    elif server.kind == "lmstudio":
        listing = await _get_json(client, f"{server.root_url}/api/v0/models")
        entries = listing.get("data") if isinstance(listing, Mapping) else None
        by_id = {e.get("id"): e for e in entries if isinstance(e, Mapping)} if isinstance(entries, list) else {}
        for info in infos:
            entry = by_id.get(info.id)
            if entry is not None:
                window = _first_int(entry, "loaded_context_length", "max_context_length")
                info.context_window = window or info.context_window
                info.vision = entry.get("type") == "vlm"


def _apply_props(info: ModelInfo, props: Mapping[str, object], *, single: bool) -> None:
    settings = props.get("default_generation_settings")
    n_ctx = _first_int(settings, "n_ctx") if isinstance(settings, Mapping) else None
    n_ctx = n_ctx or _first_int(props, "n_ctx")
    if n_ctx and (single or info.context_window is None):
        info.context_window = n_ctx
    modalities = props.get("modalities")
    info.vision = info.vision or (isinstance(modalities, Mapping) and bool(modalities.get("vision")))
    template = props.get("chat_template")
    info.reasoning = isinstance(template, str) and "enable_thinking" in template


def _ollama_context(shown: Mapping[str, object]) -> int | None:
    parameters = shown.get("parameters")
    if isinstance(parameters, str):
        match = re.search(r"^\s*num_ctx\s+(\d+)", parameters, re.MULTILINE)
        if match:
            return int(match.group(1))
    model_info = shown.get("model_info")
    if isinstance(model_info, Mapping):
        for key, value in model_info.items():
            if key.endswith(".context_length") and isinstance(value, int) and value > 0:
                return value
    return None


async def _get_json(client: httpx2.AsyncClient, url: str, params: dict[str, str] | None = None) -> object:
    response = await client.get(url, params=params)
    return response.json() if response.status_code == 200 else None


async def _post_json(client: httpx2.AsyncClient, url: str, body: dict[str, object]) -> object:
    response = await client.post(url, json=body)
    return response.json() if response.status_code == 200 else None


def _first_int(data: Mapping[str, object], *keys: str) -> int | None:
    for key in keys:
        value = data.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _model_entry(server: LocalServer, info: ModelInfo) -> dict[str, object]:
    window = server.context_window or info.context_window or DEFAULT_CONTEXT_WINDOW
    return {
        "id": info.id,
        "name": f"{info.id} ({server.name})",
        "api": server.api,
        "reasoning": info.reasoning,
        "input": ["text", "image"] if info.vision else ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": window,
        "maxTokens": server.max_tokens or min(DEFAULT_MAX_TOKENS, window),
        "compat": {**LOCAL_COMPAT, "thinkingFormat": "qwen-chat-template"} if info.reasoning else dict(LOCAL_COMPAT),
    }


def provider_config(result: DiscoveryResult) -> dict[str, object]:
    """The ``pi.register_provider`` config of a reachable server."""
    server = result.server
    # A provider needs a key to count as usable; a server without one ignores the placeholder.
    api_key = server.api_key or DEFAULT_API_KEY
    return {"baseUrl": server.base_url, "apiKey": api_key, "api": server.api, "models": result.models}


def _describe(exc: BaseException) -> str:
    import httpx2

    if isinstance(exc, httpx2.ConnectError):
        return NOT_REACHABLE
    if isinstance(exc, httpx2.HTTPStatusError):
        return f"HTTP {exc.response.status_code} from /models"
    if isinstance(exc, httpx2.TimeoutException):
        return "timed out"
    return str(exc) or type(exc).__name__
