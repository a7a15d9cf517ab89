"""Turn a raw scenario result into its stable, machine-independent form (the golden form).

What changes from one run to the next is replaced by placeholders that keep what matters for the
comparison: the *kind* of value and, through a number, which values are the same.

* directories: the project, the agent dir, HOME, TMPDIR and the scenario root become
  ``<project>``, ``<agent>``, ``<home>``, ``<tmp>``, ``<root>``; the installed program's own files
  (Pi's package, our ``pi_harness`` package) become ``<pi-package>``; session files become
  ``<session:N>`` (creation order) and their directory ``<sessions-dir>``;
* ports: ``127.0.0.1:<port>``;
* UUIDs: ``<uuid-vV#N>`` (V: the UUID version, so v4 and v7 ids stay distinguishable; N: the
  order of first appearance, so equal ids stay equal); 8-hex-digit entry ids: ``<id#N>``;
  provider response ids and generated tool-call ids: ``<prefix><rid#N>``;
* times: ISO 8601 strings become ``<iso>``; millisecond epoch numbers (and any number under a
  ``timestamp`` key) ``"<ms>"``; durations (``durationMs`` …) ``"<duration>"``.

A :class:`Normalizer` is used for one scenario, in a fixed order (runs, session files,
requests), so the numbering is the same every time the scenario is played.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from _runner import RawResult

UUID_RE = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-([0-9a-f])[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE)
HEX8_RE = re.compile(r"^[0-9a-f]{8}$")
ISO_RE = re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}(?:[.-]\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
PORT_RE = re.compile(r"\b(127\.0\.0\.1|localhost|\[::1\]):\d{2,5}\b")
RESPONSE_ID_RE = re.compile(r"\b(chatcmpl-|msg_|resp_|toolu_|call_|fc_|rs_|req_)([A-Za-z0-9]{10,})\b")
TIME_KEYS = {"timestamp", "labelTimestamp", "createdAt", "updatedAt", "modified", "mtime", "startedAt", "endedAt"}
DURATION_KEYS = {"durationMs", "elapsedMs", "latencyMs", "ttftMs"}


def encoded_cwd(path: Path) -> str:
    """How Pi names a project's session folder: ``--<path without leading /, / -> ->--``."""
    return "--" + re.sub(r"[/\\:]", "-", str(path).lstrip("/")) + "--"


class Normalizer:
    def __init__(self, raw: RawResult, package_roots: list[str]) -> None:
        world = raw.world
        literal: dict[str, str] = {}
        for index, session in enumerate(raw.sessions, 1):
            literal[str(session)] = f"<session:{index}>"
            literal[session.name] = f"<session:{index}>.name"
        literal[str(world.sessions_dir)] = "<sessions-dir>"
        literal[encoded_cwd(world.project)] = "--<project>--"
        for root in package_roots:
            literal[root.rstrip("/")] = "<pi-package>"
        literal[str(world.project)] = "<project>"
        literal[str(world.agent)] = "<agent>"
        literal[str(world.home)] = "<home>"
        literal[str(world.tmp)] = "<tmp>"
        literal[str(world.root)] = "<root>"
        # Real paths too (a /tmp that is a symlink), longest first so that nested paths win.
        for path, name in list(literal.items()):
            if path.startswith("/"):
                real = str(Path(path).resolve())
                literal.setdefault(real, name)
        self._literal = sorted(literal.items(), key=lambda item: -len(item[0]))
        self._numbers: dict[str, dict[str, int]] = {}

    def _number(self, kind: str, value: str) -> int:
        table = self._numbers.setdefault(kind, {})
        return table.setdefault(value, len(table) + 1)

    def text(self, value: str) -> str:
        for path, name in self._literal:
            if path and path in value:
                value = value.replace(path, name)
        value = PORT_RE.sub(lambda m: f"{m.group(1)}:<port>", value)
        value = UUID_RE.sub(lambda m: f"<uuid-v{m.group(1)}#{self._number('uuid', m.group(0).lower())}>", value)
        value = ISO_RE.sub("<iso>", value)
        value = RESPONSE_ID_RE.sub(lambda m: f"{m.group(1)}<rid#{self._number('rid', m.group(0))}>", value)
        if HEX8_RE.match(value):
            value = f"<id#{self._number('id', value)}>"
        return value

    def value(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: self.value(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v, key) for v in value]
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int | float):
            if key in DURATION_KEYS:
                return "<duration>"
            if key in TIME_KEYS or (isinstance(value, int) and 1_500_000_000_000 < value < 2_500_000_000_000):
                return "<ms>"
            return value
        if isinstance(value, str):
            if key in TIME_KEYS and ISO_RE.fullmatch(value):
                return "<iso>"
            return self.text(value)
        return value


def normalize(raw: RawResult, package_roots: list[str]) -> dict[str, Any]:
    """The golden form: ``{"runs": [...], "sessions": [[entry, ...], ...], "requests": [...]}``."""
    norm = Normalizer(raw, package_roots)
    runs: list[dict[str, Any]] = []
    for output in raw.runs:
        run: dict[str, Any] = {"mode": output.mode, "exit_code": output.exit_code}
        if output.mode == "print":
            run["stdout"] = norm.text(output.stdout)
        else:
            run["records"] = norm.value(output.records)
        run["stderr"] = norm.text(output.stderr)
        run["errors"] = output.errors
        runs.append(run)
    sessions: list[list[Any]] = []
    for text in raw.session_texts:
        entries: list[Any] = []
        for line in text.split("\n"):
            if not line.strip():
                continue
            try:
                entries.append(json.loads(line))
            except ValueError:
                entries.append({"__non_json__": line})
        sessions.append(norm.value(entries))
    requests = [
        {"method": r.method, "path": norm.text(r.path), "protocol": r.protocol, "body": norm.value(r.body)}
        for r in raw.requests
    ]
    return {"runs": runs, "sessions": sessions, "requests": requests}
