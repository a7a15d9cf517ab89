"""``pi --export`` end to end: the real command writes the viewer of every branch under Pi's name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson

from .html_export_browser import chromium, needs_browser
from .html_export_fixture import write_session


def _pi(*args: str, cwd: Path, agent_dir: Path) -> subprocess.CompletedProcess[str]:
    pi = Path(sys.executable).with_name("pi")
    env = {**os.environ, "PI_OFFLINE": "1", "PI_CODING_AGENT_DIR": str(agent_dir)}
    return subprocess.run([str(pi), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=60, check=False)


def test_pi_export_names_the_page_after_the_session_file(tmp_path: Path, agent_dir: Path) -> None:
    write_session(tmp_path / "2026-01-02_calc.jsonl")
    result = _pi("--export", "2026-01-02_calc.jsonl", cwd=tmp_path, agent_dir=agent_dir)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Exported to: pi-session-2026-01-02_calc.html\n"
    page = (tmp_path / "pi-session-2026-01-02_calc.html").read_text(encoding="utf-8")
    assert "Now add unit tests for the marmot module" in page  # the abandoned branch is there too
    assert '"leafId":"e21"' in page
    assert "color-scheme:dark" in page


def test_pi_export_uses_the_configured_theme(tmp_path: Path, agent_dir: Path) -> None:
    write_session(tmp_path / "s.jsonl")
    (agent_dir / "settings.json").write_text('{"theme": "light"}')
    assert _pi("--export", "s.jsonl", "light.html", cwd=tmp_path, agent_dir=agent_dir).returncode == 0
    assert "color-scheme:light" in (tmp_path / "light.html").read_text(encoding="utf-8")


def test_pi_export_masks_credentials_in_every_branch(tmp_path: Path, agent_dir: Path) -> None:
    secret = "sk-test-abcdefghijklmnop1234"
    rows = [orjson.loads(line) for line in write_session(tmp_path / "s.jsonl").read_bytes().splitlines()]
    [abandoned] = [row for row in rows if row.get("id") == "e11"]  # on the abandoned branch
    abandoned["message"]["content"] = f"my key is {secret}"
    (tmp_path / "s.jsonl").write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in rows))
    (agent_dir / "auth.json").write_text(orjson.dumps({"anthropic": {"type": "api_key", "key": secret}}).decode())
    result = _pi("--export", "s.jsonl", "out/page.html", cwd=tmp_path, agent_dir=agent_dir)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Exported to: out/page.html\n"
    page = (tmp_path / "out" / "page.html").read_text(encoding="utf-8")
    assert secret not in page and "my key is [redacted:anthropic]" in page


@needs_browser
def test_the_exported_file_opens_in_the_browser(tmp_path: Path, agent_dir: Path) -> None:
    write_session(tmp_path / "s.jsonl")
    assert _pi("--export", "s.jsonl", cwd=tmp_path, agent_dir=agent_dir).returncode == 0
    with chromium(tmp_path / "profile") as viewer:
        opened = viewer.open(tmp_path / "pi-session-s.html")
        tree = opened.page.inner_text("#tree")
        assert "Now add unit tests for the marmot module" in tree and "Instead, document the fix" in tree
        assert "That looks like a script tag." in opened.page.inner_text("#messages")
        opened.assert_clean()
