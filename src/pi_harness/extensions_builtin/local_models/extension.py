"""``builtin:llama.cpp``: local model servers as providers (extensions.md section 9, Proposal).

At ``session_start`` the configured servers (see ``config.py``) are probed concurrently and every
server that answers ``GET /v1/models`` is registered with ``pi.register_provider`` as an
``openai-completions`` provider (API key ``local`` unless configured). Discovery is awaited so the
models exist before the first prompt, and it is capped (1.5 s by default) so a missing server
never holds startup up. The results are also emitted on the event bus channel
``local-models:discovered`` (a list of ``{name, baseUrl, models, error, skipped}``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_harness.coding.config.paths import SETTINGS_FILE, agent_dir, is_truthy_env
from pi_harness.extensions_builtin.local_models.config import LocalModelsConfig, load_local_models_config
from pi_harness.extensions_builtin.local_models.discovery import DiscoveryResult, discover, provider_config

if TYPE_CHECKING:
    from pi_harness.coding.extensions.api import ExtensionAPI

EXTENSION_NAME = "builtin:llama.cpp"
SETTINGS_KEY = "localModels"
BUS_CHANNEL = "local-models:discovered"

SettingsSource = Mapping[str, Any] | Callable[[], Mapping[str, Any] | None] | None


@dataclass(frozen=True)
class LocalModelsOptions:
    """``settings`` is the ``localModels`` object (or a callable returning it); by default it is
    read from the global ``<agentDir>/settings.json``. ``environ`` defaults to ``os.environ``."""

    settings: SettingsSource = None
    agent_dir: Path | None = None
    environ: Mapping[str, str] | None = None

    def load(self) -> LocalModelsConfig:
        source = self.settings
        value = source() if callable(source) else source
        if value is None and source is None:
            value = _global_settings(self.agent_dir if self.agent_dir is not None else agent_dir())
        return load_local_models_config(value, os.environ if self.environ is None else self.environ)


def _global_settings(directory: Path) -> Mapping[str, Any] | None:
    try:
        data = json.loads((directory / SETTINGS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = data.get(SETTINGS_KEY) if isinstance(data, dict) else None
    return value if isinstance(value, Mapping) else None


async def discover_local_models(options: LocalModelsOptions | None = None) -> list[DiscoveryResult]:
    """Discovery without a session (for the CLI or ``pi --list-models``)."""
    config = (options or LocalModelsOptions()).load()
    return await discover(config.servers, timeout_s=config.timeout_s, offline=is_truthy_env("PI_OFFLINE"))


def create_local_models_extension(options: LocalModelsOptions | None = None) -> Callable[[ExtensionAPI], None]:
    opts = options or LocalModelsOptions()

    def extension(pi: ExtensionAPI) -> None:
        done = False

        async def register_servers(_event: Any, ctx: Any) -> None:
            nonlocal done
            if done:
                return
            done = True
            config = opts.load()
            for problem in config.errors:
                ctx.ui.notify(f"Local models: {problem}", "warning")
            results = await discover(config.servers, timeout_s=config.timeout_s, offline=is_truthy_env("PI_OFFLINE"))
            for result in results:
                if result.reachable:
                    pi.register_provider(result.server.name, provider_config(result))
            pi.events.emit(BUS_CHANNEL, [_summary(r) for r in results])

        pi.on("session_start", register_servers)

    return extension


def _summary(result: DiscoveryResult) -> dict[str, Any]:
    return {
        "name": result.server.name,
        "baseUrl": result.server.base_url,
        "models": [m["id"] for m in result.models],
        "error": result.error,
        "skipped": result.skipped,
    }


local_models_extension = create_local_models_extension()
