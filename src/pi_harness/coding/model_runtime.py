"""ModelRuntime: the single entry for models, availability and credentials.

Models = built-in catalogue <- models.json <- providers registered by extensions. A model is
*available* when its provider has credentials (and, for Cloudflare, its account and gateway ids).
Key resolution order, as Pi 1.4's: runtime key (``--api-key``) > auth.json (api key or OAuth) >
models.json ``apiKey`` > environment; ``!command`` values run at request time and are never
cached. A stored credential's ``env`` object gives that provider's settings over the process
environment (header templates, base URL placeholders).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict, cast

from pi_harness.ai.api import stream_simple
from pi_harness.ai.env_keys import AUTHENTICATED, get_env_api_key, provider_settings
from pi_harness.ai.models import _catalog, catalog_provider_models
from pi_harness.ai.options import SimpleStreamOptions, StreamOptions
from pi_harness.ai.registry import ApiProvider, register_api_provider, unregister_api_providers
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import AssistantMessage, Context, Model
from pi_harness.coding.auth_flows.credentials import is_fresh
from pi_harness.coding.auth_flows.refresh import fresh_api_key
from pi_harness.coding.config.auth import AuthStorage, entry_api_key
from pi_harness.coding.config.models_json import (
    ModelsJsonError,
    ProviderConfig,
    apply_models_config,
    build_custom_model,
    load_models_file,
)
from pi_harness.coding.config.paths import MODELS_FILE
from pi_harness.coding.config.values import is_command_value, missing_env_names, resolve_config_value, resolve_headers
from pi_harness.coding.model_table import ModelTable
from pi_harness.coding.virtual_models import RoutedModel, RouteReason, VirtualModels, is_virtual_model

# Serves as both entry points of the provider (``stream`` and ``stream_simple``), so it takes
# either kind of options.
StreamSimple = Callable[[Model, Context, StreamOptions | None], AssistantMessageEventStream]


class ExtensionProviderConfig(TypedDict, total=False):
    """``pi.register_provider(name, config)``: Pi's keys (docs/custom-provider.md)."""

    baseUrl: str
    apiKey: str
    api: str
    headers: dict[str, str]
    authHeader: bool
    models: list[dict[str, object]]  # model definitions, as in models.json
    oauth: object
    streamSimple: StreamSimple  # an in-process provider (``stream_simple`` is accepted too)
    stream_simple: StreamSimple


@dataclass
class ExtensionProvider:
    """A provider registered by an extension (``pi.register_provider``)."""

    name: str
    source: str
    base_url: str | None = None
    api_key: str | None = None
    api: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    auth_header: bool = False
    models: list[dict[str, object]] | None = None
    oauth: object = None
    stream_simple: StreamSimple | None = None


class ProviderRegistrationError(ValueError):
    pass


class ModelRuntime:
    def __init__(
        self,
        auth: AuthStorage | None = None,
        models_json_path: Path | None = None,
        *,
        extra_models: list[Model] | None = None,
    ) -> None:
        self.auth = auth if auth is not None else AuthStorage.in_memory()
        self.models_json_path = models_json_path
        self.errors: list[str] = []
        # Diagnostics that change nothing (unknown models.json fields).
        self.warnings: list[str] = []
        self._runtime_keys: dict[str, str] = {}
        self._extension_providers: dict[str, ExtensionProvider] = {}
        self._extra_models: list[Model] = list(extra_models or [])
        self._provider_configs: dict[str, ProviderConfig] = {}
        self._configs: list[ProviderConfig] = []
        self._models = ModelTable(self._provider_models, self._all_models)
        # Virtual models (``register_virtual_model``), laid over the catalogue at each refresh.
        self.virtual = VirtualModels()
        self.refresh()

    @classmethod
    def create(cls, agent_directory: Path, auth: AuthStorage | None = None) -> ModelRuntime:
        return cls(auth or AuthStorage(agent_directory), agent_directory / MODELS_FILE)

    # -- catalogue ---------------------------------------------------------------------------

    def refresh(self) -> None:
        """Rebuild the model list (re-reads models.json; no network)."""
        self.errors = []
        self.warnings = []
        configs: list[ProviderConfig] = []
        if self.models_json_path is not None:
            try:
                loaded = load_models_file(self.models_json_path)
            except ModelsJsonError as exc:
                self.errors.append(str(exc))
            else:
                configs = loaded.configs
                self.errors.extend(loaded.errors)
                self.warnings.extend(loaded.warnings)
        self._provider_configs = {c.name: c for c in configs}
        self._configs = configs
        self._models = ModelTable(self._provider_models, self._all_models)
        if self.virtual.defined():
            self._models.full()  # virtual models are laid over the whole table at once

    def _all_models(self) -> dict[str, list[Model]]:
        models = apply_models_config(_catalog(), self._configs)
        for provider in self._extension_providers.values():
            models = self._apply_extension_provider(models, provider)
        for extra in self._extra_models:
            bucket = models.setdefault(extra["provider"], [])
            models[extra["provider"]] = [m for m in bucket if m["id"] != extra["id"]] + [extra]
        return self.virtual.overlay(models)

    def _provider_models(self, name: str) -> list[Model] | None:
        """What ``_all_models()[name]`` holds, without the other providers (no virtual models:
        with those the table is built whole)."""
        builtin = catalog_provider_models(name)
        models: dict[str, list[Model]] = {} if builtin is None else {name: list(builtin)}
        models = apply_models_config(models, [config for config in self._configs if config.name == name])
        extension = self._extension_providers.get(name)
        if extension is not None:
            models = self._apply_extension_provider(models, extension)
        for extra in self._extra_models:
            if extra["provider"] == name:
                bucket = models.setdefault(name, [])
                models[name] = [m for m in bucket if m["id"] != extra["id"]] + [extra]
        return models.get(name)

    def _apply_extension_provider(
        self, models: dict[str, list[Model]], provider: ExtensionProvider
    ) -> dict[str, list[Model]]:
        config = ProviderConfig(
            name=provider.name,
            base_url=provider.base_url,
            api=provider.api,
            api_key=provider.api_key,
            headers=provider.headers,
            auth_header=provider.auth_header,
        )
        if provider.models is not None:
            models[provider.name] = [build_custom_model(config, raw) for raw in provider.models]
        elif provider.base_url or provider.headers:
            models = apply_models_config(models, [config])
        return models

    def get_all(self) -> list[Model]:
        return [copy.deepcopy(m) for models in self._models.values() for m in models]

    def get_providers(self) -> list[str]:
        return list(self._models)

    def find(self, provider: str, model_id: str) -> Model | None:
        for model in self._models.get(provider, []):
            if model["id"] == model_id:
                return copy.deepcopy(model)
        return None

    def add_model(self, model: Model) -> None:
        """Register one model directly (SDK hosts, tests)."""
        self._extra_models = [m for m in self._extra_models if not _same(m, model)] + [model]
        self.refresh()

    # -- credentials -------------------------------------------------------------------------

    def set_runtime_api_key(self, provider: str, key: str) -> None:
        self._runtime_keys[provider] = key

    def has_credentials(self, provider: str) -> bool:
        if self.virtual.only_virtual(provider):
            return True  # a provider id that lists only virtual models needs no key
        if provider_settings(provider, self.auth.get_env(provider)) is None:
            return False  # e.g. Cloudflare without its account id: no URL to send to
        if provider in self._runtime_keys:
            return True
        entry = self.auth.get(provider)
        if entry is not None:
            # A stored credential with only settings (``env``) takes its key from the environment.
            return entry.get("type") != "api_key" or bool(entry.get("key")) or bool(get_env_api_key(provider))
        configured = self._configured_key_value(provider)
        # A configured ``$VAR`` key counts only when its variables are set; a command always does.
        if configured and (is_command_value(configured) or not missing_env_names(configured)):
            return True
        if get_env_api_key(provider):
            return True
        return self._needs_no_key(provider)

    def _needs_no_key(self, provider: str) -> bool:
        """In-process providers: faux models, and extension providers that stream themselves
        (``streamSimple``) without declaring a key."""
        ext = self._extension_providers.get(provider)
        if ext is not None and ext.stream_simple is not None and not ext.api_key and ext.oauth is None:
            return True
        models = self._models.get(provider, [])
        return bool(models) and all(m["api"] == "faux" for m in models)

    def _configured_key_value(self, provider: str) -> str | None:
        ext = self._extension_providers.get(provider)
        if ext is not None and ext.api_key:
            return ext.api_key
        config = self._provider_configs.get(provider)
        return config.api_key if config is not None and config.api_key else None

    def get_api_key(self, provider: str) -> str | None:
        """Resolve the key at request time; ``None`` when there is none."""
        if provider in self._runtime_keys:
            return self._runtime_keys[provider]
        return self._resolve_key(provider, self.auth.get(provider))

    def _resolve_key(self, provider: str, entry: dict[str, Any] | None) -> str | None:
        if entry is not None and entry.get("type") == "oauth" and not is_fresh(entry):
            # An expired signed-in token is refreshed here, under the auth.json lock.
            stored = fresh_api_key(self.auth, provider)
        else:
            stored = entry_api_key(entry)  # what ``fresh_api_key`` gives for such an entry
        if stored:
            return stored
        configured = self._configured_key_value(provider)
        # Any stored credential, even one with only settings, replaces models.json's key (Pi 1.4).
        if configured and entry is None:
            resolved = resolve_config_value(configured)
            if resolved:
                return resolved
        env = get_env_api_key(provider)
        if env:
            return "" if env == AUTHENTICATED else env
        if self._needs_no_key(provider):
            return ""
        return None

    def api_key_now(self, provider: str) -> tuple[bool, str | None]:
        """``(True, get_api_key(provider))`` when resolving it cannot wait on anything, with
        auth.json read once; ``(False, None)`` when it may (see ``api_key_may_block``): the
        caller then resolves it where waiting does no harm."""
        if provider in self._runtime_keys:
            return True, self._runtime_keys[provider]
        entry = self.auth.get(provider)
        if self._may_block(provider, entry):
            return False, None
        return True, self._resolve_key(provider, entry)

    def api_key_may_block(self, provider: str) -> bool:
        """Whether ``get_api_key(provider)`` may wait on something: a ``!command`` value it would
        run, or an expired sign-in it would refresh over the network. Otherwise it reads small
        local files at most (auth.json), quickly enough for the event loop, and callers spare
        the hand-off to a worker thread."""
        return provider not in self._runtime_keys and self._may_block(provider, self.auth.get(provider))

    def _may_block(self, provider: str, entry: dict[str, Any] | None) -> bool:
        if entry is not None:
            # A stored credential decides alone: models.json's key is not consulted (see above).
            kind, key = entry.get("type"), entry.get("key")
            if kind == "oauth":
                return not is_fresh(entry)
            return kind == "api_key" and isinstance(key, str) and is_command_value(key)
        configured = self._configured_key_value(provider)
        return configured is not None and is_command_value(configured)

    def configured_credentials(self) -> list[tuple[str, str]]:
        """``(provider, value)`` of every credential configured in this process, as written (``$VAR``
        and ``!command`` unresolved): ``--api-key`` keys, and the ``apiKey`` and header values of
        models.json and of extension providers. ``auth.json`` is read from ``self.auth``."""
        found = list(self._runtime_keys.items())
        for config in self._provider_configs.values():
            if config.api_key:
                found.append((config.name, config.api_key))
            header_sets: list[object] = [config.headers]
            header_sets += [raw.get("headers") for raw in config.models or []]
            header_sets += [override.get("headers") for override in config.model_overrides.values()]
            found += [(config.name, value) for value in _header_values(header_sets)]
        for ext in self._extension_providers.values():
            if ext.api_key:
                found.append((ext.name, ext.api_key))
            found += [(ext.name, value) for value in _header_values([ext.headers])]
        return found

    def request_headers_need_work(self, model: Model) -> bool:
        """Whether ``get_request_headers`` has anything to resolve (values that may run a command,
        a key for ``authHeader``); without, its answer is ``{}`` and needs no worker thread."""
        if model.get("headers"):
            return True
        provider = model["provider"]
        config = self._provider_configs.get(provider)
        ext = self._extension_providers.get(provider)
        return (config is not None and bool(config.auth_header)) or (ext is not None and bool(ext.auth_header))

    def get_request_headers(self, model: Model) -> dict[str, str]:
        """Model headers with ``$VAR``/``!cmd`` values resolved, plus ``authHeader`` bearer."""
        provider = model["provider"]
        headers = resolve_headers(model.get("headers"), self.auth.get_env(provider))
        auth_header = self._provider_configs.get(provider)
        ext = self._extension_providers.get(provider)
        if (auth_header is not None and auth_header.auth_header) or (ext is not None and ext.auth_header):
            key = self.get_api_key(provider)
            if key:
                headers["Authorization"] = f"Bearer {key}"
        return headers

    def get_request_env(self, provider: str) -> dict[str, str] | None:
        """Settings for a request to ``provider`` (``StreamOptions.env``): the stored credential's
        ``env`` object with the provider's required settings filled from the environment."""
        stored = self.auth.get_env(provider)
        env = {**(provider_settings(provider, stored) or {}), **stored}
        return env or None

    # -- requests extensions make (``ctx.model_registry``) ---------------------------------------

    def stream_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None = None
    ) -> AssistantMessageEventStream:
        """Stream through the model's provider with this runtime's credentials, headers and
        provider settings resolved now (Pi's ``modelRegistry.streamSimple``)."""
        opts = dataclasses.replace(options) if options is not None else SimpleStreamOptions()
        provider = model["provider"]
        if not opts.api_key:
            key = self.get_api_key(provider)
            if key is not None:
                opts.api_key = key
        opts.headers = {**self.get_request_headers(model), **(opts.headers or {})} or None
        opts.env = opts.env or self.get_request_env(provider)
        return stream_simple(model, context, opts)

    async def complete_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None = None
    ) -> AssistantMessage:
        return await self.stream_simple(model, context, options).result()

    def get_available(self) -> list[Model]:
        return [copy.deepcopy(m) for p, models in self._models.items() if self.has_credentials(p) for m in models]

    # -- extension providers -----------------------------------------------------------------

    def register_provider(self, name: str, config: Mapping[str, object], source: str = "extension") -> None:
        """Apply an extension's ``register_provider(name, config)``; validation errors raise."""
        # The extension's config, used as given (as Pi does) once the checks below pass.
        provider = cast(ExtensionProviderConfig, config)
        models = provider.get("models")
        stream_simple = provider.get("streamSimple") or provider.get("stream_simple")
        api = provider.get("api")
        if models is not None:
            if not provider.get("baseUrl") and stream_simple is None:
                raise ProviderRegistrationError(f'Provider {name}: "baseUrl" is required when defining models.')
            if not provider.get("apiKey") and not provider.get("oauth") and stream_simple is None:
                raise ProviderRegistrationError(
                    f'Provider {name}: "apiKey" or "oauth" is required when defining models.'
                )
            for model in models:
                if not (model.get("api") or api):
                    raise ProviderRegistrationError(f'Provider {name}, model {model.get("id")}: no "api" specified.')
        if stream_simple is not None:
            if not api:
                raise ProviderRegistrationError(f'Provider {name}: "api" is required when registering streamSimple.')
            register_api_provider(
                ApiProvider(api=api, stream=stream_simple, stream_simple=stream_simple, requires_api_key=False),
                source_id=f"provider:{name}",
            )
        self._extension_providers[name] = ExtensionProvider(
            name=name,
            source=source,
            base_url=provider.get("baseUrl") or ("extension://" + name if stream_simple and models else None),
            api_key=provider.get("apiKey"),
            api=api,
            headers=dict(provider.get("headers") or {}),
            auth_header=bool(provider.get("authHeader", False)),
            models=list(models) if models is not None else None,
            oauth=provider.get("oauth"),
            stream_simple=stream_simple,
        )
        self.refresh()

    def unregister_provider(self, name: str) -> None:
        if self._extension_providers.pop(name, None) is not None:
            unregister_api_providers(f"provider:{name}")
            self.refresh()

    def extension_provider(self, name: str) -> ExtensionProvider | None:
        return self._extension_providers.get(name)

    # -- virtual models (model_routing.py) -------------------------------------------------------

    def register_virtual_model(self, definition: Mapping[str, object]) -> None:
        """Register (or replace) a virtual model; a clash with a physical model raises."""
        provider, model_id = str(definition.get("provider") or ""), str(definition.get("id") or "")
        self.virtual.register(definition, self.get_physical_model(provider, model_id))
        self.refresh()

    def unregister_virtual_model(self, provider: str, model_id: str) -> None:
        if self.virtual.unregister(provider, model_id):
            self.refresh()

    def get_physical_model(self, provider: str, model_id: str) -> Model | None:
        """A catalogue model that is not virtual."""
        model = self.find(provider, model_id)
        return model if model is not None and not is_virtual_model(model) else None

    async def resolve_model(
        self,
        model: Model,
        messages: list[Mapping[str, object]],
        *,
        reason: RouteReason,
        thinking_level: str,
        state: object = None,
        failed: Mapping[str, object] | None = None,
        signal: object = None,
    ) -> RoutedModel:
        """Ask ``model``'s router for this request's physical model (``VirtualModelError``)."""
        return await self.virtual.resolve(
            model,
            messages,
            reason=reason,
            thinking_level=thinking_level,
            state=state,
            failed=failed,
            signal=signal,
            get_physical=self.get_physical_model,
            has_credentials=self.has_credentials,
        )


def _header_values(header_sets: list[object]) -> list[str]:
    return [
        value
        for headers in header_sets
        if isinstance(headers, dict)
        for value in headers.values()
        if isinstance(value, str)
    ]


def _same(a: Model, b: Model) -> bool:
    return a["provider"] == b["provider"] and a["id"] == b["id"]
