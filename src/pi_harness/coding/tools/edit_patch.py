"""The unified patch of an edit (the result's ``details.patch``), in the form of Pi's edit tool.

Lines are compared whole, newline included; the edit script is a shortest one, and where there
are several the same one as Pi's picks, so both programs write the same patch for the same edit.
"""

from __future__ import annotations

CONTEXT_LINES = 4


def _lines_with_ends(text: str) -> list[str]:
    """The lines of ``text`` with their newline (LF only); a last line without one stays without."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _hunk_range(start: int, count: int) -> str:
    # A hunk that covers no line of a side names the line before it (0 at the top of the file).
    return f"{start - 1 if count == 0 else start},{count}"


# One run of a line script: ("=", "-" or "+", how many lines), linked to the run before it.
_Run = tuple[str, int, "_Run | None"]


def _extend(run: _Run | None, op: str, count: int = 1) -> _Run:
    if run is not None and run[0] == op:
        return (op, run[1] + count, run[2])
    return (op, count, run)


def _line_script(old: list[str], new: list[str]) -> list[tuple[str, int]]:
    """A shortest edit script from ``old`` to ``new`` (Myers' greedy search over the diagonals
    ``k = x - y`` of the edit graph, ``x`` lines of ``old`` and ``y`` of ``new`` consumed).

    Where several shortest scripts exist the one chosen is the one the ``diff`` library of
    Pi's edit tool chooses: a diagonal is entered from the neighbour that got further into
    ``old``, by a deletion when both got equally far, so patches agree line for line.
    """
    n, m = len(old), len(new)

    def slide(x: int, k: int, run: _Run | None) -> tuple[int, _Run | None]:
        start = x
        while x < n and x - k < m and old[x] == new[x - k]:
            x += 1
        return x, (_extend(run, "=", x - start) if x > start else run)

    x0, run0 = slide(0, 0, None)
    frontier: dict[int, tuple[int, _Run | None]] = {0: (x0, run0)}
    found: _Run | None = run0
    if not (x0 >= n and x0 >= m):
        found = None
        low, high = -(n + m), n + m  # diagonals still worth extending
        for d in range(1, n + m + 1):
            for k in range(max(low, -d), min(high, d) + 1, 2):
                from_left = frontier.pop(k - 1, None)  # one more line of old: a deletion
                from_above = frontier.get(k + 1)  # one more line of new: an insertion
                if from_left is not None and from_left[0] >= n:
                    from_left = None  # it is at the end of old already
                if from_above is not None and not 0 < from_above[0] - k <= m:
                    from_above = None  # it is at the end of new already
                step: tuple[int, _Run | None]
                if from_above is not None and (from_left is None or from_left[0] < from_above[0]):
                    step = from_above[0], _extend(from_above[1], "+")
                elif from_left is not None:
                    step = from_left[0] + 1, _extend(from_left[1], "-")
                else:
                    frontier.pop(k, None)
                    continue
                x, run = slide(step[0], k, step[1])
                if x >= n and x - k >= m:
                    found = run
                    break
                frontier[k] = (x, run)
                if x >= n:
                    high = min(high, k - 1)
                if x - k >= m:
                    low = max(low, k + 1)
            if found is not None:
                break
    script: list[tuple[str, int]] = []
    while found is not None:
        script.append((found[0], found[1]))
        found = found[2]
    return script[::-1]


def generate_unified_patch(path: str, old_text: str, new_text: str, context: int = CONTEXT_LINES) -> str:
    """A unified diff of one file: ``--- path`` / ``+++ path`` headers, then ``@@ -a,b +c,d @@``
    hunks with ``context`` lines around each change (changes closer than twice that share a hunk).

    Lines are compared with their newline, so a last line that gains or loses one counts as
    changed, and such a line is followed by ``\\ No newline at end of file``. Counts are always
    written (``-3,1``), and the patch ends with a newline.
    """
    old = _lines_with_ends(old_text)
    new = _lines_with_ends(new_text)
    out = [f"--- {path}", f"+++ {path}"]
    hunk: list[str] = []
    hunk_old = hunk_new = 0  # where the open hunk starts (0-based), when ``hunk`` is not empty
    x = y = 0
    script = _line_script(old, new)

    def close(lines_after: int) -> None:
        nonlocal hunk
        hunk += [" " + line for line in old[x : x + lines_after]]
        old_count = x + lines_after - hunk_old
        new_count = y + lines_after - hunk_new
        out.append(f"@@ -{_hunk_range(hunk_old + 1, old_count)} +{_hunk_range(hunk_new + 1, new_count)} @@")
        for line in hunk:
            if line.endswith("\n"):
                out.append(line[:-1])
            else:
                out.extend((line, "\\ No newline at end of file"))
        hunk = []

    for position, (op, count) in enumerate(script):
        if op == "=":
            if hunk:
                if count <= 2 * context and position < len(script) - 1:
                    hunk += [" " + line for line in old[x : x + count]]
                else:
                    close(min(count, context))
            x += count
            y += count
            continue
        if not hunk:
            lead = min(context, x, y)
            hunk_old, hunk_new = x - lead, y - lead
            hunk = [" " + line for line in old[x - lead : x]]
        if op == "-":
            hunk += ["-" + line for line in old[x : x + count]]
            x += count
        else:
            hunk += ["+" + line for line in new[y : y + count]]
            y += count
    if hunk:
        close(0)
    return "\n".join(out) + "\n"
