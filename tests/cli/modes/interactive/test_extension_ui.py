"""Extension dialogs (``ctx.ui``) as overlays over the editor, answered with the keyboard."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

from .harness import run_pi

EXTENSION = """
from pathlib import Path


def extension(pi):
    @pi.on("session_start")
    async def started(event, ctx):
        ctx.ui.set_status("asker", "asker ready")

    @pi.command("ask", description="Ask before acting")
    async def ask(args, ctx):
        name, _, timeout = args.partition(" ")
        answer = await ctx.ui.confirm("Proceed?", "The extension wants to know.",
                                      timeout=float(timeout) if timeout else None)
        Path(name).write_text(str(answer))
        ctx.ui.notify(f"answered {answer}")

    @pi.command("pick", description="Choose a colour")
    async def pick(args, ctx):
        colour = await ctx.ui.select("Colour?", ["red", "green", "blue"])
        name = await ctx.ui.input("Your name?", "type it")
        Path(args).write_text(f"{colour} {name}")
"""


def _install(agent_dir: Path) -> None:
    extensions = agent_dir / "extensions"
    extensions.mkdir()
    (extensions / "asker.py").write_text(EXTENSION)


async def test_confirm_is_answered_through_the_overlay(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    _install(agent_dir)
    async with run_pi() as pi:
        await pi.started()
        await pi.wait_for(lambda: "asker ready" in pi.screen(), "the status set in session_start")
        await pi.submit("/ask yes.txt")
        await pi.wait_for(lambda: "Proceed?" in pi.screen(), "the confirm dialog")
        assert "The extension wants to know." in pi.screen()
        await pi.press("enter")  # Yes
        await pi.wait_for((project / "yes.txt").exists, "the answer")
        assert (project / "yes.txt").read_text() == "True"
        await pi.wait_for(lambda: "answered True" in pi.screen(), "the notification")

        await pi.submit("/ask no.txt")
        await pi.wait_for(lambda: "Proceed?" in pi.screen(), "the confirm dialog again")
        await pi.press("down", "enter")  # No
        await pi.wait_for((project / "no.txt").exists, "the second answer")
        assert (project / "no.txt").read_text() == "False"
        assert pi.mode.shell.editor.is_empty and not pi.mode.shell.overlays


async def test_a_timed_confirm_counts_down_and_defaults_to_no(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    _install(agent_dir)
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/ask late.txt 0.4")
        await pi.wait_for(lambda: "The extension wants to know. (1s)" in pi.screen(), "the countdown after the title")
        await pi.wait_for((project / "late.txt").exists, "the dialog timing out")
        assert (project / "late.txt").read_text() == "False"
        await pi.wait_for(lambda: "Proceed?" not in pi.screen(), "the dialog closed")


async def test_select_and_input_dialogs(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    _install(agent_dir)
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/pick choice.txt")
        await pi.wait_for(lambda: "Colour?" in pi.screen(), "the select dialog")
        await pi.press("down", "enter")
        await pi.wait_for(lambda: "Your name?" in pi.screen(), "the input dialog")
        pi.type("Ada")
        await pi.wait_for(lambda: "Ada" in pi.screen(), "the typed name")
        await pi.press("enter")
        await pi.wait_for((project / "choice.txt").exists, "the answers")
    assert (project / "choice.txt").read_text() == "green Ada"


GATE = """
from pathlib import Path


class Picker:
    def __init__(self, done):
        self.done = done

    def render(self, width):
        return ["custom picker: press enter"]

    def handle_action(self, action):
        if action == "tui.select.confirm":
            self.done("picked")
            return True
        return False


def extension(pi):
    @pi.on("session_start")
    async def started(event, ctx):
        ctx.ui.set_widget("gate", ["gate widget line"])

    @pi.on("tool_call")
    async def gate(event, ctx):
        if event.tool_name == "bash" and not await ctx.ui.confirm("Allow bash?", event.input["command"]):
            return {"block": True, "reason": "Blocked by the user"}
        return None

    @pi.command("custom")
    async def custom(args, ctx):
        Path(args).write_text(str(await ctx.ui.custom(lambda context, done: Picker(done))))

    @pi.shortcut("f5")
    async def shortcut(ctx):
        Path("shortcut.txt").write_text("pressed")

    @pi.shortcut("ctrl+c")
    async def stolen(ctx):
        Path("stolen.txt").write_text("must not happen")
"""


async def test_a_tool_call_gate_asks_during_the_run(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    extensions = agent_dir / "extensions"
    extensions.mkdir()
    (extensions / "gate.py").write_text(GATE)
    server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": "echo should-not-run > ran.txt"})]),
        ScriptedResponse(steps=[TextStep("Understood, not running it.")]),
    )
    async with run_pi() as pi:
        await pi.started()
        await pi.wait_for(lambda: "gate widget line" in pi.screen(), "the widget above the editor")
        assert pi.scrollback_has("built-in shortcut. Skipping.")
        await pi.submit("Run the command")
        await pi.wait_for(lambda: "Allow bash?" in pi.screen(), "the gate's question during the run")
        await pi.press("down", "enter")  # No
        await pi.wait_for(lambda: "Understood, not running it." in pi.scrollback(), "the answer after the block")
        assert not (project / "ran.txt").exists()
        assert "Blocked by the user" in json.dumps(server.requests[1].json)

        await pi.submit("/custom custom.txt")
        await pi.wait_for(lambda: "custom picker: press enter" in pi.screen(), "the extension's component")
        await pi.press("enter")
        await pi.wait_for((project / "custom.txt").exists, "the component's result")
        assert (project / "custom.txt").read_text() == "picked"

        pi.type("\x1b[15~")  # F5
        await pi.wait_for((project / "shortcut.txt").exists, "the extension shortcut")
        await pi.press("ctrl+c")
        assert not (project / "stolen.txt").exists()


async def test_quitting_with_a_dialog_open_answers_it_and_stops_the_run(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    extensions = agent_dir / "extensions"
    extensions.mkdir()
    (extensions / "gate.py").write_text(GATE)
    server.push(ScriptedResponse(steps=[ToolCallStep("bash", {"command": "echo ran > ran.txt"})]))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("Run the command")
        await pi.wait_for(lambda: "Allow bash?" in pi.screen(), "the gate's question")
        await asyncio.wait_for(pi.mode.quit(143), 10)  # what SIGTERM does
        assert await pi.exit_code() == 143
    assert not (project / "ran.txt").exists()


MEMBERS = """
from pathlib import Path


class Shouting:
    def __init__(self, view):
        self.view = view

    def render(self, width):
        return [line.upper() for line in self.view.render(width)]


def emoji(below):
    def provide(before):
        if before.endswith(":sm"):
            return {"prefix": ":sm", "items": [{"value": "SMILE", "label": ":smile:"}]}
        return below(before)
    return provide


def extension(pi):
    @pi.on("session_start")
    async def started(event, ctx):
        ctx.ui.add_autocomplete_provider(emoji)

    @pi.command("shout")
    async def shout(args, ctx):
        if args == "off":
            ctx.ui.set_editor_component(None)
        else:
            ctx.ui.set_editor_component(lambda context, view: Shouting(view))
        Path("editor.txt").write_text(str(ctx.ui.get_editor_component() is not None))

    @pi.command("peek-theme")
    async def peek(args, ctx):
        light, missing = ctx.ui.get_theme("light"), ctx.ui.get_theme("no-such-theme")
        Path("theme.txt").write_text(f"{light.name} {missing} {ctx.ui.theme.name}")
"""


async def test_editor_component_theme_lookup_and_autocomplete_provider(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    extensions = agent_dir / "extensions"
    extensions.mkdir()
    (extensions / "members.py").write_text(MEMBERS)
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/shout")
        await pi.wait_for((project / "editor.txt").exists, "the editor replaced")
        assert (project / "editor.txt").read_text() == "True"
        pi.type("quiet words")
        await pi.wait_for(lambda: "QUIET WORDS" in pi.screen(), "the shouting editor")
        pi.mode.shell.editor.clear()
        await pi.submit("/shout off")
        await pi.wait_for(lambda: (project / "editor.txt").read_text() == "False", "the built-in editor back")
        pi.type("quiet again")
        await pi.wait_for(lambda: "quiet again" in pi.screen(), "lower case again")

        pi.mode.shell.editor.clear()
        await pi.submit("/peek-theme")
        await pi.wait_for((project / "theme.txt").exists, "the theme lookup")
        assert (project / "theme.txt").read_text() == "light None dark"

        pi.type("say :sm")
        await pi.wait_for(lambda: ":smile:" in pi.screen(), "the extension's suggestion")
        await pi.press("tab")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "say SMILE", "the accepted suggestion")


LISTENER = """
def extension(pi):
    @pi.on("session_start")
    async def started(event, ctx):
        def listen(data):
            if data == "#":
                return {"consume": True}
            if data == "~":
                return {"data": "tilde"}
            return None

        unsubscribe = ctx.ui.on_terminal_input(listen)

        @pi.command("stop-listening")
        async def stop(args, ctx):
            unsubscribe()
"""


async def test_terminal_input_listeners_swallow_and_rewrite_keys(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    extensions = agent_dir / "extensions"
    extensions.mkdir()
    (extensions / "listener.py").write_text(LISTENER)
    async with run_pi() as pi:
        await pi.started()
        pi.type("a#b~c")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "abtildec", "the filtered typing")
        pi.mode.shell.editor.clear()
        await pi.submit("/stop-listening")
        pi.type("#~")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "#~", "unfiltered typing")


RESOLVER = """
def extension(pi):
    def title(args, context):
        return ["RUN " + args.get("command", "")]

    def resolve(name, next):
        if name == "bash":
            return {"render_call": title}
        return next()

    pi.register_tool_renderer(resolve)
"""


async def test_a_tool_renderer_resolver_draws_a_builtin_tool(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    extensions = agent_dir / "extensions"
    extensions.mkdir()
    (extensions / "resolver.py").write_text(RESOLVER)
    server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": "echo resolved"})]),
        ScriptedResponse(steps=[TextStep("Done.")]),
    )
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("run it")
        await pi.wait_for(lambda: "Done." in pi.scrollback(), "the answer")
        assert "RUN echo resolved" in pi.scrollback()
        assert "$ echo resolved" not in pi.scrollback()  # the built-in title was replaced
