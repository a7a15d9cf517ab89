"""The secrets of a live session, collected again only when what they come from has changed.

Masking runs on every tool result, and collecting the secrets (``collect_secrets``: the process
environment's names matched one by one, auth.json read and parsed, configured values resolved)
costs more than the masking itself. ``CollectedSecrets`` keeps the last collection together with
a fingerprint of its inputs and answers with that same tuple while the fingerprint is unchanged:

* the process environment: a copy of its contents, compared as a whole;
* auth.json: its bytes (or, for an in-memory store, its change counter), so that an edit by
  another process counts however quickly it follows the previous one;
* the credentials configured in this process (``ModelRuntime.configured_credentials``);
* the outputs of ``!command`` values seen so far (``command_outputs_generation``).

The fingerprint is taken at every call, so a change is seen by the very next masking, as before.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from pi_harness.coding.config.values import command_outputs_generation
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.coding.secrets.sources import NamedSecret, collect_secrets


def environment_fingerprint(env: Mapping[str, str]) -> object:
    """A copy of ``env`` to compare with a later one. For ``os.environ`` the copy is of its
    encoded mapping (one C-level dict copy instead of decoding every variable)."""
    data = getattr(env, "_data", None) if env is os.environ else None
    return dict(data) if isinstance(data, dict) else dict(env)


class CollectedSecrets:
    """``collect_secrets(runtime, env, extra)``, reused while its inputs stay the same."""

    def __init__(
        self, runtime: ModelRuntime | None, env: Mapping[str, str] = os.environ, extra: tuple[NamedSecret, ...] = ()
    ) -> None:
        self._runtime = runtime
        self._env = env
        self._extra = extra
        # The fingerprint and the secrets collected under it, replaced together (one assignment,
        # so a masking in another thread never pairs one collection with another's fingerprint).
        self._last: tuple[tuple[object, ...], tuple[NamedSecret, ...]] | None = None

    def _inputs(self) -> tuple[object, ...]:
        runtime = self._runtime
        if runtime is None:
            return (environment_fingerprint(self._env), command_outputs_generation())
        return (
            environment_fingerprint(self._env),
            command_outputs_generation(),
            runtime.auth.change_token(),
            runtime.configured_credentials(),
        )

    def __call__(self) -> tuple[NamedSecret, ...]:
        fingerprint = self._inputs()
        last = self._last
        if last is not None and last[0] == fingerprint:
            return last[1]
        secrets = collect_secrets(self._runtime, self._env, self._extra)
        self._last = (fingerprint, secrets)
        return secrets


__all__ = ["CollectedSecrets", "environment_fingerprint"]
