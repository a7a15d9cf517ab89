from __future__ import annotations

from typing import Any

from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.tool_call import ToolCallView

from .conftest import assert_fits, plain

DIFF = "\n".join([" 1 import os", "-2 x = 1", "+2 x = 2", " 3 print(x)"])


def done(view: ToolCallView, text: str, *, error: bool = False, details: Any = None, ms: int | None = None) -> None:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if details is not None:
        result["details"] = details
    view.finish(result, error, ms)


def body(view: ToolCallView, width: int = 60) -> list[str]:
    lines = view.render(width)
    assert_fits(lines, width)
    return [line.strip() for line in plain(lines).split("\n") if line.strip()]


def test_bash_shows_the_command_and_the_tail_of_the_output(context: RenderContext) -> None:
    context.clock = lambda: 100.0
    view = ToolCallView("c1", "bash", {"command": "make test", "timeout": 30}, context)
    assert body(view) == ["$ make test (timeout 30s)"]
    view.update({"content": [{"type": "text", "text": "compiling"}]})
    assert body(view)[-2:] == ["compiling", "Elapsed 0.0s"]
    done(view, "\n".join(f"out {n}" for n in range(1, 21)), ms=2500)
    assert body(view) == ["$ make test (timeout 30s)", "… (15 earlier lines, ctrl+o to expand)",
                          "out 16", "out 17", "out 18", "out 19", "out 20", "Took 2.5s"]  # fmt: skip
    context.set_expand_tools(True)
    assert len(body(view)) == 22


def test_background_follows_the_state(context: RenderContext) -> None:
    theme = context.theme
    view = ToolCallView("c1", "bash", {"command": "false"}, context)
    assert view.render(40)[0].startswith(theme.bg_code("toolPendingBg"))
    done(view, "Command exited with code 1", error=True)
    assert view.render(40)[0].startswith(theme.bg_code("toolErrorBg"))
    ok = ToolCallView("c2", "bash", {"command": "true"}, context)
    done(ok, "(no output)")
    assert ok.render(40)[0].startswith(theme.bg_code("toolSuccessBg"))


def test_a_collapsed_read_shows_its_title_and_an_expanded_one_the_file(context: RenderContext) -> None:
    view = ToolCallView("c1", "read", {"path": "/work/project/app.py", "offset": 10, "limit": 20}, context)
    assert body(view) == ["read ~/project/app.py:10-29"]
    done(view, "\n".join(f"x = {n}" for n in range(20)) + "\n\n")
    assert body(view) == ["read ~/project/app.py:10-29"]  # as Pi: the content is for the model
    context.set_expand_tools(True)
    lines = body(view)
    assert lines[1:3] == ["x = 0", "x = 1"] and lines[-1] == "x = 19" and len(lines) == 21
    assert context.theme.fg_code("syntaxNumber") in "".join(view.render(60))  # highlighted as Python
    context.set_expand_tools(False)
    failed = ToolCallView("c2", "read", {"path": "missing.txt"}, context)
    done(failed, "File not found: missing.txt", error=True)
    assert body(failed) == ["read missing.txt", "File not found: missing.txt"]  # errors always show
    assert context.theme.fg_code("error") in "".join(failed.render(60))


def test_reads_of_skills_context_files_and_our_docs_get_compact_titles(context: RenderContext) -> None:
    from pi_harness.coding.system_prompt import default_docs_dir

    context.cwd = "/work/project"
    skill = ToolCallView("s", "read", {"path": "/home/dev/.pi/agent/skills/pdf-tools/SKILL.md"}, context)
    assert body(skill) == ["[skill] pdf-tools (ctrl+o to expand)"]
    assert context.theme.fg_code("customMessageLabel") in "".join(skill.render(60))
    agents = ToolCallView("a", "read", {"path": "docs/AGENTS.md", "offset": 5}, context)
    assert body(agents) == ["read resource docs/AGENTS.md:5 (ctrl+o to expand)"]
    outside = ToolCallView("o", "read", {"path": "/etc/CLAUDE.md"}, context)
    assert body(outside) == ["read resource /etc/CLAUDE.md (ctrl+o to expand)"]
    docs = default_docs_dir()
    readme = ToolCallView("r", "read", {"path": str(docs / "README.md")}, context)
    assert body(readme) == ["read docs README.md (ctrl+o to expand)"]
    sdk = ToolCallView("d", "read", {"path": str(docs / "sdk.md")}, context)
    assert body(sdk) == ["read docs docs/sdk.md (ctrl+o to expand)"]
    plain_file = ToolCallView("p", "read", {"path": "notes/README.md"}, context)
    assert body(plain_file) == ["read notes/README.md"]
    context.set_expand_tools(True)  # expanded, every read is titled with its path
    skill.touch()
    assert body(skill) == [f"read {context.short_path('/home/dev/.pi/agent/skills/pdf-tools/SKILL.md')}"]


def test_edit_shows_a_coloured_diff(context: RenderContext) -> None:
    theme = context.theme
    view = ToolCallView("c1", "edit", {"path": "app.py", "edits": [{"oldText": "x = 1", "newText": "x = 2"}]}, context)
    view.set_preview_diff(DIFF)
    assert body(view)[1:] == ["1 import os", "-2 x = 1", "+2 x = 2", "3 print(x)"]
    done(view, "Successfully replaced text in app.py.", details={"diff": DIFF, "firstChangedLine": 2})
    lines = view.render(60)
    assert body(view)[0] == "edit app.py:2"
    removed = next(line for line in lines if "-2 x = 1" in line)
    added = next(line for line in lines if "+2 x = 2" in line)
    assert theme.fg_code("toolDiffRemoved") + "-2 x = 1" in removed
    assert theme.fg_code("toolDiffAdded") + "+2 x = 2" in added
    failed = ToolCallView("c2", "edit", {"path": "app.py"}, context)
    done(failed, "Could not find the exact text in app.py.", error=True)
    assert body(failed)[-1] == "Could not find the exact text in app.py."


def test_write_shows_the_content(context: RenderContext) -> None:
    content = "".join(f"line {n}\n" for n in range(12))
    view = ToolCallView("c1", "write", {"path": "notes.md", "content": content}, context)
    lines = body(view)
    assert lines[0] == "write notes.md (12 lines)"
    assert lines[1] == "line 0" and lines[-1] == "… (2 more lines, ctrl+o to expand)"
    done(view, "Successfully wrote 84 bytes to notes.md")
    assert body(view)[0] == "write notes.md (12 lines)"


def test_search_tools_titles(context: RenderContext) -> None:
    grep = ToolCallView("c1", "grep", {"pattern": "TODO", "path": "src", "glob": "*.py", "ignoreCase": True}, context)
    done(grep, "app.py:3: # TODO")
    assert body(grep) == ["grep /TODO/ in src (glob *.py, ignoreCase)", "app.py:3: # TODO"]
    find = ToolCallView("c2", "find", {"pattern": "*.md", "limit": 5}, context)
    assert body(find) == ["find *.md in . (limit 5)"]
    ls = ToolCallView("c3", "ls", {"path": "/work/project/src"}, context)
    done(ls, "app.py\nutil/")
    assert body(ls) == ["ls ~/project/src", "app.py", "util/"]


def test_other_tools_show_their_arguments_as_json(context: RenderContext) -> None:
    view = ToolCallView("c1", "deploy", {"target": "staging", "dry": True}, context, label="Deploy")
    done(view, "deployed")
    assert body(view) == ["Deploy", "{", '"target": "staging",', '"dry": true', "}", "deployed"]


def test_streamed_partial_arguments_render(context: RenderContext) -> None:
    view = ToolCallView("c1", "bash", {}, context)
    assert body(view) == ["$ …"]
    view.set_args({"command": "ls -"})
    assert body(view) == ["$ ls -"]
    for width in (10, 20):
        assert_fits(view.render(width), width)


def test_tool_output_escapes_are_removed(context: RenderContext) -> None:
    view = ToolCallView("c1", "bash", {"command": "ls --color"}, context)
    done(view, "\x1b[31mred.txt\x1b[0m\rblue.txt\x07")
    assert body(view)[-1] == "red.txtblue.txt"
    assert "\x1b[31m" not in "".join(view.render(40))


def test_extension_tool_renderers_with_fallbacks(context: RenderContext) -> None:
    from pi_harness.tui.components.base import ToolRenderer

    def broken(result: Any, is_error: bool, ctx: RenderContext) -> list[str]:
        raise ValueError("renderer bug")

    context.tool_renderers["deploy"] = ToolRenderer(render_call=lambda args, ctx: [f"Deploying to {args['env']}"])
    context.tool_renderers["bash"] = ToolRenderer(render_result=broken)
    deploy = ToolCallView("c1", "deploy", {"env": "prod"}, context)
    done(deploy, "ok")
    assert body(deploy) == ["Deploying to prod", "{", '"env": "prod"', "}", "ok"]  # built-in body kept
    bash = ToolCallView("c2", "bash", {"command": "ls"}, context)
    done(bash, "a.txt")
    assert body(bash) == ["$ ls", "a.txt"]  # the failing renderer falls back to the built-in look
    assert context.render_errors == ["bash renderResult: renderer bug"]
