"""Runs inside the sandbox: ``bridge.py <proxy socket> <port> -- <command...>``.

The sandbox has its own empty network namespace, so the host's proxy is only reachable through
its Unix socket (bound into the sandbox). This script listens on ``127.0.0.1:<port>`` in the
sandbox, forks a small forwarder for that port, and replaces itself with the command. The
forwarder exits when the command does (its parent changes). Standard library only: it runs with
``python -I -S``.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time


def _copy(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:
        for sock, how in ((target, socket.SHUT_WR), (source, socket.SHUT_RD)):
            try:
                sock.shutdown(how)
            except OSError:
                pass


def _forward(client: socket.socket, proxy_path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(proxy_path)
    except OSError:
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=_copy, args=(upstream, client), daemon=True)
    back.start()
    _copy(client, upstream)
    back.join()
    client.close()
    upstream.close()


def _serve(listener: socket.socket, proxy_path: str, parent: int) -> None:
    def watch_parent() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(0)

    threading.Thread(target=watch_parent, daemon=True).start()
    while True:
        client, _ = listener.accept()
        threading.Thread(target=_forward, args=(client, proxy_path), daemon=True).start()


def main(argv: list[str]) -> None:
    if len(argv) < 4 or argv[2] != "--":
        sys.exit("usage: bridge.py <proxy socket> <port> -- <command...>")
    proxy_path, port, command = argv[0], int(argv[1]), argv[3:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    parent = os.getpid()
    if os.fork() == 0:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # never hold the command's output pipe open
            os.dup2(null, fd)
        _serve(listener, proxy_path, parent)
        os._exit(0)
    listener.close()
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
