"""Test-wide fixtures: every test gets a temporary HOME and agent dir and a clean environment.

No test may touch the real ``~/.pi``; provider keys and Pi variables from the developer's shell
are removed so results do not depend on who runs the suite.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

_SCRUBBED_PREFIXES = ("PI_", "OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_", "AZURE_OPENAI_", "AWS_", "LLAMA_")
_SCRUBBED = {
    "GROQ_API_KEY",
    "CEREBRAS_API_KEY",
    "XAI_API_KEY",
    "OPENROUTER_API_KEY",
    "MISTRAL_API_KEY",
    "AI_GATEWAY_API_KEY",
    "ZAI_API_KEY",
    "HF_TOKEN",
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "COPILOT_GITHUB_TOKEN",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
}

SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "home"
    agent_dir = home / ".pi" / "agent"
    agent_dir.mkdir(parents=True)
    for name in list(os.environ):
        if name.startswith(_SCRUBBED_PREFIXES) or name in _SCRUBBED:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent_dir))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    yield home


@pytest.fixture
def agent_dir(isolated_home: Path) -> Path:
    return Path(os.environ["PI_CODING_AGENT_DIR"])


@pytest.fixture
def shared_data() -> Path:
    """``shared/data`` beside the checkout; tests that need it skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder not found at {SHARED_DATA}")
    return SHARED_DATA
