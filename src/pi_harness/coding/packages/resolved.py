"""What resolving packages gives the resource loader, and whether there is anything to resolve.

Kept apart from the package manager (npm, git, pip and their processes) so that a session whose
settings name no package never imports it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from pi_harness.coding.packages.discovery import ResourceType

if TYPE_CHECKING:
    from pi_harness.coding.config.settings import SettingsManager

ResourceScope = Literal["user", "project", "temporary"]  # temporary: ``pi -e <source>``


@dataclass(frozen=True)
class PackageResource:
    kind: ResourceType
    path: str
    enabled: bool
    source: str  # the settings entry's source string
    scope: ResourceScope
    base_dir: str  # the package root (a file source: its directory)


@dataclass
class ResolvedPackages:
    resources: list[PackageResource] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def paths(self, kind: ResourceType) -> list[str]:
        return [r.path for r in self.resources if r.kind == kind and r.enabled]


def has_configured_packages(settings: SettingsManager, *, with_project: bool) -> bool:
    """Whether the ``packages`` setting lists anything the manager would read (the global file,
    or the merged value for a manager without one, and the project's when it counts)."""
    values = [settings.scope_value("global", "packages"), settings.get("packages")]
    if with_project:
        values.append(settings.scope_value("project", "packages"))
    return any(isinstance(value, list) and value for value in values)
