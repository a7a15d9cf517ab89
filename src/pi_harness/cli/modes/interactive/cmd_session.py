"""Slash commands that move through or replace the conversation (``docs/sessions.md``).

``/tree`` moves the leaf inside the session file, optionally summarising the branch left
behind (no summary, a summary, or a summary with extra focus); ``/fork``
starts a new session before an earlier user message of any branch; ``/clone`` copies the active branch;
``/resume`` and ``/new`` switch sessions. The screen follows through the controller's
``session_replaced``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from pi_harness.cli.modes.interactive.builtin import Builtin
from pi_harness.cli.modes.interactive.clipboard import copy_tree_entry
from pi_harness.cli.modes.interactive.session_browser import SessionBrowser
from pi_harness.cli.modes.interactive.shell import Overlay
from pi_harness.coding.session_store.tree import SessionTreeNode
from pi_harness.tui.components.fork_selector import ForkSelector
from pi_harness.tui.components.tree_selector import TreeSelector

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext

NO_SUMMARY = "No summary"
SUMMARIZE = "Summarize the branch"
SUMMARIZE_WITH = "Summarize with custom instructions"
SUMMARY_QUESTION = "Summarize the branch you are leaving?"


def _cancelled(mode: ModeContext, result: Mapping[str, object], what: str) -> bool:
    """Whether an extension's ``session_before_*`` handler cancelled the replacement (it says so)."""
    if result.get("cancelled"):
        mode.shell.notice("warning", f"An extension cancelled {what}")
        return True
    return False


async def new_session(mode: ModeContext, args: str) -> None:
    if not _cancelled(mode, await mode.runtime.new_session(), "the new session"):
        mode.shell.notice("success", "Started a new session")


async def resume(mode: ModeContext, args: str) -> None:
    session = mode.session
    manager = session.session_manager
    current = manager.get_session_file()
    browser = SessionBrowser(
        mode.shell,
        cwd=session.cwd,
        session_dir=manager.get_session_dir() or None,
        current_path=str(current) if current is not None else None,
        rename_current=mode.session.set_session_name,
    )
    info = await browser.choose()
    if info is None:
        return
    if current is not None and str(info.path) == str(current):
        mode.shell.toast("This session is already open")
        return
    if not _cancelled(mode, await mode.runtime.switch_session(str(info.path)), "switching sessions"):
        mode.shell.notice("success", f"Resumed {info.name or info.id}")


async def fork(mode: ModeContext, args: str) -> None:
    """``/fork``: the user messages of every branch (Pi's list), the newest selected."""
    candidates = mode.session.get_fork_messages()
    shell = mode.shell
    if not candidates:
        shell.notice("warning", "There is no user message to fork from")
        return
    messages = [(item["entryId"], item["text"]) for item in candidates]
    active = {entry["id"] for entry in mode.session.session_manager.get_branch()}
    context = shell.context

    def build(done: Callable[[str | None], None]) -> Overlay:
        return ForkSelector(messages, context, active_ids=active, on_select=done, on_cancel=lambda: done(None))

    entry_id = await shell.ask(build)
    if entry_id is None:
        return
    result = await mode.runtime.fork(entry_id)
    if _cancelled(mode, result, "the fork"):
        return
    shell.editor.set_text(str(result.get("text") or ""))
    shell.notice("success", "Forked into a new session; the message is back in the editor")


async def clone(mode: ModeContext, args: str) -> None:
    if mode.session.session_manager.get_leaf_id() is None:
        mode.shell.notice("info", "Nothing to clone yet")
        return
    try:
        result = await mode.runtime.clone()
    except ValueError as error:  # e.g. nothing saved yet
        mode.shell.notice("error", str(error))
        return
    if not _cancelled(mode, result, "the clone"):
        mode.shell.notice("success", "Cloned the conversation into a new session")


async def name(mode: ModeContext, args: str) -> None:
    shell = mode.shell
    if not args.strip():
        current = mode.session.session_manager.get_session_name()
        shell.notice("info", f"Session name: {current}" if current else "Usage: /name <name>")
        return
    mode.session.set_session_name(args.strip())
    shell.notice("success", f"Session named {args.strip()}")


# --- /tree ---------------------------------------------------------------------------------------


def _find(roots: list[SessionTreeNode], entry_id: str) -> SessionTreeNode | None:
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node.entry["id"] == entry_id:
            return node
        stack.extend(node.children)
    return None


async def _edit_label(mode: ModeContext, selector: TreeSelector, entry_id: str) -> None:
    shell = mode.shell
    node = _find(selector.roots, entry_id)
    label = await shell.ask_input("Label (empty to remove)", prefill=node.label if node else None)
    if label is None:
        return
    session = mode.session
    session.session_manager.append_label(entry_id, label.strip() or None)
    if node is not None:
        node.label = label.strip() or None
        node.label_timestamp = None
    selector.refresh()  # redraw the rows with the new label


def _spawn_label_edit(mode: ModeContext, selector: TreeSelector, entry_id: str) -> None:
    mode.spawn(_edit_label(mode, selector, entry_id))


def _leaves_something_behind(mode: ModeContext, target_id: str) -> bool:
    manager = mode.session.session_manager
    leaf = manager.get_leaf_id()
    return leaf is not None and leaf not in {entry["id"] for entry in manager.get_branch(target_id)}


async def _summary_choice(mode: ModeContext) -> tuple[bool, str | None] | None:
    """(summarize, instructions), or None when the user backed out."""
    shell = mode.shell
    choice = await shell.ask_select(SUMMARY_QUESTION, [NO_SUMMARY, SUMMARIZE, SUMMARIZE_WITH])
    if choice is None:
        return None
    if choice != SUMMARIZE_WITH:
        return choice == SUMMARIZE, None
    focus = await shell.ask_input("What should the summary focus on?", multiline=True)
    return (True, focus.strip() or None) if focus is not None else None


def _spawn_copy(mode: ModeContext, text: str | None) -> None:
    mode.spawn(copy_tree_entry(mode, text))


async def tree(mode: ModeContext, args: str) -> None:
    shell = mode.shell
    manager = mode.session.session_manager
    roots = manager.get_tree()
    if not roots:
        shell.notice("info", "The conversation is empty")
        return
    context = shell.context
    holder: list[TreeSelector] = []

    def build(done: Callable[[str | None], None]) -> Overlay:
        selector = TreeSelector(
            roots, context, leaf_id=manager.get_leaf_id(), filter_mode=mode.tree_filter_mode,
            on_select=done, on_cancel=lambda: done(None),
            on_edit_label=lambda entry_id: _spawn_label_edit(mode, holder[0], entry_id),
            on_copy=lambda text: _spawn_copy(mode, text),
        )  # fmt: skip
        holder.append(selector)
        return selector

    target = await shell.ask(build)
    if target is None:
        return
    if target == manager.get_leaf_id():
        shell.toast("Already at this point of the conversation")
        return
    summarize, instructions = False, None
    skip_prompt = mode.session.settings.values.branch_summary.skip_prompt
    if not skip_prompt and _leaves_something_behind(mode, target):
        answer = await _summary_choice(mode)
        if answer is None:
            return
        summarize, instructions = answer
    await navigate(mode, target, summarize=summarize, instructions=instructions)


async def navigate(mode: ModeContext, target: str, *, summarize: bool, instructions: str | None) -> None:
    shell = mode.shell
    session = mode.session
    if summarize:
        mode.navigating = True
        shell.working.message = "Summarizing the branch…"
        shell.pane.show_working = True
        shell.refresh()
    try:
        result = await session.navigate_tree(target, summarize=summarize, custom_instructions=instructions)
    finally:
        mode.navigating = False
        shell.working.message = None
        shell.pane.show_working = False
    if result.get("cancelled"):
        shell.notice("warning", "Navigation cancelled")
        return
    mode.controller.show_conversation(session)
    editor_text = result.get("editorText")
    if isinstance(editor_text, str):
        shell.editor.set_text(editor_text)
    shell.refresh()


COMMANDS = [
    Builtin("tree", "Go to another point of the conversation", tree, idle_only=True),
    Builtin("fork", "Start a new session from an earlier message", fork, idle_only=True),
    Builtin("clone", "Copy the conversation into a new session", clone, idle_only=True),
    Builtin("resume", "Open another session", resume, idle_only=True),
    Builtin("new", "Start a new session", new_session, idle_only=True),
    Builtin("name", "Name this session", name),
]
