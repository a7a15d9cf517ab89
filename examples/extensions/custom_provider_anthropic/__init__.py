"""custom-provider-anthropic: a model provider whose API is implemented by the extension itself.

What it shows:

* ``pi.register_provider(name, config)`` with ``streamSimple``: a new API id
  (``custom-anthropic-api``) served by a Python function, plus the provider's models, base URL
  and key (``$CUSTOM_ANTHROPIC_API_KEY``, read at request time);
* writing that function (``wire.py``): the conversation turned into Anthropic Messages requests,
  the streamed Server-Sent Events turned into pi-harness message events with ``MessageBuilder``
  (text, thinking, tool calls, usage, stop reason), errors and aborts through
  ``run_provider_stream``;
* reusing the HTTP plumbing of pi-harness (``open_event_stream``), so request hooks such as
  ``before_provider_request`` and ``provider_stream_event`` still see this provider's traffic.

Pick a model with ``--model custom-anthropic/claude-sonnet-4-5`` or ``/model``.
``CUSTOM_ANTHROPIC_BASE_URL`` points it at a proxy or gateway instead of api.anthropic.com.

Unlike Pi's example, there is no ``/login`` with a Claude subscription: that sign-in uses the
OAuth client of Anthropic's own application (see compatibility.md); use an API key.

Load it with ``pi -e examples/extensions/custom_provider_anthropic``.
"""

from __future__ import annotations

import os
from typing import Any

from pi_harness.coding.extensions.api import ExtensionAPI

from .wire import stream_anthropic

PROVIDER = "custom-anthropic"
API = "custom-anthropic-api"
DEFAULT_BASE_URL = "https://api.anthropic.com"


def _model(model_id: str, name: str, cost: dict[str, float]) -> dict[str, Any]:
    return {
        "id": model_id,
        "name": name,
        "reasoning": True,
        "input": ["text", "image"],
        "cost": cost,
        "contextWindow": 200_000,
        "maxTokens": 64_000,
    }


MODELS = [
    _model(
        "claude-opus-4-5", "Claude Opus 4.5 (custom)", {"input": 5, "output": 25, "cacheRead": 0.5, "cacheWrite": 6.25}
    ),
    _model(
        "claude-sonnet-4-5",
        "Claude Sonnet 4.5 (custom)",
        {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75},
    ),
]


def extension(pi: ExtensionAPI) -> None:
    pi.register_provider(
        PROVIDER,
        {
            "baseUrl": os.environ.get("CUSTOM_ANTHROPIC_BASE_URL", DEFAULT_BASE_URL),
            "apiKey": "$CUSTOM_ANTHROPIC_API_KEY",
            "api": API,
            "streamSimple": stream_anthropic,
            "models": MODELS,
        },
    )
