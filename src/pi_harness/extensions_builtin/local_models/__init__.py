"""Local model servers (``builtin:llama.cpp``): llama.cpp, Ollama, LM Studio and vLLM as providers.

Configuration (final):

* settings key ``localModels`` — ``{"autodiscover": true, "timeoutMs": 1500, "servers": [{"name",
  "baseUrl", "kind"?, "api"?, "apiKey"?, "contextWindow"?, "maxTokens"?}]}``; read from the global
  ``settings.json`` unless the host passes it in ``LocalModelsOptions(settings=...)``;
* environment ``PI_LOCAL_MODEL_URLS`` — comma-separated base URLs, each optionally ``name=url``;
* environment ``LLAMA_BASE_URL`` / ``LLAMA_API_KEY`` — the ``llama.cpp`` server and its key;
* autodiscovery (on by default) of 127.0.0.1 ports 8080 (``llama.cpp``), 11434 (``ollama``),
  1234 (``lmstudio``) and 8000 (``vllm``), registered under those provider names.

Each reachable server becomes an ``openai-completions`` provider whose models come from
``GET <baseUrl>/models``; context windows from server metadata when present, else 128000.
``PI_OFFLINE`` skips only servers that are not on this machine. The ``pi`` command discovers
before it resolves the model (``startup.py``) and the extension reuses that result.
"""

from pi_harness.extensions_builtin.local_models.config import (
    DEFAULT_SERVERS,
    ENV_LLAMA_API_KEY,
    ENV_LLAMA_BASE_URL,
    ENV_URLS,
    EXTENSION_NAME,
    LLAMA_CPP,
    LocalModelsConfig,
    LocalServer,
    load_local_models_config,
)
from pi_harness.extensions_builtin.local_models.discovery import DiscoveryResult, discover, provider_config
from pi_harness.extensions_builtin.local_models.extension import (
    BUS_CHANNEL,
    SETTINGS_KEY,
    LocalModelsOptions,
    create_local_models_extension,
    discover_local_models,
    local_models_extension,
)
from pi_harness.extensions_builtin.local_models.startup import (
    DiscoveryCache,
    LocalDiscovery,
    register_discovered,
    run_discovery,
    unreachable_hint,
)

__all__ = [
    "BUS_CHANNEL",
    "DEFAULT_SERVERS",
    "ENV_LLAMA_API_KEY",
    "ENV_LLAMA_BASE_URL",
    "ENV_URLS",
    "EXTENSION_NAME",
    "LLAMA_CPP",
    "SETTINGS_KEY",
    "DiscoveryCache",
    "DiscoveryResult",
    "LocalDiscovery",
    "LocalModelsConfig",
    "LocalModelsOptions",
    "LocalServer",
    "create_local_models_extension",
    "discover",
    "discover_local_models",
    "load_local_models_config",
    "local_models_extension",
    "provider_config",
    "register_discovered",
    "run_discovery",
    "unreachable_hint",
]
