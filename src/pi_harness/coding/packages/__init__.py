"""Pi packages: ``pi install/remove/update/list`` and the resources installed packages offer
(docs/packages.md). Sources are npm, git, local paths and, beyond Pi, pip.

The names below are loaded on first use: importing a submodule (``packages.sources`` for
``is_package_source``) must not bring in the manager and its npm, git and pip parts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_harness.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from pi_harness.coding.packages.manager import ConfiguredPackage, PackageManager
    from pi_harness.coding.packages.process import PackageError
    from pi_harness.coding.packages.resolve import resolve_packages, resolve_temporary
    from pi_harness.coding.packages.resolved import PackageResource, ResolvedPackages
    from pi_harness.coding.packages.sources import SourceError, parse_source

_HOMES = {
    "ConfiguredPackage": "manager",
    "PackageManager": "manager",
    "PackageError": "process",
    "resolve_packages": "resolve",
    "resolve_temporary": "resolve",
    "PackageResource": "resolved",
    "ResolvedPackages": "resolved",
    "SourceError": "sources",
    "parse_source": "sources",
}


__getattr__, __dir__ = lazy_exports(__name__, globals(), _HOMES)


__all__ = [
    "ConfiguredPackage",
    "PackageError",
    "PackageManager",
    "PackageResource",
    "ResolvedPackages",
    "SourceError",
    "parse_source",
    "resolve_packages",
    "resolve_temporary",
]
