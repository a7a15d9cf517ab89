"""Where an Azure OpenAI request goes: the deployment name, the base URL and the API version.

Resolution order (the same as Pi's): an explicit option, then the environment, then the model.

* deployment: ``azure_deployment_name``, else the model id mapped through
  ``AZURE_OPENAI_DEPLOYMENT_NAME_MAP`` (``model=deployment,model2=deployment2``), else the id;
* base URL: ``azure_base_url``, ``AZURE_OPENAI_BASE_URL``, ``https://<resource>.openai.azure.com/openai/v1``
  from ``azure_resource_name`` / ``AZURE_OPENAI_RESOURCE_NAME``, then the model's ``baseUrl``.
  A resource root on an Azure host (``*.openai.azure.com``, ``*.cognitiveservices.azure.com``,
  ``*.ai.azure.com``) is given the ``/openai/v1`` path the Responses route hangs from;
* API version: ``azure_api_version``, ``AZURE_OPENAI_API_VERSION``, else ``v1``.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

from pi_harness.ai.types import Model

DEFAULT_API_VERSION = "v1"
_AZURE_HOST_SUFFIXES = (".openai.azure.com", ".cognitiveservices.azure.com", ".ai.azure.com")
# Paths that mean "the resource itself": replaced by the v1 API root.
_ROOT_PATHS = frozenset({"", "/", "/openai", "/openai/v1/responses"})
BASE_URL_REQUIRED = (
    "Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, "
    "or pass azure_base_url, azure_resource_name, or a model baseUrl."
)


def _env(name: str) -> str | None:
    value = os.environ.get(name)
    return value if value else None


def parse_deployment_map(value: str | None) -> dict[str, str]:
    """``model=deployment`` pairs separated by commas; malformed entries are skipped."""
    mapping: dict[str, str] = {}
    for entry in (value or "").split(","):
        model_id, sep, deployment = entry.strip().partition("=")
        # Only the first "=" splits, and anything after a second "=" is dropped, as Pi does.
        deployment = deployment.split("=", 1)[0]
        if sep and model_id.strip() and deployment.strip():
            mapping[model_id.strip()] = deployment.strip()
    return mapping


def resolve_deployment_name(model: Model, explicit: str | None = None) -> str:
    if explicit:
        return explicit
    mapped = parse_deployment_map(_env("AZURE_OPENAI_DEPLOYMENT_NAME_MAP")).get(model["id"])
    return mapped or model["id"]


def normalize_base_url(base_url: str) -> str:
    """Strip trailing slashes; give a bare Azure resource URL the ``/openai/v1`` path."""
    trimmed = base_url.strip().rstrip("/")
    parts = urlsplit(trimmed)
    if not parts.scheme or not parts.netloc:
        raise ValueError(f"Invalid Azure OpenAI base URL: {base_url}")
    host = (parts.hostname or "").lower()
    path = parts.path.rstrip("/")
    query = parts.query
    if host.endswith(_AZURE_HOST_SUFFIXES) and path in _ROOT_PATHS:
        path, query = "/openai/v1", ""
    return urlunsplit((parts.scheme, parts.netloc, path, query, parts.fragment)).rstrip("/")


def resolve_base_url(model: Model, *, base_url: str | None = None, resource_name: str | None = None) -> str:
    chosen = (base_url or "").strip() or (_env("AZURE_OPENAI_BASE_URL") or "").strip() or None
    resource = resource_name or _env("AZURE_OPENAI_RESOURCE_NAME")
    if not chosen and resource:
        chosen = f"https://{resource}.openai.azure.com/openai/v1"
    if not chosen:
        chosen = model.get("baseUrl") or None
    if not chosen:
        raise ValueError(BASE_URL_REQUIRED)
    return normalize_base_url(chosen)


def resolve_api_version(explicit: str | None = None) -> str:
    return explicit or _env("AZURE_OPENAI_API_VERSION") or DEFAULT_API_VERSION
