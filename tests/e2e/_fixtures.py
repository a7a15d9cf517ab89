"""The fixtures of the end-to-end tests, in a module so other suites (tests/faults) import them
instead of copying them: the installed ``pi`` command against the fake LLM server."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
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
    """``start_rpc(*args, read=True)``: ``pi --mode rpc *args`` with a client; killed at the end."""
    clients: list[RpcClient] = []

    def start(*args: str, read: bool = True) -> RpcClient:
        client = RpcClient(pi_env.popen("--mode", "rpc", *args), read=read)
        clients.append(client)
        return client

    yield start
    for client in clients:
        client.kill()
