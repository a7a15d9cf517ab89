"""Pi packages: ``pi install/remove/update/list`` and the resources installed packages offer
(docs/packages.md). Sources are npm, git, local paths and, beyond Pi, pip."""

from pi_harness.coding.packages.manager import (
    ConfiguredPackage,
    PackageManager,
    PackageResource,
    ResolvedPackages,
)
from pi_harness.coding.packages.process import PackageError
from pi_harness.coding.packages.resolve import resolve_packages, resolve_temporary
from pi_harness.coding.packages.sources import SourceError, parse_source

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
