"""The masker of a session: the secrets of its model runtime and of the process environment,
while the setting ``security.maskSecrets`` is on (read at each use, so ``/reload`` applies it)."""

from __future__ import annotations

import os
from collections.abc import Iterable

from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.coding.secrets.masker import SecretMasker
from pi_harness.coding.secrets.sources import NamedSecret, collect_secrets


def masks_secrets(settings: SettingsManager | None) -> bool:
    return settings is None or settings.values.security.mask_secrets


def masker_for(
    settings: SettingsManager | None, runtime: ModelRuntime | None, extra: Iterable[NamedSecret] = ()
) -> SecretMasker:
    fixed = tuple(extra)
    return SecretMasker(lambda: collect_secrets(runtime, os.environ, fixed), enabled=lambda: masks_secrets(settings))


__all__ = ["masker_for", "masks_secrets"]
