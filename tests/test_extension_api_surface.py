"""``scripts/extension_api_surface.py``: the Python extension API covers Pi 1.4.0's declarations.

``REPORT_ONLY`` lists the categories reported but not required to be complete (none now). Without
the reference package (a fresh machine) the names recorded from its types.d.ts are used.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "extension_api_surface.py"
TYPES = Path("/work/pi-ref/pi/node_modules/@earendil-works/pi-coding-agent/dist/core/extensions/types.d.ts")
REPORT_ONLY: tuple[str, ...] = ()
RECORDED = ROOT / "tests" / "fixtures" / "pi_1_4_extension_api.json"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False)


@pytest.mark.skipif(not TYPES.is_file(), reason="Pi 1.4.0's reference package is not installed")
def test_nothing_of_pi_s_extension_api_is_missing() -> None:
    skips = [arg for category in REPORT_ONLY for arg in ("--skip-category", category)]
    done = run("--types", str(TYPES), *skips)
    assert done.returncode == 0, done.stdout + done.stderr
    for category in ("events", "pi", "ctx", "tool"):
        assert f"{category:7}" in done.stdout


def test_nothing_is_missing_against_the_recorded_names() -> None:
    skips = [arg for category in REPORT_ONLY for arg in ("--skip-category", category)]
    done = run("--names", str(RECORDED), *skips)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "events   41/41" in done.stdout and "ctx.ui   28/28" in done.stdout


@pytest.mark.skipif(not TYPES.is_file(), reason="Pi 1.4.0's reference package is not installed")
def test_the_recorded_names_are_pi_s(tmp_path: Path) -> None:
    fresh = tmp_path / "names.json"
    assert run("--types", str(TYPES), "--write-names", str(fresh)).returncode == 0
    assert fresh.read_text() == RECORDED.read_text()


def test_a_missing_member_fails_and_is_named(tmp_path: Path) -> None:
    """A declaration with one member we do not have: the check fails and names it."""
    types = tmp_path / "types.d.ts"
    types.write_text(
        "export interface ExtensionUIContext {\n    notify(message: string): void;\n}\n"
        "export interface ExtensionContext {\n    cwd: string;\n    hasUI: boolean;\n}\n"
        "export interface ExtensionToolContext extends ExtensionContext {\n    readonly tools: string[];\n}\n"
        "export interface ExtensionCommandContext extends ExtensionContext {\n    waitForIdle(): Promise<void>;\n}\n"
        "export interface ReplacedSessionContext extends ExtensionCommandContext {\n"
        "    sendMessage<T>(message: T): Promise<void>;\n}\n"
        "export interface ToolDefinition<T> {\n    name: string;\n    colourScheme?: string;\n}\n"
        "export interface ExtensionAPI {\n"
        '    on(event: "session_start", handler: H): () => void;\n'
        '    on(event: "moon_phase", handler: H): () => void;\n'
        "    registerTool(tool: T): void;\n"
        "    registerSpaceship(name: string, options: {\n        speed: number;\n    }): void;\n"
        "}\n",
        encoding="utf-8",
    )
    done = run("--types", str(types))
    assert done.returncode == 1
    assert "missing: moon_phase" in done.stdout
    assert "missing: registerSpaceship -> register_spaceship" in done.stdout
    assert "missing: colourScheme -> colour_scheme" in done.stdout
    assert "speed" not in done.stdout  # a nested member is not one of the interface's
    assert "ctx       5/5" in done.stdout  # hasUI maps to has_ui through the exception table


def test_deliberate_differences_do_not_fail(tmp_path: Path) -> None:
    types = tmp_path / "types.d.ts"
    types.write_text(
        "export interface ExtensionAPI {\n    registerSpaceship(name: string): void;\n}\n"
        + "".join(
            f"export interface {name} {{\n}}\n"
            for name in (
                "ExtensionContext",
                "ExtensionToolContext",
                "ExtensionCommandContext",
                "ReplacedSessionContext",
                "ExtensionUIContext",
                "ToolDefinition",
            )
        ),
        encoding="utf-8",
    )
    compatibility = tmp_path / "compatibility.md"
    compatibility.write_text(
        "<!-- extension-api-deliberate:start -->\n- `pi:registerSpaceship`: no spaceships here\n"
        "<!-- extension-api-deliberate:end -->\n",
        encoding="utf-8",
    )
    done = run("--types", str(types), "--compatibility", str(compatibility))
    assert done.returncode == 0, done.stdout
    assert "deliberate: registerSpaceship" in done.stdout


def test_unreadable_declarations_exit_2(tmp_path: Path) -> None:
    done = run("--types", str(tmp_path / "absent.d.ts"))
    assert done.returncode == 2
    assert "cannot read Pi's declarations" in done.stderr
