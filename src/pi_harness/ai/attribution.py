"""Provider attribution headers: which client a request comes from, for the few providers that
ask for it (OpenRouter, NVIDIA NIM, OpenCode).

They are sent while ``enableInstallTelemetry`` is on (the ``PI_TELEMETRY`` environment variable,
when set, decides instead), as in Pi, and sit beneath every configured header: a model's,
provider's or extension's header of the same name wins. The header names are Pi's; the values
name this program, not Pi: a request from pi-harness must not be counted, or treated, as one of
Pi's. There is no project site to give as the referer, so none is sent.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from urllib.parse import urlparse

CLIENT_NAME = "pi-harness"
CLIENT_CATEGORIES = ("cli-agent",)
_NVIDIA_HOST = "integrate.api.nvidia.com"
_OPENCODE_HOST = "opencode.ai"
_TRUE = frozenset({"1", "true", "yes"})


def attribution_enabled(setting: bool, env: Mapping[str, str]) -> bool:
    """``PI_TELEMETRY`` (``1``/``true``/``yes`` on, anything else off) overrides the setting."""
    flag = env.get("PI_TELEMETRY")
    if flag is None:
        return setting
    return flag.lower() in _TRUE


@functools.lru_cache(maxsize=64)  # asked on every request, for the same few URLs
def _host(base_url: str) -> str:
    try:
        return urlparse(base_url).hostname or ""
    except ValueError:
        return ""


def attribution_headers(provider: str, base_url: str) -> dict[str, str]:
    """The attribution headers a request to ``provider`` at ``base_url`` carries (often none)."""
    if provider == "openrouter" or "openrouter.ai" in base_url:
        return {
            "X-OpenRouter-Title": CLIENT_NAME,
            "X-OpenRouter-Categories": ",".join(CLIENT_CATEGORIES),
        }
    if provider == "nvidia" or _host(base_url) == _NVIDIA_HOST:
        return {"X-BILLING-INVOKE-ORIGIN": CLIENT_NAME}
    if provider in ("opencode", "opencode-go") or _host(base_url) == _OPENCODE_HOST:
        return {"x-opencode-client": CLIENT_NAME}
    return {}
