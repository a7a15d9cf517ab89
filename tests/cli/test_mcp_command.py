from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def run_pi(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pi_harness.cli.main", *args],
        check=False,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_mcp_list_without_config_exits_0(tmp_path: Path) -> None:
    result = run_pi("mcp", "list", cwd=tmp_path)
    assert result.returncode == 0, result.stderr


def test_mcp_list_invalid_config_exits_1(tmp_path: Path, agent_dir: Path) -> None:
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {"broken": {"args": ["x"]}}}))
    result = run_pi("mcp", "list", cwd=tmp_path)
    assert result.returncode == 1
    assert "broken" in result.stdout + result.stderr


def test_mcp_list_unconnectable_server_exits_1(tmp_path: Path, agent_dir: Path) -> None:
    (agent_dir / "mcp.json").write_text(
        json.dumps({"mcpServers": {"ghost": {"command": str(tmp_path / "does-not-exist")}}})
    )
    result = run_pi("mcp", "list", cwd=tmp_path)
    assert result.returncode == 1
    assert "ghost" in result.stdout


def test_mcp_usage_errors(tmp_path: Path) -> None:
    assert run_pi("mcp", cwd=tmp_path).returncode == 0  # the usage, as Pi prints it
    assert run_pi("mcp", "frobnicate", cwd=tmp_path).returncode == 1
    assert run_pi("mcp", "list", "--frob", cwd=tmp_path).returncode == 1
    assert run_pi("mcp", "--help", cwd=tmp_path).returncode == 0


def test_mcp_list_says_why_an_untrusted_project_config_is_not_used(tmp_path: Path, agent_dir: Path) -> None:
    (tmp_path / ".pi").mkdir()
    (tmp_path / ".pi" / "mcp.json").write_text(json.dumps({"mcpServers": {"local": {"command": "true"}}}))
    result = run_pi("mcp", "list", "--no-approve", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "No MCP servers configured." in result.stdout
    assert "mcp.json is ignored because the project is not trusted" in result.stdout


def test_a_missing_mcp_package_is_one_line_naming_the_install(tmp_path: Path, agent_dir: Path) -> None:
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {"s": {"command": "true"}}}))
    # ``None`` in sys.modules makes every ``import mcp`` fail as if the package were not installed.
    code = (
        "import sys; sys.modules['mcp'] = None; from pi_harness.cli.main import main; sys.exit(main(['mcp', 'list']))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], check=False, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "Error: MCP support needs the Python package 'mcp', which is not installed (pip install 'pi-harness[mcp]')"
    ]
    assert not (agent_dir / "crashes.json").exists()  # not recorded as a crash
