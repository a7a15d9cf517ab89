"""``/export <file>.jsonl``: the active branch as a session file of its own, as Pi writes it.

A fresh header (the session's id and cwd, the time of the export) and the entries from the root
to the leaf, each re-parented onto the one before it, so the file is one straight branch that
Pi or pi-harness opens like any session.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from pi_harness.coding.session_store.entries import CURRENT_SESSION_VERSION
from pi_harness.coding.session_store.ids import iso_now
from pi_harness.coding.session_store.jsonl import encode_record
from pi_harness.coding.session_store.store import SessionManager


def default_export_name() -> str:
    """``session-<ISO time with ':' and '.' as '-'>.jsonl``, as Pi names an export without a path."""
    stamp = time.strftime("%Y-%m-%dT%H-%M-%S", time.gmtime()) + f"-{int(time.time() * 1000) % 1000:03d}Z"
    return f"session-{stamp}.jsonl"


def export_branch_jsonl(manager: SessionManager, output: str | os.PathLike[str] | None = None) -> Path:
    """Write the active branch to ``output`` (relative to the working directory); its path."""
    target = Path(output if output is not None else default_export_name()).expanduser()
    target = target if target.is_absolute() else Path.cwd() / target
    target.parent.mkdir(parents=True, exist_ok=True)
    header = {
        "type": "session",
        "version": CURRENT_SESSION_VERSION,
        "id": manager.get_session_id(),
        "timestamp": iso_now(),
        "cwd": manager.get_cwd(),
    }
    lines = [encode_record(header)]
    parent: str | None = None
    for entry in manager.get_branch():
        lines.append(encode_record({**entry, "parentId": parent}))
        parent = entry["id"]
    target.write_bytes(b"".join(lines))
    return target
