"""Third-party packages that pi-harness imports only when a feature needs them.

A missing one must cost the user one line that names what to install, never a traceback: the
import sites turn ``ModuleNotFoundError`` into :class:`MissingDependencyError`, which the CLI
prints as a plain error and extensions report as their one-line error. Nothing from
``pi_harness`` is imported here, so every layer may use it.
"""

from __future__ import annotations

import importlib
from types import ModuleType


class MissingDependencyError(ImportError):
    """A feature's optional package is not installed; the message says how to install it."""

    def __init__(self, package: str, feature: str, extra: str | None = None) -> None:
        install = f"pip install 'pi-harness[{extra}]'" if extra else f"pip install '{package}'"
        super().__init__(f"{feature} needs the Python package '{package}', which is not installed ({install})")
        self.package = package
        self.feature = feature
        self.extra = extra


def missing_dependency(
    error: ModuleNotFoundError, package: str, feature: str, extra: str | None = None
) -> MissingDependencyError | ModuleNotFoundError:
    """The error to raise for ``error``: ours when the missing module is ``package`` (or one of its
    submodules), else ``error`` itself, since a different missing module is a different fault."""
    missing = error.name or ""
    if missing == package or missing.startswith(package + "."):
        return MissingDependencyError(package, feature, extra)
    return error


def require(module: str, feature: str, extra: str | None = None) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` naming ``extra``."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        raise missing_dependency(error, module.split(".", 1)[0], feature, extra) from None
