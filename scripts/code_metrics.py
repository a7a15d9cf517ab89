#!/usr/bin/env python3
"""Architecture and typing figures of ``src/pi_harness``, and the limits CI holds them to.

Prints:
- import cycles: strongly connected groups of modules in the import graph (``TYPE_CHECKING``
  imports included, since a cycle for the type checker is still a tangle for the reader);
- which modules import the ``AgentSession`` facade (its own parts must not);
- ``Any`` per 1,000 lines (``Any`` as a name in code, not in comments or strings) and the
  ``# type: ignore`` comments, each of which must say why after the code in brackets.

``--check`` exits 1 when a limit is broken: a cycle of more than 2 modules, a part of the live
session importing the facade, ``Any`` at 12 or more per 1,000 lines, 20 or more
``type: ignore`` comments, or one without a reason. Needs ``grimp`` (installed with
import-linter, a test extra).
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIR = ROOT / "src" / "pi_harness"
FACADE = "pi_harness.coding.agent_session.agent_session"
FACADE_PACKAGE = "pi_harness.coding.agent_session"
MAX_CYCLE = 2
MAX_ANY_PER_1000 = 12.0
MAX_TYPE_IGNORES = 20
# ``# type: ignore[code]`` followed by a reason: ``# type: ignore[code]  # because …``.
_IGNORE = re.compile(r"#\s*type:\s*ignore(\[[^\]]*\])?(?P<rest>.*)$")


def import_cycles() -> list[list[str]]:
    """Groups of modules that import each other in a circle, largest first (Tarjan's algorithm)."""
    import grimp

    graph = grimp.build_graph("pi_harness", exclude_type_checking_imports=False)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:
        # Iterative, so a deep import chain cannot hit the recursion limit.
        nonlocal counter
        work: list[tuple[str, list[str]]] = []
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        work.append((start, sorted(graph.find_modules_directly_imported_by(start))))
        while work:
            node, pending = work[-1]
            if pending:
                child = pending.pop()
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, sorted(graph.find_modules_directly_imported_by(child))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return sorted(groups, key=len, reverse=True)


def facade_importers() -> list[str]:
    import grimp

    graph = grimp.build_graph("pi_harness", exclude_type_checking_imports=False)
    if FACADE not in graph.modules:
        return []
    return sorted(graph.find_modules_that_directly_import(FACADE))


def typing_figures() -> tuple[int, int, list[str], list[str]]:
    """Lines of code, ``Any`` names, every ``type: ignore`` (``path:line``), those without a reason."""
    lines = names = 0
    ignores: list[str] = []
    unexplained: list[str] = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines += text.count("\n")
        where = path.relative_to(ROOT)
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NAME and token.string == "Any":
                names += 1
            elif token.type == tokenize.COMMENT and (match := _IGNORE.search(token.string)):
                ignores.append(f"{where}:{token.start[0]}")
                if not match.group("rest").strip().lstrip("#").strip():
                    unexplained.append(f"{where}:{token.start[0]}")
    return lines, names, ignores, unexplained


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="exit 1 when a limit is broken")
    args = parser.parse_args(argv)
    problems: list[str] = []

    cycles = import_cycles()
    print(f"import cycles: {len(cycles)}, largest {len(cycles[0]) if cycles else 0} modules")
    for group in cycles:
        print(f"  {len(group)}: {', '.join(group)}")
        if len(group) > MAX_CYCLE:
            problems.append(f"an import cycle of {len(group)} modules: {', '.join(group)}")

    importers = facade_importers()
    print(f"modules importing {FACADE}: {len(importers)}")
    for module in importers:
        inside = module.startswith(FACADE_PACKAGE + ".") and module != FACADE_PACKAGE
        print(f"  {module}{'  <- a part of the session' if inside else ''}")
        if inside:
            problems.append(f"{module} imports the AgentSession facade")

    lines, names, ignores, unexplained = typing_figures()
    per_1000 = names * 1000 / max(lines, 1)
    print(f"lines: {lines}; Any: {names} ({per_1000:.1f} per 1,000 lines); type: ignore: {len(ignores)}")
    for where in ignores:
        print(f"  {where}{'  <- no reason given' if where in unexplained else ''}")
    if per_1000 >= MAX_ANY_PER_1000:
        problems.append(f"Any at {per_1000:.1f} per 1,000 lines (limit {MAX_ANY_PER_1000:g})")
    if len(ignores) >= MAX_TYPE_IGNORES:
        problems.append(f"{len(ignores)} type: ignore comments (limit {MAX_TYPE_IGNORES - 1})")
    problems.extend(f"type: ignore without a reason at {where}" for where in unexplained)

    if args.check and problems:
        print("\n".join(["", "limits broken:", *(f"- {p}" for p in problems)]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
