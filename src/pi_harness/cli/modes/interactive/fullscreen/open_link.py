"""Opening a clicked link: fullscreen mode takes the mouse, so the terminal cannot.

As Pi does, the system's opener is started detached (``open`` on macOS, the URL protocol handler
on Windows, ``xdg-open`` elsewhere), its output discarded and the process reaped when it ends;
a missing opener is no error.
"""

from __future__ import annotations

import subprocess
import sys
import threading

__all__ = ["open_link"]


def _command(url: str) -> list[str]:
    if sys.platform == "darwin":
        return ["open", url]
    if sys.platform == "win32":
        return ["rundll32", "url.dll,FileProtocolHandler", url]
    return ["xdg-open", url]


def open_link(url: str) -> bool:
    """Start the opener for ``url``; False when it could not be started."""
    try:
        process = subprocess.Popen(
            _command(url),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return False
    threading.Thread(target=process.wait, name="open-link", daemon=True).start()  # reaped when it ends
    return True
