"""``<agentDir>/mcp.log``: connection events, server stderr and server log messages.

Lines are ``<ISO time> [<server>] <message>``, appended with one ``write`` each so that several pi
processes can share the file. Logging never raises: a log that cannot be written is not a reason
to fail a tool call. The SDK's own Python logger (``mcp``) is routed here while MCP is active, so
its warnings do not end up on the terminal in print and JSON modes.
"""

from __future__ import annotations

import logging
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

LOG_FILE = "mcp.log"


class McpLog:
    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, server: str | None, message: str) -> None:
        stamp = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        prefix = f"[{server}] " if server else ""
        lines = message.rstrip("\n").split("\n") or [""]
        text = "".join(f"{stamp} {prefix}{line}\n" for line in lines)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, text.encode("utf-8", errors="replace"))
            finally:
                os.close(fd)
        except OSError:
            pass


class _LogHandler(logging.Handler):
    def __init__(self, log: McpLog) -> None:
        super().__init__(logging.WARNING)
        self.log = log

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.log.write("sdk", f"{record.levelname.lower()}: {record.getMessage()}")
        except Exception:
            pass


class SdkLogCapture:
    """Route the ``mcp`` logger into mcp.log while at least one capture is open."""

    _active: ClassVar[list[SdkLogCapture]] = []
    _saved_propagate: ClassVar[bool] = True

    def __init__(self, log: McpLog) -> None:
        self._handler = _LogHandler(log)
        self._open = False

    def open(self) -> None:
        if self._open:
            return
        self._open = True
        logger = logging.getLogger("mcp")
        if not SdkLogCapture._active:
            SdkLogCapture._saved_propagate = logger.propagate
            logger.propagate = False
        SdkLogCapture._active.append(self)
        logger.addHandler(self._handler)

    def close(self) -> None:
        if not self._open:
            return
        self._open = False
        logger = logging.getLogger("mcp")
        logger.removeHandler(self._handler)
        SdkLogCapture._active.remove(self)
        if not SdkLogCapture._active:
            logger.propagate = SdkLogCapture._saved_propagate
