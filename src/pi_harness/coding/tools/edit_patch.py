"""The unified patch of an edit (the result's ``details.patch``), in the form of Pi's edit tool.

Hunks, headers and the ``\\ No newline at end of file`` marker are those of the ``diff`` library's
unified patches; the line script comes from ``line_script``.
"""

from __future__ import annotations

from pi_harness.coding.tools.line_script import line_script, lines_with_ends

CONTEXT_LINES = 4


def _hunk_range(start: int, count: int) -> str:
    # A hunk that covers no line of a side names the line before it (0 at the top of the file).
    return f"{start - 1 if count == 0 else start},{count}"


def generate_unified_patch(path: str, old_text: str, new_text: str, context: int = CONTEXT_LINES) -> str:
    """A unified diff of one file: ``--- path`` / ``+++ path`` headers, then ``@@ -a,b +c,d @@``
    hunks with ``context`` lines around each change (changes closer than twice that share a hunk).

    Lines are compared with their newline, so a last line that gains or loses one counts as
    changed, and such a line is followed by ``\\ No newline at end of file``. Counts are always
    written (``-3,1``), and the patch ends with a newline.
    """
    old = lines_with_ends(old_text)
    new = lines_with_ends(new_text)
    out = [f"--- {path}", f"+++ {path}"]
    hunk: list[str] = []
    hunk_old = hunk_new = 0  # where the open hunk starts (0-based), when ``hunk`` is not empty
    x = y = 0
    script = line_script(old, new)

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
