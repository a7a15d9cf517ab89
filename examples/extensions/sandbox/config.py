"""The sandbox configuration: defaults <- ``<agentDir>/extensions/sandbox.json`` <- ``.pi/sandbox.json``.

Each file may set any subset of::

    {
      "enabled": true,
      "network": {"allowedDomains": [...], "deniedDomains": [...]},
      "filesystem": {"denyRead": [...], "allowWrite": [...], "denyWrite": [...]},
      "ignoreViolations": {...},
      "enableWeakerNestedSandbox": false
    }

``network`` and ``filesystem`` merge key by key (a list given in a later file replaces the list
before it); the other keys are replaced. Paths may start with ``~`` (home) and may be relative
(to the session's working directory). ``ignoreViolations`` is accepted for compatibility with
Pi's configuration files and has no effect with bubblewrap.

Note that the project file can loosen the sandbox as much as it can tighten it: review
``.pi/sandbox.json`` in repositories you did not write.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, cast

from pi_harness.coding.config.paths import agent_dir


class NetworkConfig(TypedDict):
    allowedDomains: list[str]
    deniedDomains: list[str]


class FilesystemConfig(TypedDict):
    denyRead: list[str]
    allowWrite: list[str]
    denyWrite: list[str]


class SandboxConfig(TypedDict):
    enabled: bool
    network: NetworkConfig
    filesystem: FilesystemConfig
    ignoreViolations: dict[str, Any]
    enableWeakerNestedSandbox: bool


DEFAULT_CONFIG: SandboxConfig = {
    "enabled": True,
    "network": {
        "allowedDomains": [
            "npmjs.org",
            "*.npmjs.org",
            "registry.npmjs.org",
            "registry.yarnpkg.com",
            "pypi.org",
            "*.pypi.org",
            "files.pythonhosted.org",  # where pip downloads packages from
            "github.com",
            "*.github.com",
            "api.github.com",
            "raw.githubusercontent.com",
        ],
        "deniedDomains": [],
    },
    "filesystem": {
        "denyRead": ["~/.ssh", "~/.aws", "~/.gnupg"],
        "allowWrite": [".", "/tmp"],
        "denyWrite": [".env", ".env.*", "*.pem", "*.key"],
    },
    "ignoreViolations": {},
    "enableWeakerNestedSandbox": False,
}


def global_config_path() -> Path:
    return agent_dir() / "extensions" / "sandbox.json"


def project_config_path(cwd: str) -> Path:
    return Path(cwd) / ".pi" / "sandbox.json"


def _strings(value: Any) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    return None


def merge(base: SandboxConfig, overrides: dict[str, Any]) -> SandboxConfig:
    """``overrides`` applied on ``base``; values of the wrong type are ignored."""
    result = copy.deepcopy(base)
    if isinstance(overrides.get("enabled"), bool):
        result["enabled"] = overrides["enabled"]
    if isinstance(overrides.get("enableWeakerNestedSandbox"), bool):
        result["enableWeakerNestedSandbox"] = overrides["enableWeakerNestedSandbox"]
    if isinstance(overrides.get("ignoreViolations"), dict):
        result["ignoreViolations"] = dict(overrides["ignoreViolations"])
    sections = (
        ("network", ("allowedDomains", "deniedDomains")),
        ("filesystem", ("denyRead", "allowWrite", "denyWrite")),
    )
    for section, keys in sections:
        given = overrides.get(section)
        if not isinstance(given, dict):
            continue
        target = cast(dict[str, Any], result[section])  # type: ignore[literal-required]
        for key in keys:
            values = _strings(given.get(key))
            if values is not None:
                target[key] = values
    return result


@dataclass
class LoadedConfig:
    config: SandboxConfig
    warnings: list[str]


def load_config(cwd: str) -> LoadedConfig:
    """The merged configuration for ``cwd``; unreadable files are skipped with a warning."""
    config = copy.deepcopy(DEFAULT_CONFIG)
    warnings: list[str] = []
    for path in (global_config_path(), project_config_path(cwd)):
        if not path.is_file():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            warnings.append(f"Ignoring {path}: {error}")
            continue
        if not isinstance(data, dict):
            warnings.append(f"Ignoring {path}: expected a JSON object")
            continue
        config = merge(config, data)
    return LoadedConfig(config, warnings)
