"""The line diff shown for an edit.

Lines: removed ``-<old number> <text>``, added ``+<new number> <text>``, context
`` <old number> <text>``; four context lines around each change; longer unchanged runs are
elided as `` <padding> ...``; numbers are right-aligned to the width of the larger line count.
"""

from __future__ import annotations

import difflib
from typing import TypedDict

CONTEXT_LINES = 4


class EditDiff(TypedDict):
    diff: str
    firstChangedLine: int | None


def _opcodes(old: list[str], new: list[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib opcodes, computed only over the part between the common prefix and suffix."""
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    middle_old = old[prefix : len(old) - suffix]
    middle_new = new[prefix : len(new) - suffix]
    codes: list[tuple[str, int, int, int, int]] = []
    if prefix:
        codes.append(("equal", 0, prefix, 0, prefix))
    matcher = difflib.SequenceMatcher(None, middle_old, middle_new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        codes.append((tag, i1 + prefix, i2 + prefix, j1 + prefix, j2 + prefix))
    if suffix:
        codes.append(("equal", len(old) - suffix, len(old), len(new) - suffix, len(new)))
    return codes


def generate_diff(old_text: str, new_text: str, context: int = CONTEXT_LINES) -> EditDiff:
    old = old_text.split("\n")
    new = new_text.split("\n")
    width = len(str(max(len(old), len(new))))
    if old_text.endswith("\n") and new_text.endswith("\n"):
        # The empty "line" after a final newline is not a line of the file.
        old.pop()
        new.pop()
    skip = f" {'':>{width}} ..."
    codes = _opcodes(old, new)
    out: list[str] = []
    first_changed: int | None = None

    def context_line(index: int) -> str:
        return f" {index + 1:>{width}} {old[index]}"

    for position, (tag, i1, i2, j1, j2) in enumerate(codes):
        if tag == "equal":
            is_first, is_last = position == 0, position == len(codes) - 1
            if is_first and is_last:
                continue
            run = list(range(i1, i2))
            if is_first:
                if len(run) > context:
                    out.append(skip)
                out += [context_line(i) for i in run[len(run) - context :]]
            elif is_last:
                out += [context_line(i) for i in run[:context]]
                if len(run) > context:
                    out.append(skip)
            elif len(run) <= 2 * context:
                out += [context_line(i) for i in run]
            else:
                out += [context_line(i) for i in run[:context]]
                out.append(skip)
                out += [context_line(i) for i in run[len(run) - context :]]
            continue
        if first_changed is None:
            first_changed = j1 + 1
        out += [f"-{i + 1:>{width}} {old[i]}" for i in range(i1, i2)]
        out += [f"+{j + 1:>{width}} {new[j]}" for j in range(j1, j2)]
    return {"diff": "\n".join(out), "firstChangedLine": first_changed}
