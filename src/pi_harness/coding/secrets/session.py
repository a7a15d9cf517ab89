"""The masker of a session: the secrets of its model runtime and of the process environment
(collected again when those change, ``collected``), while the setting ``security.maskSecrets`` is
on (read at each use, so ``/reload`` applies it)."""

from __future__ import annotations

import os
from collections.abc import Iterable

from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.coding.secrets.collected import CollectedSecrets
from pi_harness.coding.secrets.masker import SecretMasker
from pi_harness.coding.secrets.sources import NamedSecret


def masks_secrets(settings: SettingsManager | None) -> bool:
    return settings is None or settings.values.security.mask_secrets


def masker_for(
    settings: SettingsManager | None, runtime: ModelRuntime | None, extra: Iterable[NamedSecret] = ()
) -> SecretMasker:
    return SecretMasker(CollectedSecrets(runtime, os.environ, tuple(extra)), enabled=lambda: masks_secrets(settings))


__all__ = ["masker_for", "masks_secrets"]
