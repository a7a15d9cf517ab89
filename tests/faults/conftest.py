"""Fault tests: the installed ``pi`` against the fake LLM server, as in ``tests/e2e``.

The e2e helpers (``_pi_env``, ``_rpc_client``) are shared rather than copied.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "e2e"))

from _faults import Procs
from _pi_env import PiEnv, write_fake_provider
from _rpc_client import RpcClient

from pi_harness.testing.fake_llm import FakeLLMServer


@pytest.fixture
def pi_env(agent_dir: Path, tmp_path: Path) -> Iterator[PiEnv]:
    with FakeLLMServer() as server:
        write_fake_provider(agent_dir, server)
        cwd = tmp_path / "project"
        cwd.mkdir()
        env = dict(os.environ)
        env["PI_OFFLINE"] = "1"
        env.pop("PI_TIMING", None)
        yield PiEnv(server, agent_dir, cwd, env)


@pytest.fixture
def start_rpc(pi_env: PiEnv) -> Iterator[Callable[..., RpcClient]]:
    """``start_rpc(*args)``: ``pi --mode rpc *args`` with a client; killed at the end."""
    clients: list[RpcClient] = []

    def start(*args: str) -> RpcClient:
        client = RpcClient(pi_env.popen("--mode", "rpc", *args))
        clients.append(client)
        return client

    yield start
    for client in clients:
        client.kill()


@pytest.fixture
def procs() -> Iterator[Procs]:
    found = Procs()
    yield found
    found.kill_all()
