"""Finding a Node.js able to run Pi's extensions: version 22.6 or later (type stripping).

``PI_NODE`` names the program to use; otherwise ``node`` on ``PATH``. The answer is cached per
program path, since asking costs a process start.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache

MIN_VERSION = (22, 6)
NODE_ENV = "PI_NODE"


@dataclass(frozen=True)
class NodeLookup:
    path: str | None  # the program to run, None when none fits
    reason: str  # why none fits (empty when one does)


@lru_cache(maxsize=8)
def _version_of(program: str) -> tuple[int, ...] | None:
    try:
        done = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.match(r"v(\d+)\.(\d+)", done.stdout.strip())
    return (int(match.group(1)), int(match.group(2))) if match else None


def find_node() -> NodeLookup:
    configured = os.environ.get(NODE_ENV)
    candidates = [configured] if configured else []
    on_path = shutil.which("node")
    if on_path and not configured:
        candidates.append(on_path)
    seen: list[str] = []
    for program in candidates:
        version = _version_of(program)
        if version is not None and version >= MIN_VERSION:
            return NodeLookup(program, "")
        seen.append(f"{program} is {'v' + '.'.join(map(str, version)) if version else 'not runnable'}")
    detail = "; ".join(seen) if seen else "no node on PATH"
    return NodeLookup(None, f"Node.js >= 22.6 is needed ({detail}); set {NODE_ENV} to its path")
