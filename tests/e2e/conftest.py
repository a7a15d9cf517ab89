"""End-to-end fixtures: the installed ``pi`` command against the fake LLM server (``_fixtures.py``)."""

from __future__ import annotations

from _fixtures import pi_env, start_rpc

__all__ = ["pi_env", "start_rpc"]
