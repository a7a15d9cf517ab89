"""What happens to the editor's content when it is sent.

* ``/name args`` of a built-in command runs the command;
* ``!cmd`` runs a shell command whose output goes to the model with the next prompt, ``!!cmd``
  one that stays out of the context;
* anything else is a prompt (extension commands, ``/skill:`` and templates are the session's
  business): it starts a run when the agent is idle, otherwise it is queued as steering
  (Enter) or as a follow-up (Alt+Enter).

Prompts are submitted one at a time, so two quick Enters cannot both try to start a run.
"""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pi_harness.ai.types import ImageContent
from pi_harness.cli.initial_input import PromptInput
from pi_harness.coding.agent_session.prompting import StreamingBehavior
from pi_harness.coding.tools.images import SNIFF_BYTES, detect_image_mime_type, fit_image

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext

BASH_BUSY = "A shell command is already running"


def load_image(path: str, *, auto_resize: bool = True) -> ImageContent | None:
    """An image file as image content (fitted into the size limits when ``auto_resize``)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    mime_type = detect_image_mime_type(data[:SNIFF_BYTES])
    if mime_type is None:
        return None
    if auto_resize:
        fitted = fit_image(data, mime_type)
        if fitted is not None:
            data, mime_type = fitted.data, fitted.mime_type
    return {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime_type}


class Submitter:
    def __init__(self, mode: ModeContext) -> None:
        self.mode = mode
        self._lock = asyncio.Lock()

    def submit(self, *, follow_up: bool = False) -> None:
        """Send the editor's content (Enter, or Alt+Enter while the agent works)."""
        shell = self.mode.shell
        shell.autocomplete.close()
        submission = shell.editor.submit()
        if submission is None:
            return
        text = submission.text
        command = self.mode.commands.find(text)
        if command is not None:
            name, args = command
            self.mode.spawn(self.mode.commands.run(name, args))
            return
        if text.startswith("!") and not submission.images:
            exclude = text.startswith("!!")
            self.mode.spawn(self.run_bash(text[2:] if exclude else text[1:], exclude=exclude))
            return
        images = self.load_images(submission.images)
        self.mode.spawn(self.prompt(text, images, follow_up=follow_up))

    def load_images(self, paths: Sequence[str]) -> list[ImageContent]:
        auto_resize = self.mode.session.settings.values.images.auto_resize
        images: list[ImageContent] = []
        for path in paths:
            image = load_image(path, auto_resize=auto_resize)
            if image is None:
                self.mode.shell.notice("warning", f"Could not read image {os.path.basename(path)}")
            else:
                images.append(image)
        return images

    async def prompt(self, text: str, images: list[ImageContent], *, follow_up: bool = False) -> None:
        session = self.mode.session
        behavior: StreamingBehavior = "followUp" if follow_up else "steer"
        try:
            if session.prompting.command(text) is not None:
                # An extension command runs at once (it may open dialogs); it must not hold the queue.
                await session.prompt(text, wait=False)
                return
            async with self._lock:
                await self.mode.session.prompt(text, images=images or None, streaming_behavior=behavior, wait=False)
        except Exception as error:
            shell = self.mode.shell
            shell.notice("error", str(error) or type(error).__name__)
            if shell.editor.is_empty:  # nothing was sent: give the text back (images must be pasted again)
                shell.editor.set_text(text)
                shell.refresh()

    async def run_bash(self, command: str, *, exclude: bool) -> None:
        shell = self.mode.shell
        command = command.strip()
        if not command:
            shell.notice("warning", "Type a command after ! (or !! to keep its output out of the context)")
            return
        session = self.mode.session
        if session.user_bash.running:
            shell.toast(BASH_BUSY, "warning")
            shell.editor.set_text(("!!" if exclude else "!") + command)
            return
        shell.transcript.begin_bash(command, exclude_from_context=exclude)
        shell.refresh()
        message: dict[str, object] = {"role": "bashExecution", "command": command, "output": "", "exitCode": None,
                                   "cancelled": True, "truncated": False}  # fmt: skip
        try:
            result = await session.run_bash(command, exclude_from_context=exclude)
            message.update(result)
        except Exception as error:
            shell.notice("error", str(error) or type(error).__name__)
        finally:
            if exclude:
                message["excludeFromContext"] = True
            shell.transcript.add_message(message)
            shell.refresh()

    async def run_initial(self, prompts: list[PromptInput], *, after: asyncio.Task[None] | None = None) -> None:
        """The command line's messages, each after the previous run settled."""
        if after is not None:
            await asyncio.wait({after})
        for item in prompts:
            try:
                await self.mode.session.prompt(item.text, images=item.images or None)
            except Exception as error:
                self.mode.shell.notice("error", str(error) or type(error).__name__)
                return
