"""A scripted RPC client for ``pi --mode rpc``, written the way the protocol asks clients to be.

Commands go to the process's stdin as compact JSON plus ``\\n``. A thread reads stdout as bytes
and splits records on ``b"\\n"`` only (never ``str.splitlines()``, which would also split on
U+2028/U+2029 inside JSON strings), so every record the process wrote is kept, in order.
Responses are matched by ``id``; events are found with ``wait_for``. stderr is drained by a
second thread so a chatty process can never block on it.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

Record = dict[str, Any]
DEFAULT_TIMEOUT = 20.0


class RpcTimeout(AssertionError):
    pass


class RpcClient:
    def __init__(self, process: subprocess.Popen[bytes], *, read: bool = True) -> None:
        self.process = process
        self.records: list[Record] = []
        self.raw_lines: list[bytes] = []
        self._stderr = bytearray()
        self._changed = threading.Condition()
        self._ids = itertools.count(1)
        self._reader: threading.Thread | None = None
        self._eof = False
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        if read:
            self.start_reading()

    # -- reading -------------------------------------------------------------------------------

    def start_reading(self) -> None:
        """Begin consuming stdout (a client may delay this to test a stalled reader)."""
        if self._reader is None:
            self._reader = threading.Thread(target=self._read_stdout, daemon=True)
            self._reader.start()

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        buffer = b""
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                self._add(line)
        if buffer:
            self._add(buffer)
        with self._changed:
            self._eof = True
            self._changed.notify_all()

    def _add(self, line: bytes) -> None:
        if line.endswith(b"\r"):
            line = line[:-1]
        record = json.loads(line.decode("utf-8"))
        with self._changed:
            self.raw_lines.append(line)
            self.records.append(record)
            self._changed.notify_all()

    def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        fd = self.process.stderr.fileno()
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                return
            self._stderr += chunk

    @property
    def stderr(self) -> str:
        return self._stderr.decode("utf-8", errors="replace")

    # -- writing -------------------------------------------------------------------------------

    def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, record: Record) -> None:
        self.send_raw(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")

    def command(self, kind: str, **fields: Any) -> str:
        """Send a command with a fresh id and return the id."""
        request_id = f"req-{next(self._ids)}"
        self.send({"id": request_id, "type": kind, **fields})
        return request_id

    def request(self, kind: str, timeout: float = DEFAULT_TIMEOUT, **fields: Any) -> Record:
        """Send a command and wait for the response carrying its id."""
        return self.response(self.command(kind, **fields), timeout)

    def response(self, request_id: str, timeout: float = DEFAULT_TIMEOUT) -> Record:
        return self.wait_for(lambda r: r.get("type") == "response" and r.get("id") == request_id, timeout=timeout)

    # -- waiting -------------------------------------------------------------------------------

    def wait_for(
        self, predicate: Callable[[Record], bool], *, start: int = 0, timeout: float = DEFAULT_TIMEOUT
    ) -> Record:
        """The first record from index ``start`` on that satisfies ``predicate``."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for record in self.records[start:]:
                    if predicate(record):
                        return record
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._eof:
                    types = [r.get("type") for r in self.records[start:]]
                    raise RpcTimeout(f"no matching record; got {types}\nstderr:\n{self.stderr}")
                self._changed.wait(remaining)

    def wait_event(self, kind: str, *, start: int = 0, timeout: float = DEFAULT_TIMEOUT, **fields: Any) -> Record:
        return self.wait_for(
            lambda r: r.get("type") == kind and all(r.get(k) == v for k, v in fields.items()),
            start=start,
            timeout=timeout,
        )

    def mark(self) -> int:
        """The current number of records: pass as ``start`` to look only at what follows."""
        with self._changed:
            return len(self.records)

    def events(self, start: int = 0) -> list[Record]:
        with self._changed:
            return [r for r in self.records[start:] if r.get("type") != "response"]

    def prompt_and_settle(self, message: str, timeout: float = DEFAULT_TIMEOUT, **fields: Any) -> list[Record]:
        """Send a prompt, check it was accepted, and return the records up to ``agent_settled``."""
        start = self.mark()
        response = self.request("prompt", timeout=timeout, message=message, **fields)
        assert response["success"] is True, response
        settled = self.wait_event("agent_settled", start=start, timeout=timeout)
        with self._changed:
            end = self.records.index(settled, start) + 1
            return self.records[start:end]

    # -- ending --------------------------------------------------------------------------------

    def close_stdin(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()

    def signal(self, signum: signal.Signals) -> None:
        self.process.send_signal(signum)

    def wait_exit(self, timeout: float = DEFAULT_TIMEOUT) -> int:
        code = self.process.wait(timeout)
        if self._reader is not None:
            self._reader.join(timeout)
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
