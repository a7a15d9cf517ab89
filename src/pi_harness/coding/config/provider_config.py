"""One provider entry of models.json, as read (``models_json``) and applied (``models_json_apply``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ProviderConfig:
    name: str
    base_url: str | None = None
    api: str | None = None
    api_key: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    auth_header: bool = False
    compat: dict[str, Any] | None = None
    models: list[dict[str, Any]] | None = None
    model_overrides: dict[str, dict[str, Any]] = field(default_factory=dict)
    display_name: str | None = None
    oauth: str | None = None
