"""Which local model servers to look at: settings ``localModels``, ``PI_LOCAL_MODEL_URLS``, defaults.

Settings (global ``settings.json``, or whatever the host passes)::

    "localModels": {
      "autodiscover": true,
      "timeoutMs": 1500,
      "servers": [
        {"name": "gpu-box", "baseUrl": "http://127.0.0.1:9000/v1",
         "kind": "llama.cpp", "apiKey": "local", "contextWindow": 32768, "maxTokens": 8192}
      ]
    }

``autodiscover`` (default true) probes llama.cpp ``:8080``, Ollama ``:11434``, LM Studio ``:1234``
and vLLM ``:8000`` on 127.0.0.1 under the provider names ``llama.cpp``, ``ollama``, ``lmstudio``
and ``vllm``. ``PI_LOCAL_MODEL_URLS`` adds servers: a comma list of base URLs, each optionally
``name=url``; unnamed ones are called ``local-<port>``. A base URL without a path gets ``/v1``.
``kind`` (``llama.cpp``, ``ollama``, ``lmstudio``, ``vllm``, ``generic``) selects where the
context window is read; it is guessed from the name or the port when omitted.

``LLAMA_BASE_URL`` (a llama.cpp server root, with or without ``/v1``) is the ``llama.cpp``
server, replacing the default ``:8080`` and a settings entry of that name, even when
``autodiscover`` is off; ``LLAMA_API_KEY`` is the key for that server (default or
``LLAMA_BASE_URL``). Servers named in settings or the environment may be on other hosts; the
defaults are all on this machine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Literal
from urllib.parse import urlsplit

ServerKind = Literal["llama.cpp", "ollama", "lmstudio", "vllm", "generic"]
KINDS: tuple[ServerKind, ...] = ("llama.cpp", "ollama", "lmstudio", "vllm", "generic")

ENV_URLS = "PI_LOCAL_MODEL_URLS"
ENV_LLAMA_BASE_URL = "LLAMA_BASE_URL"
ENV_LLAMA_API_KEY = "LLAMA_API_KEY"
LLAMA_CPP = "llama.cpp"  # the provider name of the llama.cpp server, as in Pi
EXTENSION_NAME = "builtin:llama.cpp"
DEFAULT_TIMEOUT_MS = 1500
DEFAULT_API_KEY = "local"
DEFAULT_PORTS: dict[int, ServerKind] = {8080: "llama.cpp", 11434: "ollama", 1234: "lmstudio", 8000: "vllm"}


@dataclass(frozen=True)
class LocalServer:
    name: str  # the provider name models are registered under
    base_url: str  # OpenAI-compatible base, ending in /v1 unless configured otherwise
    kind: ServerKind = "generic"
    api: str = "openai-completions"
    api_key: str = DEFAULT_API_KEY
    context_window: int | None = None
    max_tokens: int | None = None
    autodiscovered: bool = False

    @property
    def root_url(self) -> str:
        """The server root, where native endpoints (``/props``, ``/api/show``) live."""
        base = self.base_url.rstrip("/")
        return base[: -len("/v1")] if base.endswith("/v1") else base

    @property
    def host(self) -> str:
        return urlsplit(self.base_url).hostname or ""


@dataclass
class LocalModelsConfig:
    servers: list[LocalServer] = field(default_factory=list)
    timeout_s: float = DEFAULT_TIMEOUT_MS / 1000
    errors: list[str] = field(default_factory=list)


DEFAULT_SERVERS = (
    LocalServer(LLAMA_CPP, "http://127.0.0.1:8080/v1", "llama.cpp", autodiscovered=True),
    LocalServer("ollama", "http://127.0.0.1:11434/v1", "ollama", autodiscovered=True),
    LocalServer("lmstudio", "http://127.0.0.1:1234/v1", "lmstudio", autodiscovered=True),
    LocalServer("vllm", "http://127.0.0.1:8000/v1", "vllm", autodiscovered=True),
)


def normalize_base_url(url: str) -> str:
    url = url.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"not an http(s) URL: {url!r}")
    return url if parts.path not in ("", "/") else f"{url}/v1"


def llama_base_url(url: str) -> str:
    """``LLAMA_BASE_URL`` names the server root (``http://host:8080``); the OpenAI-compatible API
    is under ``/v1``. A value that already ends in ``/v1`` is accepted as well."""
    root = url.strip().rstrip("/")
    root = root[: -len("/v1")] if root.endswith("/v1") else root
    base = normalize_base_url(root)
    return base if base.endswith("/v1") else f"{base}/v1"


def guess_kind(name: str, base_url: str) -> ServerKind:
    lowered = name.lower()
    for kind in ("ollama", "lmstudio", "vllm"):
        if kind in lowered:
            return kind
    if "llama" in lowered:
        return "llama.cpp"
    port = urlsplit(base_url).port
    return DEFAULT_PORTS.get(port, "generic") if port is not None else "generic"


def load_local_models_config(settings: Mapping[str, object] | None, environ: Mapping[str, str]) -> LocalModelsConfig:
    """Build the server list; invalid entries become messages in ``errors`` and are skipped."""
    config = LocalModelsConfig()
    # Typed as the caller promises, checked as what a settings file may hold.
    raw: object = settings if settings is not None else {}
    if not isinstance(raw, Mapping):
        config.errors.append('"localModels" must be an object')
        raw = {}
    timeout = raw.get("timeoutMs", DEFAULT_TIMEOUT_MS)
    if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
        config.timeout_s = timeout / 1000
    else:
        config.errors.append('"localModels.timeoutMs" must be a positive number')
    explicit: list[LocalServer] = []
    entries = raw.get("servers", [])
    if not isinstance(entries, list):
        config.errors.append('"localModels.servers" must be an array')
        entries = []
    for index, entry in enumerate(entries):
        try:
            explicit.append(_server_from_settings(entry))
        except ValueError as exc:
            config.errors.append(f"localModels.servers[{index}]: {exc}")
    for item in (part.strip() for part in environ.get(ENV_URLS, "").split(",")):
        if not item:
            continue
        name, sep, url = item.partition("=")
        if not sep or "://" in name:
            name, url = "", item
        try:
            base = normalize_base_url(url)
        except ValueError as exc:
            config.errors.append(f"{ENV_URLS}: {exc}")
            continue
        name = name.strip() or f"local-{urlsplit(base).port or 80}"
        explicit.append(LocalServer(name, base, guess_kind(name, base)))
    llama_key = environ.get(ENV_LLAMA_API_KEY, "").strip() or DEFAULT_API_KEY
    llama_url = environ.get(ENV_LLAMA_BASE_URL, "").strip()
    if llama_url:
        try:
            # Last, so it replaces a configured server of the same name: the environment of this
            # run beats the settings file, as API keys from the environment beat models.json.
            explicit.append(LocalServer(LLAMA_CPP, llama_base_url(llama_url), "llama.cpp", api_key=llama_key))
        except ValueError as exc:
            config.errors.append(f"{ENV_LLAMA_BASE_URL}: {exc}")
    autodiscover = raw.get("autodiscover", True)
    if not isinstance(autodiscover, bool):
        config.errors.append('"localModels.autodiscover" must be a boolean')
        autodiscover = True
    servers: dict[str, LocalServer] = {}
    if autodiscover:
        taken_urls = {s.base_url for s in explicit}
        for default in DEFAULT_SERVERS:
            if default.base_url not in taken_urls:
                servers[default.name] = replace(default, api_key=llama_key) if default.name == LLAMA_CPP else default
    for server in explicit:
        servers[server.name] = server  # a configured server replaces a default of the same name
    config.servers = list(servers.values())
    return config


def _server_from_settings(entry: object) -> LocalServer:
    if not isinstance(entry, Mapping):
        raise ValueError("must be an object")
    name, base_url = entry.get("name"), entry.get("baseUrl")
    if not isinstance(name, str) or not name.strip():
        raise ValueError('"name" must be a non-empty string')
    if not isinstance(base_url, str):
        raise ValueError('"baseUrl" must be a string')
    base = normalize_base_url(base_url)
    kind = entry.get("kind") or guess_kind(name, base)
    if kind not in KINDS:
        raise ValueError(f'"kind" must be one of {", ".join(KINDS)}')
    api, api_key = entry.get("api", "openai-completions"), entry.get("apiKey", DEFAULT_API_KEY)
    if not isinstance(api, str) or not isinstance(api_key, str):
        raise ValueError('"api" and "apiKey" must be strings')
    limits: dict[str, int | None] = {}
    for key in ("contextWindow", "maxTokens"):
        value = entry.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
            raise ValueError(f'"{key}" must be a positive integer')
        limits[key] = value
    return LocalServer(
        name.strip(),
        base,
        kind,
        api=api,
        api_key=api_key,
        context_window=limits["contextWindow"],
        max_tokens=limits["maxTokens"],
    )
