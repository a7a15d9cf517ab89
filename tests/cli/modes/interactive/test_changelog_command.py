"""``/changelog``: pi-harness's own changelog, or a plain statement that there is none."""

from __future__ import annotations

from pathlib import Path

from pi_harness.__about__ import __version__
from pi_harness.cli.modes.interactive.cmd_changelog import changelog_text, find_changelog
from pi_harness.coding.system_prompt import default_docs_dir
from pi_harness.testing.fake_llm import FakeLLMServer

from .harness import run_pi


async def test_changelog_says_what_the_package_has(server: FakeLLMServer, project: Path) -> None:
    shipped = find_changelog(default_docs_dir())
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/changelog")
        if shipped is None:
            expected = f"pi-harness {__version__} has no changelog yet"
        else:
            expected = shipped.read_text(encoding="utf-8").strip().splitlines()[0]
        await pi.wait_for(lambda: pi.scrollback_has(expected), "the changelog answer")


def test_a_changelog_beside_the_docs_is_shown_as_written(tmp_path: Path) -> None:
    docs = tmp_path / "site" / "pi_harness" / "docs"
    docs.mkdir(parents=True)
    assert changelog_text(docs).startswith("pi-harness ")
    (docs / "CHANGELOG.md").write_text("# Changes\n\n## 0.2\n- faster startup\n", encoding="utf-8")
    assert changelog_text(docs) == "# Changes\n\n## 0.2\n- faster startup"
