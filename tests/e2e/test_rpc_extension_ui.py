"""The extension UI sub-protocol over RPC (modes-and-cli.md 8.7): dialogs answered by the client,
timeouts resolved by pi, fire-and-forget requests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from _pi_env import PiEnv
from _rpc_client import RpcClient

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep, ToolCallStep

StartRpc = Callable[..., RpcClient]

CONFIRM_EXTENSION = """
LOG = {log!r}
TIMEOUT = {timeout!r}


def extension(pi):
    async def gate(event, ctx):
        if event.tool_name != "bash":
            return None
        ok = await ctx.ui.confirm("Run this command?", event.input["command"], timeout=TIMEOUT)
        with open(LOG, "a") as log:
            log.write(f"mode={{ctx.mode}} has_ui={{ctx.has_ui}} confirmed={{ok}}\\n")
        if not ok:
            return {{"block": True, "reason": "The client said no"}}
        return None

    pi.on("tool_call", gate)
"""

DIALOG_EXTENSION = """
def extension(pi):
    @pi.command("ask")
    async def ask(args, ctx):
        colour = await ctx.ui.select("Pick a colour", ["red", "green"])
        name = await ctx.ui.input("Your name", "type here")
        ctx.ui.set_status("ask", f"{colour}/{name}")
        ctx.ui.set_widget("ask", ["line one", "line two"])
        ctx.ui.set_title("asked")
        ctx.ui.notify(f"{colour} for {name}", "warning")
"""


def confirming_run(pi_env: PiEnv, start_rpc: StartRpc, timeout: float | None) -> tuple[RpcClient, Path]:
    log = pi_env.cwd / "confirm.log"
    extension = pi_env.cwd / "confirm_ext.py"
    extension.write_text(CONFIRM_EXTENSION.format(log=str(log), timeout=timeout))
    pi_env.server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": "echo approved-run"}, id="call_1")]),
        ScriptedResponse(steps=[TextStep("finished")]),
    )
    return start_rpc("-e", str(extension)), log


def tool_result_text(client: RpcClient, start: int) -> tuple[str, bool]:
    end = client.wait_event("tool_execution_end", start=start)
    return end["result"]["content"][0]["text"], end["isError"]


def test_confirm_answered_by_the_client(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    client, log = confirming_run(pi_env, start_rpc, None)
    start = client.mark()
    client.request("prompt", message="run something")
    request = client.wait_event("extension_ui_request", start=start, method="confirm")
    assert request["title"] == "Run this command?" and request["message"] == "echo approved-run"
    assert "timeout" not in request and request["id"]

    client.send({"type": "extension_ui_response", "id": "not-a-pending-id", "confirmed": False})  # ignored
    client.send({"type": "extension_ui_response", "id": request["id"], "confirmed": True})
    text, is_error = tool_result_text(client, start)
    assert is_error is False and text == "approved-run\n"
    client.wait_event("agent_settled", start=start)
    assert log.read_text() == "mode=rpc has_ui=True confirmed=True\n"


def test_confirm_cancelled_by_the_client(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    client, log = confirming_run(pi_env, start_rpc, None)
    start = client.mark()
    client.request("prompt", message="run something")
    request = client.wait_event("extension_ui_request", start=start, method="confirm")
    client.send({"type": "extension_ui_response", "id": request["id"], "cancelled": True})
    text, is_error = tool_result_text(client, start)
    assert is_error is True and "The client said no" in text
    assert log.read_text().endswith("confirmed=False\n")


def test_unanswered_confirm_times_out_on_our_side(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    client, log = confirming_run(pi_env, start_rpc, 0.2)
    start = client.mark()
    client.request("prompt", message="run something")
    request = client.wait_event("extension_ui_request", start=start, method="confirm")
    assert request["timeout"] == 200  # milliseconds on the wire
    # The client never answers: pi resolves the dialog with the default (false) by itself.
    text, is_error = tool_result_text(client, start)
    assert is_error is True and "The client said no" in text
    client.wait_event("agent_settled", start=start)
    assert log.read_text() == "mode=rpc has_ui=True confirmed=False\n"
    # A late answer is ignored.
    client.send({"type": "extension_ui_response", "id": request["id"], "confirmed": True})
    assert client.request("get_state")["success"] is True


def test_select_input_and_fire_and_forget_requests(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    extension = pi_env.cwd / "dialogs.py"
    extension.write_text(DIALOG_EXTENSION)
    client = start_rpc("-e", str(extension))
    start = client.mark()
    command_id = client.command("prompt", message="/ask")
    select = client.wait_event("extension_ui_request", start=start, method="select")
    assert select["title"] == "Pick a colour" and select["options"] == ["red", "green"]
    client.send({"type": "extension_ui_response", "id": select["id"], "value": "green"})
    asked = client.wait_event("extension_ui_request", start=start, method="input")
    assert asked["title"] == "Your name" and asked["placeholder"] == "type here"
    client.send({"type": "extension_ui_response", "id": asked["id"], "value": "Ada"})

    assert client.response(command_id)["data"] == {"disposition": "handled"}
    status = client.wait_event("extension_ui_request", start=start, method="setStatus")
    assert status["statusKey"] == "ask" and status["statusText"] == "green/Ada"
    widget = client.wait_event("extension_ui_request", start=start, method="setWidget")
    assert widget["widgetKey"] == "ask" and widget["widgetLines"] == ["line one", "line two"]
    assert widget["widgetPlacement"] == "aboveEditor"
    assert client.wait_event("extension_ui_request", start=start, method="setTitle")["title"] == "asked"
    notify = client.wait_event("extension_ui_request", start=start, method="notify")
    assert notify["message"] == "green for Ada" and notify["notifyType"] == "warning"
