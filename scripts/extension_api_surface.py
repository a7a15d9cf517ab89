#!/usr/bin/env python3
"""Compare the Python extension API with Pi 1.4.0's declarations (``types.d.ts``).

Five categories are read from Pi's ``dist/core/extensions/types.d.ts``:

- ``events``: the event names of the ``on(event: "...")`` overloads of ``ExtensionAPI``;
- ``pi``: the other members of ``ExtensionAPI``;
- ``ctx``: the members of ``ExtensionContext``, ``ExtensionToolContext``,
  ``ExtensionCommandContext`` and ``ReplacedSessionContext``;
- ``ctx.ui``: the members of ``ExtensionUIContext``;
- ``tool``: the fields of ``ToolDefinition``.

Each Pi name is mapped to its Python name by one rule, camelCase to snake_case
(``registerMcpServer`` -> ``register_mcp_server``), except for the names in ``EXCEPTIONS``
(docs/extensions.md shows the same table). The Python side is read by introspection:
``EVENT_NAMES``, the public attributes of ``ExtensionAPI``, of the context classes and of the
``ExtensionUI`` protocol, and the fields of the ``ToolDefinition`` dataclass.

A member that is missing counts against the check unless the section of
``src/pi_harness/docs/compatibility.md`` between ``<!-- extension-api-deliberate:start -->`` and
``<!-- extension-api-deliberate:end -->`` lists it (one ``- `category:PiName` ...`` line each).
``--skip-category ctx.ui`` reports a category without failing on it.

Exit status: 0 when nothing undeclared is missing, 1 otherwise, 2 when the declarations cannot
be read. ``--json`` prints the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

DEFAULT_TYPES = Path("/work/pi-ref/pi/node_modules/@earendil-works/pi-coding-agent/dist/core/extensions/types.d.ts")
COMPATIBILITY = ROOT / "src" / "pi_harness" / "docs" / "compatibility.md"
START_MARK = "<!-- extension-api-deliberate:start -->"
END_MARK = "<!-- extension-api-deliberate:end -->"

CATEGORIES = ("events", "pi", "ctx", "ctx.ui", "tool")
# Pi 1.4.0's member names, extracted from its types.d.ts with ``--write-names`` (facts: names
# only). Used when the reference package is not installed, as on a fresh CI machine.
RECORDED_NAMES = ROOT / "tests" / "fixtures" / "pi_1_4_extension_api.json"
INTERFACES: dict[str, tuple[str, ...]] = {
    "pi": ("ExtensionAPI",),
    "ctx": ("ExtensionContext", "ExtensionToolContext", "ExtensionCommandContext", "ReplacedSessionContext"),
    "ctx.ui": ("ExtensionUIContext",),
    "tool": ("ToolDefinition",),
}

# Pi names whose Python name is not the plain snake_case of the camelCase name.
EXCEPTIONS: dict[str, str] = {
    "hasUI": "has_ui",  # an acronym: one word, not ``has_u_i``
}

_SNAKE_BOUNDARY = re.compile(r"(?<!^)(?=[A-Z])")
# A member of an interface body: four spaces of indentation (tsc's output), optional
# ``readonly``, the name, an optional ``?``, then a call, generic or type annotation.
_MEMBER = re.compile(r"^    (?:readonly )?([A-Za-z_$][\w$]*)\??\s*[(<:]")
_ON_EVENT = re.compile(r'^    on\(event: "([a-z_]+)"')
_DELIBERATE = re.compile(r"^\s*[-*]\s+`([a-z.]+):([A-Za-z_]\w*)`")


def python_name(pi_name: str) -> str:
    return EXCEPTIONS.get(pi_name) or _SNAKE_BOUNDARY.sub("_", pi_name).lower()


def interface_body(source: str, name: str) -> list[str]:
    """The lines of ``export interface <name> ... { ... }`` between its braces."""
    match = re.search(rf"^(?:export )?interface {re.escape(name)}\b[^{{]*\{{\s*$", source, re.MULTILINE)
    if match is None:
        raise ValueError(f"interface {name} not found")
    lines: list[str] = []
    depth = 1
    for line in source[match.end() :].splitlines()[1:]:
        depth += line.count("{") - line.count("}")
        if depth <= 0:
            break
        lines.append(line)
    return lines


def pi_members(source: str, interface: str) -> list[str]:
    seen: list[str] = []
    for line in interface_body(source, interface):
        found = _MEMBER.match(line)
        if found and found.group(1) not in seen:
            seen.append(found.group(1))
    return seen


def pi_surface(source: str) -> dict[str, list[str]]:
    api_lines = interface_body(source, "ExtensionAPI")
    events = [m.group(1) for line in api_lines if (m := _ON_EVENT.match(line))]
    surface = {"events": list(dict.fromkeys(events))}
    for category, interfaces in INTERFACES.items():
        names: list[str] = []
        for interface in interfaces:
            names.extend(n for n in pi_members(source, interface) if n not in names and n != "on")
        surface[category] = names
    return surface


def _public(cls: type) -> set[str]:
    names = {n for n in dir(cls) if not n.startswith("_")}
    names |= set(getattr(cls, "__annotations__", {}))
    return names


def python_surface() -> dict[str, set[str]]:
    from pi_harness.coding.extensions.api import ExtensionAPI
    from pi_harness.coding.extensions.context import ExtensionCommandContext, ExtensionContext
    from pi_harness.coding.extensions.events import EVENT_NAMES
    from pi_harness.coding.extensions.types import ToolDefinition
    from pi_harness.coding.extensions.ui import ExtensionUI

    context = _public(ExtensionContext) | _public(ExtensionCommandContext)
    try:
        from pi_harness.coding.extensions.context import ReplacedSessionContext

        context |= _public(ReplacedSessionContext)
    except ImportError:
        pass
    tool = {f.name for f in fields(ToolDefinition)} if is_dataclass(ToolDefinition) else _public(ToolDefinition)
    return {
        "events": set(EVENT_NAMES),
        "pi": _public(ExtensionAPI),
        "ctx": context,
        "ctx.ui": _public(ExtensionUI),  # type: ignore[type-abstract]  # a Protocol class, read not instantiated
        "tool": tool,
    }


def deliberate(path: Path = COMPATIBILITY) -> set[tuple[str, str]]:
    """``(category, Pi name)`` pairs listed as deliberate in the marked section."""
    text = path.read_text(encoding="utf-8")
    if START_MARK not in text or END_MARK not in text:
        return set()
    section = text.split(START_MARK, 1)[1].split(END_MARK, 1)[0]
    return {(m.group(1), m.group(2)) for line in section.splitlines() if (m := _DELIBERATE.match(line))}


@dataclass
class CategoryReport:
    category: str
    pi_names: list[str]
    present: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    deliberate: list[str] = field(default_factory=list)


def compare(pi: dict[str, list[str]], ours: dict[str, set[str]], allowed: set[tuple[str, str]]) -> list[CategoryReport]:
    reports = []
    for category in CATEGORIES:
        report = CategoryReport(category, pi[category])
        for name in pi[category]:
            python = name if category == "events" else python_name(name)
            if python in ours[category]:
                report.present.append(name)
            elif (category, name) in allowed:
                report.deliberate.append(name)
            else:
                report.missing.append(name)
        reports.append(report)
    return reports


def render(reports: Iterable[CategoryReport], skipped: set[str]) -> str:
    out = []
    for r in reports:
        note = " (reported only)" if r.category in skipped else ""
        out.append(
            f"{r.category:7} {len(r.present):3}/{len(r.pi_names):<3} present, "
            f"{len(r.missing)} missing, {len(r.deliberate)} deliberate{note}"
        )
        for name in r.missing:
            shown = name if r.category == "events" else f"{name} -> {python_name(name)}"
            out.append(f"  missing: {shown}")
        for name in r.deliberate:
            out.append(f"  deliberate: {name}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--types",
        type=Path,
        default=None,
        help="Pi's dist/core/extensions/types.d.ts (default: the reference install, else the recorded names)",
    )
    parser.add_argument("--compatibility", type=Path, default=COMPATIBILITY, help="where deliberate gaps are listed")
    parser.add_argument(
        "--skip-category",
        action="append",
        default=[],
        choices=CATEGORIES,
        help="report this category without failing on it (repeatable)",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--names", type=Path, help="compare with recorded names instead (default when --types does not exist)"
    )
    parser.add_argument("--write-names", type=Path, help="record the names found in --types to this file and exit")
    args = parser.parse_args(argv)
    try:
        types = args.types or Path(os.environ.get("PI_EXTENSION_TYPES", DEFAULT_TYPES))
        if args.names is not None or (args.types is None and not types.exists()):
            names_file = args.names or RECORDED_NAMES
            pi = {k: list(v) for k, v in json.loads(names_file.read_text(encoding="utf-8")).items()}
        else:
            pi = pi_surface(types.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"extension_api_surface: cannot read Pi's declarations: {exc}", file=sys.stderr)
        return 2
    if args.write_names is not None:
        args.write_names.write_text(json.dumps(pi, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        return 0
    reports = compare(pi, python_surface(), deliberate(args.compatibility))
    skipped = set(args.skip_category)
    if args.json:
        data = {
            r.category: {
                "pi": len(r.pi_names),
                "present": len(r.present),
                "missing": r.missing,
                "deliberate": r.deliberate,
            }
            for r in reports
        }
        print(json.dumps(data, indent=2))
    else:
        print(render(reports, skipped))
    failing = [r for r in reports if r.missing and r.category not in skipped]
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
