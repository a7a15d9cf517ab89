"""provider-payload: see exactly what goes to the model provider and what comes back.

What it shows:

* ``before_provider_request``, whose ``payload`` is the provider's request body as it will be
  sent (after pi-harness converted the conversation), and ``after_provider_response``, with the
  HTTP status and headers, before the body is read;
* where a handler could change the request instead: returning a new body replaces it (here
  only when ``PI_PAYLOAD_TEMPERATURE`` is set, to show the shape).

Every request is appended to ``.pi/provider-payload.log`` in the project as indented JSON,
followed by a ``[status] {headers}`` line for its response. The log holds your conversation:
delete it when you are done.

Load it with ``pi -e examples/extensions/provider_payload.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionContext
from pi_harness.coding.extensions.events import ExtensionEvent

LOG_NAME = "provider-payload.log"


def log_file(cwd: str) -> Path:
    directory = Path(cwd) / ".pi"
    directory.mkdir(parents=True, exist_ok=True)
    return directory / LOG_NAME


def extension(pi: ExtensionAPI) -> None:
    @pi.on("before_provider_request")
    def log_request(event: ExtensionEvent, ctx: ExtensionContext) -> dict[str, object] | None:
        with log_file(ctx.cwd).open("a", encoding="utf-8") as log:
            log.write(json.dumps(event.payload, indent=2) + "\n\n")
        temperature = os.environ.get("PI_PAYLOAD_TEMPERATURE")
        payload = event.payload
        if temperature is not None and isinstance(payload, dict):
            return {**payload, "temperature": float(temperature)}
        return None  # keep the body as it is

    @pi.on("after_provider_response")
    def log_response(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        with log_file(ctx.cwd).open("a", encoding="utf-8") as log:
            log.write(f"[{event.status}] {json.dumps(event.headers)}\n\n")
