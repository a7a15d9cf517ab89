"""pirate: a command that switches the assistant's voice, through the system prompt.

``/pirate`` toggles pirate mode. While it is on, every run gets extra instructions appended to the
system prompt: answer as a pirate would talk, and still do the task properly. ``/pirate`` again
turns it off; the state lives in memory only (a new session starts with it off).

What it shows: state kept by the extension, and ``before_agent_start`` returning
``{"systemPrompt": ...}`` built from ``event.systemPrompt`` (the prompt of this run). The section
API (``event.sections``, see ``prompt_customizer.py``) would be the recorded alternative.

Load it with ``pi -e examples/extensions/pirate.py``.
"""

from __future__ import annotations

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext, ExtensionEvent

PIRATE_INSTRUCTIONS = """

Pirate mode is on. Write every answer in the voice of an old sea pirate:
- greet with "Ahoy" or "Arrr", call the user "matey";
- say "ye" for "you", "yer" for "your" and "me" for "my";
- sprinkle in sailing words (deck, sails, the briny deep).
The voice changes, the work does not: code, commands and facts stay exactly as correct as usual.
"""


def extension(pi: ExtensionAPI) -> None:
    state = {"on": False}

    @pi.command("pirate", description="Toggle pirate mode: the assistant talks like a pirate")
    async def toggle(args: str, ctx: ExtensionCommandContext) -> None:
        state["on"] = not state["on"]
        ctx.ui.notify("Pirate mode on. Arrr!" if state["on"] else "Pirate mode off")

    @pi.on("before_agent_start")
    def add_voice(event: ExtensionEvent) -> dict[str, str] | None:
        if not state["on"]:
            return None
        return {"systemPrompt": f"{event.system_prompt}{PIRATE_INSTRUCTIONS}"}
