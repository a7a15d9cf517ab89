"""A shortest line-by-line edit script between two texts, for the edit tool's diff and patch.

Lines are compared whole, newline included, so a last line that gains or loses its newline
counts as changed. The script is a shortest one (Myers' greedy algorithm); where there are several,
it is the one the ``diff`` library behind Pi's edit tool picks, so that both programs show the
same diff and write the same patch for the same edit.
"""

from __future__ import annotations


def lines_with_ends(text: str) -> list[str]:
    """The lines of ``text`` with their newline (LF only); a last line without one stays without."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


# One run of a line script: ("=", "-" or "+", how many lines), linked to the run before it.
_Run = tuple[str, int, "_Run | None"]


def _extend(run: _Run | None, op: str, count: int = 1) -> _Run:
    if run is not None and run[0] == op:
        return (op, run[1] + count, run[2])
    return (op, count, run)


# The search costs about (lines changed) x (lines of both texts); beyond this many steps (well
# under a second) a coarser script is used, so that rewriting a large file stays quick.
MAX_SEARCH = 1_000_000


def _coarse_script(old: list[str], new: list[str]) -> list[tuple[str, int]]:
    """The common first and last lines kept, everything between them replaced."""
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    runs = [("=", prefix), ("-", len(old) - prefix - suffix), ("+", len(new) - prefix - suffix), ("=", suffix)]
    return [(op, count) for op, count in runs if count]


def line_script(old: list[str], new: list[str]) -> list[tuple[str, int]]:
    """A shortest edit script from ``old`` to ``new`` (Myers' greedy search over the diagonals
    ``k = x - y`` of the edit graph, ``x`` lines of ``old`` and ``y`` of ``new`` consumed).

    Where several shortest scripts exist the one chosen is the one the ``diff`` library of
    Pi's edit tool chooses: a diagonal is entered from the neighbour that got further into
    ``old``, by a deletion when both got equally far, so patches agree line for line. A change
    too large to search within ``MAX_SEARCH`` steps gets ``_coarse_script`` instead.
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
        visits = 0
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
            visits += min(high, d) - max(low, -d) + 1
            if visits > MAX_SEARCH:
                return _coarse_script(old, new)
    script: list[tuple[str, int]] = []
    while found is not None:
        script.append((found[0], found[1]))
        found = found[2]
    return script[::-1]
