"""One discovery for the whole process: run by the host before the model is chosen, reused later.

The host resolves ``--model`` and picks the default model before any extension runs, so a local
server found only at ``session_start`` would be invisible to both. The CLI therefore runs the
discovery at startup (``run_discovery``), registers what answered in its ``ModelRuntime``
(``register_discovered``) and hands the result to the extension in a ``DiscoveryCache``; the
extension's ``session_start`` reuses it instead of probing again. Every session of the process
shares the cache, so ``/new`` or ``/resume`` cost no requests; ``/reload`` probes anew.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_harness.coding.extensions import ModelRuntime, ProviderRegistrationError, is_truthy_env
from pi_harness.extensions_builtin.local_models.config import EXTENSION_NAME, LocalModelsConfig
from pi_harness.extensions_builtin.local_models.discovery import DiscoveryResult, discover, provider_config


@dataclass
class LocalDiscovery:
    """The configuration one discovery used and what every server answered."""

    config: LocalModelsConfig
    results: list[DiscoveryResult]
    # Whether the configuration problems were shown already (by the host or a session), so the
    # next session that reuses this discovery does not repeat them.
    reported: bool = False

    @property
    def reachable(self) -> list[DiscoveryResult]:
        return [result for result in self.results if result.reachable]


class DiscoveryCache:
    """The latest discovery of the process, shared by the host and every copy of the extension."""

    def __init__(self, latest: LocalDiscovery | None = None) -> None:
        self.latest = latest


async def run_discovery(config: LocalModelsConfig) -> LocalDiscovery:
    """Probe the configured servers (bounded by ``config.timeout_s``; ``PI_OFFLINE`` keeps it on
    this machine)."""
    results = await discover(config.servers, timeout_s=config.timeout_s, offline=is_truthy_env("PI_OFFLINE"))
    return LocalDiscovery(config, results)


def register_discovered(runtime: ModelRuntime, discovery: LocalDiscovery) -> list[str]:
    """Add every server that answered to ``runtime`` as a provider; returns problems (never raises)."""
    problems: list[str] = []
    for result in discovery.reachable:
        try:
            # Registered under the extension's path, as if the extension had done it: the
            # extension registers the same providers again at session_start.
            runtime.register_provider(result.server.name, provider_config(result), source=EXTENSION_NAME)
        except ProviderRegistrationError as exc:
            problems.append(str(exc))
    return problems


def unreachable_hint(discovery: LocalDiscovery, provider: str) -> str | None:
    """Why the local provider ``provider`` has no models, when discovery knows (for errors)."""
    for result in discovery.results:
        if result.server.name == provider and not result.reachable:
            return f"Local model server {provider} ({result.server.base_url}): {result.error or result.skipped}"
    return None
