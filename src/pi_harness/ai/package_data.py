"""Data files shipped inside ``pi_harness.ai`` (the model catalogues)."""

from __future__ import annotations

from pathlib import Path


def read_package_data(name: str) -> bytes:
    """A data file shipped next to this module (the model catalogues).

    Read as a plain file when the package is on disk; ``importlib.resources`` (a slow import)
    only for a package that is not, such as one inside a zip archive.
    """
    try:
        return (Path(__file__).parent / name).read_bytes()
    except OSError:
        from importlib import resources

        return resources.files(__package__ or "pi_harness.ai").joinpath(name).read_bytes()
