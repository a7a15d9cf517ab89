"""git-merge-and-resolve: keep the branch merged with its upstream, and have the model fix conflicts.

After every run of the agent, in a git repository whose branch tracks an upstream (``@{u}``):

* with a clean working tree, the extension fetches the upstream's remote and merges the upstream
  (``git merge --no-ff``); a clean merge needs nothing more;
* when the merge stops with conflicts, the working tree is left as git left it and the model gets a
  follow-up message listing every conflict block: file, line range, and the lines of "ours" and
  "theirs", followed by the request to resolve them;
* when a merge is already in progress (``MERGE_HEAD`` exists) with conflict markers still in the
  files, that list is sent again, so an unfinished resolution is picked up.

The same list is not sent twice in a row without you writing something in between: a model that
cannot resolve the conflicts does not loop forever. With a dirty tree (your own uncommitted work),
no upstream, or outside a repository it does nothing. A failed fetch is reported as a warning.

What it shows: ``agent_end`` with ``pi.exec`` for git, and ``pi.send_user_message(...,
deliver_as="followUp")`` to give the agent more work when it would otherwise stop.

Load it with ``pi -e examples/extensions/git_merge_and_resolve.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ExtensionEvent


@dataclass(frozen=True)
class Conflict:
    file: str
    start: int  # the <<<<<<< line
    middle: int  # the ======= line
    end: int  # the >>>>>>> line


def conflicts_in(file: str, text: str) -> list[Conflict]:
    found: list[Conflict] = []
    start: int | None = None
    middle: int | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("<<<<<<<"):
            start, middle = number, None
        elif line.startswith("=======") and start is not None:
            middle = number
        elif line.startswith(">>>>>>>") and start is not None and middle is not None:
            found.append(Conflict(file, start, middle, number))
            start = middle = None
    return found


def line_range(first: int, last: int) -> str:
    if first > last:
        return "empty"
    return str(first) if first == last else f"{first}-{last}"


def conflict_report(ref: str, conflicts: list[Conflict]) -> str:
    lines = [f"Merging {ref} left conflicts:", ""]
    for c in conflicts:
        ours, theirs = line_range(c.start + 1, c.middle - 1), line_range(c.middle + 1, c.end - 1)
        lines.append(f"  {c.file}:{c.start}-{c.end} (ours: lines {ours}, theirs: lines {theirs})")
    lines += ["", "Resolve each conflict, remove the markers and finish the merge with git commit."]
    return "\n".join(lines)


def extension(pi: ExtensionAPI) -> None:
    last_sent: list[list[Conflict]] = [[]]  # the conflicts reported since the user last wrote something

    @pi.on("input")
    def user_wrote(event: ExtensionEvent) -> None:
        if event.source != "extension":
            last_sent[0] = []

    async def git(*args: str) -> tuple[int, str, str]:
        result = await pi.exec("git", list(args))
        return result["code"], result["stdout"], result["stderr"]

    async def unresolved(cwd: str) -> list[Conflict]:
        code, stdout, _ = await git("diff", "--name-only", "--diff-filter=U")
        if code != 0:
            return []
        found: list[Conflict] = []
        for name in stdout.splitlines():
            try:
                found += conflicts_in(name, (Path(cwd) / name).read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue  # deleted on one side: nothing to point at
        return found

    @pi.on("agent_end")
    async def merge_upstream(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if (await git("rev-parse", "--git-dir"))[0] != 0:
            return
        ref = "MERGE_HEAD"
        if (await git("rev-parse", "-q", "--verify", "MERGE_HEAD"))[0] != 0:
            if (await git("status", "--porcelain"))[1].strip():
                return  # never merge into uncommitted work
            code, upstream, _ = await git("rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}")
            if code != 0:
                return
            ref = upstream.strip()
            remote = ref.split("/", 1)[0]
            ctx.ui.notify(f"git-merge-and-resolve: fetching {remote} and merging {ref}")
            code, _, stderr = await git("fetch", remote)
            if code != 0:
                ctx.ui.notify(f"git-merge-and-resolve: fetch failed: {stderr.strip()}", "warning")
                return
            if (await git("merge", "--no-ff", "--no-edit", ref))[0] == 0:
                return
        conflicts = await unresolved(ctx.cwd)
        if conflicts and conflicts != last_sent[0]:
            last_sent[0] = conflicts
            await pi.send_user_message(conflict_report(ref, conflicts), deliver_as="followUp")
