"""notify: a desktop notification when pi is waiting for you.

When the agent has completely finished (after retries, automatic compaction and queued follow-up
messages, not after every low-level run), the extension asks the terminal to show a notification
``Pi`` / ``Waiting for your input``:

* Windows Terminal (``WT_SESSION`` set, e.g. under WSL): a toast through ``powershell.exe``;
* kitty (``KITTY_WINDOW_ID`` set): the OSC 99 escape sequence;
* otherwise OSC 777 (Ghostty, iTerm2, WezTerm, foot, rxvt-unicode); terminals without support
  ignore it.

What it shows: the ``agent_settled`` event (fired once per logical run, unlike ``agent_end``),
and writing to the terminal from an extension.

Load it with ``pi -e examples/extensions/notify.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys

from pi_harness.coding.extensions import ExtensionAPI, ExtensionEvent

TITLE = "Pi"
BODY = "Waiting for your input"


def osc777(title: str, body: str) -> str:
    return f"\x1b]777;notify;{title};{body}\x07"


def osc99(title: str, body: str) -> str:
    # kitty: the first part (d=0: more follows) carries the title, the second the body.
    return f"\x1b]99;i=1:d=0;{title}\x1b\\\x1b]99;i=1:p=body;{body}\x1b\\"


def toast_script(title: str, body: str) -> str:
    notifications = "Windows.UI.Notifications"
    return "; ".join(
        [
            f"[{notifications}.ToastNotificationManager, {notifications}, ContentType = WindowsRuntime] > $null",
            f"$template = [{notifications}.ToastNotificationManager]::GetTemplateContent("
            f"[{notifications}.ToastTemplateType]::ToastText01)",
            f"$template.GetElementsByTagName('text')[0].AppendChild($template.CreateTextNode('{body}')) > $null",
            f"[{notifications}.ToastNotificationManager]::CreateToastNotifier('{title}')"
            f".Show([{notifications}.ToastNotification]::new($template))",
        ]
    )


def send_notification(title: str, body: str) -> None:
    if os.environ.get("WT_SESSION"):
        try:
            subprocess.Popen(
                ["powershell.exe", "-NoProfile", "-Command", toast_script(title, body)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        except OSError:
            pass  # no PowerShell reachable: a missing notification is not worth an error
        return
    sequence = osc99(title, body) if os.environ.get("KITTY_WINDOW_ID") else osc777(title, body)
    sys.stdout.write(sequence)
    sys.stdout.flush()


def extension(pi: ExtensionAPI) -> None:
    @pi.on("agent_settled")
    def ready(event: ExtensionEvent) -> None:
        send_notification(TITLE, BODY)
