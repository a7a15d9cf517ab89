"""``builtin:llama.cpp``: local model servers as providers.

At ``session_start`` every server that answered ``GET /v1/models`` (see ``config.py`` for which
are asked) is registered with ``pi.register_provider`` as an ``openai-completions`` provider (API
key ``local`` unless configured). The ``pi`` command has probed the servers already, before it
chose the model, and passes that result in ``LocalModelsOptions.cache``; only without one (an SDK
host) or on ``/reload`` does the extension probe itself, concurrently and capped (1.5 s by
default) so a missing server never holds startup up. The results are also emitted on the event
bus channel ``local-models:discovered`` (a list of ``{name, baseUrl, models, error, skipped}``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

from pi_harness.coding.extensions import SETTINGS_FILE, ExtensionAPI, ExtensionContext, ExtensionEvent, agent_dir
from pi_harness.extensions_builtin.local_models.config import LocalModelsConfig, load_local_models_config
from pi_harness.extensions_builtin.local_models.discovery import DiscoveryResult, provider_config
from pi_harness.extensions_builtin.local_models.startup import DiscoveryCache, LocalDiscovery, run_discovery

SETTINGS_KEY = "localModels"
BUS_CHANNEL = "local-models:discovered"

# The ``localModels`` settings object, or a callable asked for it at each discovery.
SettingsSource: TypeAlias = Mapping[str, object] | Callable[[], Mapping[str, object] | None] | None


@dataclass(frozen=True)
class LocalModelsOptions:
    """``settings`` is the ``localModels`` object (or a callable returning it); by default it is
    read from the global ``<agentDir>/settings.json``. ``environ`` defaults to ``os.environ``.
    ``cache`` carries a discovery the host ran already (and is shared by all sessions)."""

    settings: SettingsSource = None
    agent_dir: Path | None = None
    environ: Mapping[str, str] | None = None
    cache: DiscoveryCache | None = None

    def load(self) -> LocalModelsConfig:
        source = self.settings
        value = source() if callable(source) else source
        if value is None and source is None:
            value = _global_settings(self.agent_dir if self.agent_dir is not None else agent_dir())
        return load_local_models_config(value, os.environ if self.environ is None else self.environ)


def _global_settings(directory: Path) -> Mapping[str, object] | None:
    try:
        data = json.loads((directory / SETTINGS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = data.get(SETTINGS_KEY) if isinstance(data, dict) else None
    return value if isinstance(value, Mapping) else None


async def discover_local_models(options: LocalModelsOptions | None = None) -> list[DiscoveryResult]:
    """Discovery without a session (for the CLI or ``pi --list-models``)."""
    return (await run_discovery((options or LocalModelsOptions()).load())).results


def create_local_models_extension(options: LocalModelsOptions | None = None) -> Callable[[ExtensionAPI], None]:
    opts = options or LocalModelsOptions()
    # One cache per factory: the factory runs again for every session of the host.
    cache = opts.cache if opts.cache is not None else DiscoveryCache()

    def extension(pi: ExtensionAPI) -> None:
        done = False

        async def register_servers(event: ExtensionEvent, ctx: ExtensionContext) -> None:
            nonlocal done
            if done:
                return
            done = True
            previous = current = cache.latest
            # ``/reload`` is how a user makes a server started later known; other new sessions
            # (``/new``, ``/resume``, ``/fork``) reuse what the process found.
            if current is None or getattr(event, "reason", None) == "reload":
                current = cache.latest = await run_discovery(opts.load())
            if not current.reported:
                current.reported = True
                for problem in current.config.errors:
                    ctx.ui.notify(f"Local models: {problem}", "warning")
            for result in current.reachable:
                pi.register_provider(result.server.name, provider_config(result))
            if previous is not None and previous is not current:
                _drop_vanished(pi, previous, current)
            pi.events.emit(BUS_CHANNEL, [_summary(r) for r in current.results])

        pi.on("session_start", register_servers)

    return extension


def _drop_vanished(pi: ExtensionAPI, previous: LocalDiscovery, current: LocalDiscovery) -> None:
    """After a new probe, servers that stopped answering lose their providers."""
    still_there = {result.server.name for result in current.reachable}
    for result in previous.reachable:
        if result.server.name not in still_there:
            pi.unregister_provider(result.server.name)


def _summary(result: DiscoveryResult) -> dict[str, object]:
    return {
        "name": result.server.name,
        "baseUrl": result.server.base_url,
        "models": [m["id"] for m in result.models],
        "error": result.error,
        "skipped": result.skipped,
    }


local_models_extension = create_local_models_extension()
