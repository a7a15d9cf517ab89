"""The line diff shown for an edit (the result's ``details.diff``), in the form of Pi's edit tool.

Lines: removed ``-<old number> <text>``, added ``+<new number> <text>``, context
`` <old number> <text>``. Up to four unchanged lines are shown after a change and before the next
one; an unchanged run between two changes is shown whole when it has at most eight lines, else
its ends are. Elided lines are one `` <padding> ...`` line. Numbers are right-aligned to the width
of the larger count of newline-separated pieces of the two texts.
"""

from __future__ import annotations

from typing import TypedDict

from pi_harness.coding.tools.line_script import line_script, lines_with_ends

CONTEXT_LINES = 4


class EditDiff(TypedDict):
    diff: str
    firstChangedLine: int | None


def generate_diff(old_text: str, new_text: str, context: int = CONTEXT_LINES) -> EditDiff:
    old = lines_with_ends(old_text)
    new = lines_with_ends(new_text)
    width = len(str(max(old_text.count("\n"), new_text.count("\n")) + 1))
    skip = f" {'':>{width}} ..."
    script = line_script(old, new)
    out: list[str] = []
    first_changed: int | None = None
    old_number = new_number = 1  # of the next line of each text
    x = y = 0  # lines of each text consumed

    def shown(number: int, line: str, mark: str = " ") -> str:
        return f"{mark}{number:>{width}} {line.removesuffix(chr(10))}"

    for position, (op, count) in enumerate(script):
        if op == "-":
            first_changed = new_number if first_changed is None else first_changed
            out += [shown(old_number + i, line, "-") for i, line in enumerate(old[x : x + count])]
            old_number, x = old_number + count, x + count
            continue
        if op == "+":
            first_changed = new_number if first_changed is None else first_changed
            out += [shown(new_number + i, line, "+") for i, line in enumerate(new[y : y + count])]
            new_number, y = new_number + count, y + count
            continue
        after_change = position > 0
        before_change = position < len(script) - 1
        run = old[x : x + count]
        if after_change and before_change and count > 2 * context:
            head, tail = run[:context], run[count - context :]
        elif after_change and before_change:
            head, tail = run, []
        elif after_change:
            head, tail = run[:context], []
        elif before_change:
            head, tail = [], run[max(0, count - context) :]
        else:
            head, tail = [], []
        out += [shown(old_number + i, line) for i, line in enumerate(head)]
        if len(head) + len(tail) < count and (after_change or before_change):
            out.append(skip)
        tail_start = old_number + count - len(tail)
        out += [shown(tail_start + i, line) for i, line in enumerate(tail)]
        old_number, new_number = old_number + count, new_number + count
        x, y = x + count, y + count
    return {"diff": "\n".join(out), "firstChangedLine": first_changed}
