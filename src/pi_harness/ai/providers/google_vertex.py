"""``google-vertex``: Gemini models on Vertex AI. The request and stream are the Gemini API's
(``google`` provider: conversion, thinking config, chunk reading, error text); only the address and
the credentials differ.

Credentials, in order:

* an API key (``api_key``, ``GOOGLE_CLOUD_API_KEY``): Vertex "express mode", sent as
  ``x-goog-api-key``; no project or location;
* an access token given as ``access_token``: sent as ``Authorization: Bearer`` (e.g. the output of
  ``gcloud auth print-access-token``), with a project and location as for ADC;
* otherwise Application Default Credentials through ``google-auth`` (extra ``vertex``):
  ``GOOGLE_APPLICATION_CREDENTIALS`` or gcloud's default file, with a project
  (``GOOGLE_CLOUD_PROJECT``/``GCLOUD_PROJECT``) and a location (``GOOGLE_CLOUD_LOCATION``).
  A key equal to ``gcp-vertex-credentials`` or written as a placeholder (``<…>``) means the same.

Address: ``…/v1/<resource>/publishers/google/models/<id>:streamGenerateContent?alt=sse`` where the
host is ``https://aiplatform.googleapis.com`` (API key, or location ``global``),
``https://aiplatform.<us|eu>.rep.googleapis.com`` (multi-region) or
``https://<location>-aiplatform.googleapis.com``, and ``<resource>`` is
``projects/<project>/locations/<location>`` with ADC. A model ``baseUrl`` without ``{location}`` is
used instead, as the collection root (no project path; ``/v1`` added unless it names a version).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from pi_harness.ai.env_keys import AUTHENTICATED
from pi_harness.ai.http import merge_headers
from pi_harness.ai.options import SimpleStreamOptions, StreamOptions, shared_options
from pi_harness.ai.output_cap import simple_max_tokens
from pi_harness.ai.providers.google import GoogleStreamOptions, build_payload, format_google_error, read_gemini_events
from pi_harness.ai.providers.google_thinking import simple_thinking_config
from pi_harness.ai.providers.google_vertex_auth import access_token as adc_access_token
from pi_harness.ai.providers.google_wire import ThinkingConfig
from pi_harness.ai.providers.option_fields import options_as
from pi_harness.ai.registry import ApiProvider
from pi_harness.ai.sse_provider import SSERequest, stream_prepared_request
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import Context, Model, ThinkingLevel

API = "google-vertex"
API_VERSION = "v1"
CREDENTIALS_MARKER = "gcp-vertex-credentials"
GLOBAL_HOST = "https://aiplatform.googleapis.com"
MULTI_REGIONS = frozenset({"us", "eu"})
NO_PROJECT = "Vertex AI requires a project ID. Set GOOGLE_CLOUD_PROJECT/GCLOUD_PROJECT or pass project in options."
NO_LOCATION = "Vertex AI requires a location. Set GOOGLE_CLOUD_LOCATION or pass location in options."
_PLACEHOLDER = re.compile(r"^<[^>]+>$")
_VERSION_SEGMENT = re.compile(r"^v\d+(?:beta\d*)?$")


@dataclass
class GoogleVertexOptions(GoogleStreamOptions):
    project: str | None = None
    location: str | None = None
    # An OAuth access token to send as it is, instead of asking google-auth for one.
    access_token: str | None = None


def usable_api_key(api_key: str | None) -> str | None:
    """The key, unless it is empty or one of the markers that mean "use ADC"."""
    key = (api_key or "").strip()
    if not key or key in (CREDENTIALS_MARKER, AUTHENTICATED) or _PLACEHOLDER.match(key):
        return None
    return key


def model_path(model_id: str) -> str:
    if model_id.startswith(("publishers/", "projects/", "models/")):
        return model_id
    if "/" in model_id:
        publisher, name = model_id.split("/", 2)[:2]
        return f"publishers/{publisher}/models/{name}"
    return f"publishers/google/models/{model_id}"


def custom_base_url(model: Model) -> str | None:
    base = (model.get("baseUrl") or "").strip()
    return None if not base or "{location}" in base else base


def _has_version(base_url: str) -> bool:
    from urllib.parse import urlsplit

    return any(_VERSION_SEGMENT.match(part) for part in urlsplit(base_url).path.split("/"))


def resolve_project(options: GoogleVertexOptions) -> str:
    project = options.project or os.environ.get("GOOGLE_CLOUD_PROJECT") or os.environ.get("GCLOUD_PROJECT")
    if not project:
        raise ValueError(NO_PROJECT)
    return project


def resolve_location(options: GoogleVertexOptions) -> str:
    location = options.location or os.environ.get("GOOGLE_CLOUD_LOCATION")
    if not location:
        raise ValueError(NO_LOCATION)
    return location


def request_url(model: Model, options: GoogleVertexOptions, *, with_key: bool) -> str:
    method = f"{model_path(model['id'])}:streamGenerateContent?alt=sse"
    custom = custom_base_url(model)
    if custom is not None:
        root = custom.rstrip("/")
        version = "" if _has_version(custom) else f"/{API_VERSION}"
        return f"{root}{version}/{method}"
    if with_key:
        return f"{GLOBAL_HOST}/{API_VERSION}/{method}"
    project, location = resolve_project(options), resolve_location(options)
    if location == "global":
        host = GLOBAL_HOST
    elif location in MULTI_REGIONS:
        host = f"https://aiplatform.{location}.rep.googleapis.com"
    else:
        host = f"https://{location}-aiplatform.googleapis.com"
    return f"{host}/{API_VERSION}/projects/{project}/locations/{location}/{method}"


async def _authorization(options: GoogleVertexOptions, key: str | None) -> dict[str, str]:
    if key is not None:
        return {"x-goog-api-key": key}
    if options.access_token:
        return {"Authorization": f"Bearer {options.access_token}"}
    token = await adc_access_token(os.environ.get("GOOGLE_APPLICATION_CREDENTIALS") or None)
    return {"Authorization": f"Bearer {token}"}


def stream(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessageEventStream:
    opts = options_as(options, GoogleVertexOptions)

    async def prepare() -> SSERequest:
        key = usable_api_key(opts.api_key)
        # Project and location are checked before any token is fetched (they are cheaper to fix).
        # An OAuth token (given or from ADC) addresses a project; only a key uses express mode.
        url = request_url(model, opts, with_key=key is not None)
        auth = await _authorization(opts, key)
        headers = merge_headers(
            {"content-type": "application/json", "accept": "text/event-stream"},
            auth,
            model.get("headers"),
            opts.headers,
        )
        return SSERequest(url, headers, build_payload(model, context, opts), format_google_error)

    return stream_prepared_request(model, opts, prepare, read_gemini_events)


def _simple_thinking_config(
    model: Model, level: ThinkingLevel | None, budgets: dict[str, int] | None
) -> ThinkingConfig | None:
    # The Gemini provider's own mapping, so both APIs think alike.
    return simple_thinking_config(model, level, budgets)


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    simple = options if options is not None else SimpleStreamOptions()
    opts = shared_options(simple, GoogleVertexOptions)
    opts.max_tokens = simple_max_tokens(model, context, simple.max_tokens)
    opts.thinking_config = _simple_thinking_config(model, simple.reasoning, simple.thinking_budgets)
    return stream(model, context, opts)


# Credentials may come from ADC rather than a key, so a missing key is not an error up front.
PROVIDER = ApiProvider(api=API, stream=stream, stream_simple=stream_simple, requires_api_key=False)
