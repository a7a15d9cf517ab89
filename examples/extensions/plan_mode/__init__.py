"""plan-mode: explore read-only, write a plan, then execute it with tracked progress.

Turn it on with ``--plan``, ``/plan`` or Ctrl+Alt+P. In plan mode:

* only read-only tools are active (``read, bash, grep, find, ls`` - and ``questionnaire`` if some
  extension provides it), and ``bash`` runs only allowlisted read-only commands (``readonly.py``);
  anything else is blocked with a reason telling the model how to proceed;
* every prompt carries a hidden ``plan-mode-context`` message (``display: false``) asking for a
  numbered list under a ``Plan:`` header;
* when a run ends (with a UI), the steps are extracted from the answer, shown, and you choose:
  execute the plan (progress tracked), stay in plan mode, or refine it.

While a plan executes, the full tool set is back, every prompt carries the remaining steps, the
model marks finished ones with ``[DONE:n]`` (read at each ``turn_end``), and a widget shows
☐/☑ per step. ``/todos`` lists the progress. The state is saved as ``plan-mode`` custom entries
and rebuilt from the active branch in ``session_start`` (resume, reload, fork).

What it shows: flags, commands, a shortcut, ``set_active_tools``, a ``tool_call`` gate,
``before_agent_start`` messages, a ``context`` filter that drops stale hidden messages,
``turn_end``/``agent_end`` handlers, ``send_message`` / ``send_user_message`` while a run is
finishing, ``append_entry`` persistence and status/widget UI. Without a UI (print and JSON mode)
plan mode still restricts the tools; the plan is simply the printed answer.

Load it with ``pi -e examples/extensions/plan_mode`` or copy the directory into
``~/.pi/agent/extensions/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionCommandContext, ExtensionContext
from pi_harness.coding.extensions.events import ExtensionEvent

from .readonly import is_read_only_command
from .steps import Todo, extract_steps, mark_done

PLAN_MODE_TOOLS = ["read", "bash", "grep", "find", "ls", "questionnaire"]
NORMAL_MODE_TOOLS = ["read", "bash", "edit", "write"]
ENTRY_TYPE = "plan-mode"
CONTEXT_TYPE = "plan-mode-context"
EXECUTION_TYPE = "plan-execution-context"
EXECUTE_TYPE = "plan-mode-execute"
PLAN_MARKER = "[PLAN MODE ACTIVE]"
STATUS_KEY = "plan-mode"
WIDGET_KEY = "plan-todos"

EXECUTE_TRACKED = "Execute the plan (track progress)"
EXECUTE_UNTRACKED = "Execute the plan"
STAY = "Stay in plan mode"
REFINE = "Refine the plan"

PLAN_CONTEXT = f"""{PLAN_MARKER}
Plan mode is on: investigate and plan, change nothing.

- Available tools: read, bash, grep, find, ls. Editing and writing files is switched off.
- bash accepts only read-only commands (listing, reading, searching, git status/log/diff and the
  like); anything else is refused.
- Ask the user when the goal or the constraints are unclear.

Finish with a numbered list of concrete steps under a line reading "Plan:", for example:

Plan:
1. Describe the first change
2. Describe the second change

Do not carry out any step yet."""


def blocked_reason(command: str) -> str:
    return f"Plan mode: command blocked (not allowlisted). Use /plan to disable plan mode first.\nCommand: {command}"


def execution_context(todos: list[Todo]) -> str:
    remaining = "\n".join(f"{todo.step}. {todo.text}" for todo in todos if not todo.completed)
    return (
        "[EXECUTING PLAN - all tools available]\n\n"
        f"Steps still to do:\n{remaining}\n\n"
        "Work through them in order. Whenever you finish a step, write [DONE:<step number>] in your reply."
    )


def message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


@dataclass
class PlanState:
    enabled: bool = False  # read-only planning
    executing: bool = False  # carrying out an accepted plan
    todos: list[Todo] = field(default_factory=list)
    tools_before: list[str] | None = None  # the tool set to give back when plan mode ends

    def to_data(self) -> dict[str, Any]:
        return {"enabled": self.enabled, "todos": [t.to_dict() for t in self.todos], "executing": self.executing}

    def load(self, data: Any) -> None:
        if not isinstance(data, dict):
            return
        self.enabled = bool(data.get("enabled", self.enabled))
        self.executing = bool(data.get("executing", self.executing))
        todos = [Todo.from_dict(item) for item in data.get("todos") or []]
        self.todos = [todo for todo in todos if todo is not None]


def extension(pi: ExtensionAPI) -> None:
    state = PlanState()

    pi.register_flag("plan", type="boolean", default=False, description="Start in plan mode (read-only exploration)")

    # -- helpers -------------------------------------------------------------------------------

    def persist() -> None:
        pi.append_entry(ENTRY_TYPE, state.to_data())

    def show(ctx: ExtensionContext) -> None:
        if not ctx.has_ui:
            return
        if state.executing and state.todos:
            done = sum(todo.completed for todo in state.todos)
            ctx.ui.set_status(STATUS_KEY, f"📋 {done}/{len(state.todos)}")
            ctx.ui.set_widget(WIDGET_KEY, [f"{'☑' if t.completed else '☐'} {t.text}" for t in state.todos])
        else:
            ctx.ui.set_status(STATUS_KEY, "⏸ plan" if state.enabled else None)
            ctx.ui.set_widget(WIDGET_KEY, None)

    def enter_plan_tools() -> None:
        current = pi.get_active_tools()
        if state.tools_before is None and set(current) - set(PLAN_MODE_TOOLS):  # not already the plan set
            state.tools_before = current
        pi.set_active_tools(PLAN_MODE_TOOLS)

    def restore_tools() -> None:
        pi.set_active_tools(state.tools_before or NORMAL_MODE_TOOLS)
        state.tools_before = None

    def toggle(ctx: ExtensionContext) -> None:
        state.enabled = not state.enabled
        state.executing = False
        state.todos = []
        if state.enabled:
            enter_plan_tools()
            if ctx.has_ui:
                ctx.ui.notify(f"Plan mode enabled. Tools: {', '.join(PLAN_MODE_TOOLS)}", "info")
        else:
            restore_tools()
            if ctx.has_ui:
                ctx.ui.notify("Plan mode disabled. Full access restored.", "info")
        persist()
        show(ctx)

    # -- commands and shortcut -------------------------------------------------------------------

    @pi.command("plan", description="Toggle plan mode (read-only exploration)")
    async def plan_command(args: str, ctx: ExtensionCommandContext) -> None:
        toggle(ctx)

    @pi.command("todos", description="Show the progress of the current plan")
    async def todos_command(args: str, ctx: ExtensionCommandContext) -> None:
        if not ctx.has_ui:
            return
        if not state.todos:
            ctx.ui.notify("No todos. Create a plan first with /plan", "info")
            return
        lines = [f"{t.step}. {'✓' if t.completed else '○'} {t.text}" for t in state.todos]
        ctx.ui.notify("Plan Progress:\n" + "\n".join(lines), "info")

    @pi.shortcut("ctrl+alt+p", description="Toggle plan mode")
    async def plan_shortcut(ctx: ExtensionContext) -> None:
        toggle(ctx)

    # -- restrictions and hidden context ------------------------------------------------------------

    async def gate_bash(event: ExtensionEvent, ctx: ExtensionContext) -> dict[str, Any] | None:
        if not state.enabled or event.tool_name != "bash":
            return None
        command = str(event.input.get("command", ""))
        if is_read_only_command(command):
            return None
        return {"block": True, "reason": blocked_reason(command)}

    pi.on("tool_call", gate_bash)

    async def inject_context(event: ExtensionEvent, ctx: ExtensionContext) -> dict[str, Any] | None:
        if state.enabled:
            return {"message": {"customType": CONTEXT_TYPE, "content": PLAN_CONTEXT, "display": False}}
        if state.executing and state.todos:
            content = execution_context(state.todos)
            return {"message": {"customType": EXECUTION_TYPE, "content": content, "display": False}}
        return None

    pi.on("before_agent_start", inject_context)

    async def drop_stale_context(event: ExtensionEvent, ctx: ExtensionContext) -> dict[str, Any] | None:
        """Plan instructions only while planning; only the newest progress list while executing."""
        messages: list[dict[str, Any]] = event.messages
        latest_execution = max(
            (i for i, m in enumerate(messages) if m.get("customType") == EXECUTION_TYPE), default=None
        )

        def keep(index: int, message: dict[str, Any]) -> bool:
            kind = message.get("customType")
            if kind == EXECUTION_TYPE:
                return state.executing and index == latest_execution
            if state.enabled:
                return True
            if kind == CONTEXT_TYPE:
                return False
            return not (message.get("role") == "user" and PLAN_MARKER in message_text(message))

        kept = [m for i, m in enumerate(messages) if keep(i, m)]
        return {"messages": kept} if len(kept) != len(messages) else None

    pi.on("context", drop_stale_context)

    # -- progress and the end of a run ---------------------------------------------------------------

    async def track_progress(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if not state.executing or not state.todos or event.message.get("role") != "assistant":
            return
        if mark_done(message_text(event.message), state.todos):
            show(ctx)
            persist()

    pi.on("turn_end", track_progress)

    async def after_run(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if state.executing and state.todos:
            if all(todo.completed for todo in state.todos):
                await finish_execution(ctx)
            return
        if not state.enabled or not ctx.has_ui:
            return
        answer = next((m for m in reversed(event.messages) if m.get("role") == "assistant"), None)
        if answer is not None:
            steps = extract_steps(message_text(answer))
            if steps:
                state.todos = steps
        await ask_what_next(ctx)

    pi.on("agent_end", after_run)

    async def finish_execution(ctx: ExtensionContext) -> None:
        finished = "\n".join(f"~~{todo.text}~~" for todo in state.todos)
        await pi.send_message({"customType": "plan-complete", "content": f"**Plan Complete!** ✓\n\n{finished}"})
        state.executing = False
        state.todos = []
        restore_tools()
        persist()
        show(ctx)

    async def ask_what_next(ctx: ExtensionContext) -> None:
        if state.todos:
            listing = "\n".join(f"{t.step}. ☐ {t.text}" for t in state.todos)
            await pi.send_message(
                {
                    "customType": "plan-todo-list",
                    "content": f"**Plan Steps ({len(state.todos)}):**\n\n{listing}",
                    "display": True,
                }
            )
        execute = EXECUTE_TRACKED if state.todos else EXECUTE_UNTRACKED
        choice = await ctx.ui.select("Plan mode - what next?", [execute, STAY, REFINE])
        if choice == execute:
            state.enabled = False
            state.executing = bool(state.todos)
            restore_tools()
            persist()
            show(ctx)
            if state.todos:  # the run goes on without a new prompt, so send the progress rules now
                await pi.send_message(
                    {"customType": EXECUTION_TYPE, "content": execution_context(state.todos), "display": False}
                )
            start = f"Execute the plan. Start with: {state.todos[0].text}" if state.todos else "Execute the plan."
            await pi.send_message({"customType": EXECUTE_TYPE, "content": start, "display": True}, trigger_turn=True)
        elif choice == REFINE:
            refinement = await ctx.ui.editor("Refine the plan:", "")
            if refinement and refinement.strip():
                await pi.send_user_message(refinement.strip(), deliver_as="followUp")
        else:
            persist()  # staying: remember the extracted steps

    # -- restoring -------------------------------------------------------------------------------------

    async def restore(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        branch: list[dict[str, Any]] = ctx.session_manager.get_branch()
        saved = [e for e in branch if e.get("type") == "custom" and e.get("customType") == ENTRY_TYPE]
        if saved:
            state.load(saved[-1].get("data"))
        if pi.get_flag("plan") is True and event.get("reason", "startup") == "startup":
            state.enabled, state.executing = True, False  # --plan wins at startup; later the saved state does
        if saved and state.executing and state.todos:
            # Progress reported after the plan started but not yet saved (e.g. a crash mid-run).
            start = max((i for i, e in enumerate(branch) if e.get("customType") == EXECUTE_TYPE), default=-1)
            for entry in branch[start + 1 :]:
                if entry.get("type") == "message" and entry["message"].get("role") == "assistant":
                    mark_done(message_text(entry["message"]), state.todos)
        if state.enabled:
            enter_plan_tools()
        show(ctx)

    pi.on("session_start", restore)
