"""What the entry points do to a model and its options before any provider sees them.

* ``{NAME}`` placeholders in a base URL (Cloudflare's ``{CLOUDFLARE_ACCOUNT_ID}`` and
  ``{CLOUDFLARE_GATEWAY_ID}``) are filled from ``options.env``, then the process environment; a
  placeholder without a value stays as it is, as in Pi.
* Cloudflare AI Gateway's key goes in ``cf-aig-authorization`` instead of the API's key header.
* The model's ``samplingParams``, then the entry of ``samplingParamsByThinkingLevel`` for the
  (clamped) thinking level, are laid under ``options.extra_body`` (the caller's own fields win), for
  the APIs Pi applies them to.
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import TypeVar

from pi_harness.ai.options import StreamOptions
from pi_harness.ai.thinking import clamp_thinking_level
from pi_harness.ai.types import Model, ThinkingLevel

# Gateways that take their own token in a header of their own: the key moves there and the API's
# usual key header is not sent, so the gateway's stored or billed upstream credentials (or an
# ``Authorization`` header configured for the provider) reach the upstream (Pi does the same).
GATEWAY_KEY_HEADERS = {"cloudflare-ai-gateway": "cf-aig-authorization"}
SAMPLING_APIS = frozenset({"openai-completions", "openai-responses", "azure-openai-responses"})
_PLACEHOLDER = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")


def resolve_base_url(model: Model, env: dict[str, str] | None) -> Model:
    """``model`` with its base URL placeholders filled (the same object when there are none)."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        return (env or {}).get(name) or os.environ.get(name) or match.group(0)

    base_url = _PLACEHOLDER.sub(value, model["baseUrl"])
    return model if base_url == model["baseUrl"] else {**model, "baseUrl": base_url}


def sampling_params(model: Model, level: ThinkingLevel) -> dict[str, object]:
    """The model's sampling fields for a request at ``level`` (empty for other APIs)."""
    if model["api"] not in SAMPLING_APIS:
        return {}
    by_level = model.get("samplingParamsByThinkingLevel") or {}
    return {**(model.get("samplingParams") or {}), **(by_level.get(clamp_thinking_level(model, level)) or {})}


_Options = TypeVar("_Options", bound=StreamOptions)


def prepare_request(model: Model, options: _Options, level: ThinkingLevel | None) -> tuple[Model, _Options]:
    model = resolve_base_url(model, options.env)
    gateway_header = GATEWAY_KEY_HEADERS.get(model["provider"])
    if gateway_header and options.api_key:
        headers = {**(options.headers or {}), gateway_header: f"Bearer {options.api_key}"}
        options = dataclasses.replace(options, api_key="", headers=headers)
    sampling = sampling_params(model, level or "off")
    if sampling:
        options = dataclasses.replace(options, extra_body={**sampling, **options.extra_body})
    return model, options
