"""The user documentation shipped in ``pi_harness/docs``.

The system prompt points the model at these files, so every file it names must exist; links
between documents (and their ``#anchors``) must resolve; the Python examples must compile. Links
into ``examples/`` are checked against the repository's ``examples/`` directory, which the wheel
installs as ``pi_harness/docs/examples`` (``force-include`` in pyproject.toml, checked here too).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pi_harness.coding.system_prompt import SystemPromptInputs, build_system_prompt_sections, default_docs_dir

REPO = Path(__file__).resolve().parents[1]
DOCS = default_docs_dir()
EXAMPLES_PREFIX = "examples/"

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
_PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def doc_files() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def without_code(text: str) -> str:
    """The prose of a markdown file: fenced blocks and inline code removed."""
    return _INLINE_CODE.sub("", _FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading keeps its text
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    counts: dict[str, int] = {}
    for heading in _HEADING.findall(_FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(heading)
        seen = counts.get(base, 0)
        counts[base] = seen + 1
        found.add(base if seen == 0 else f"{base}-{seen}")
    return found


def relative_links(path: Path) -> Iterator[str]:
    for target in _LINK.findall(without_code(path.read_text(encoding="utf-8"))):
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: ...
            yield target


def resolve_in_docs(base: Path, target: str) -> Path:
    """A link target of a document in ``base``; ``examples/...`` from the docs dir maps to the repo."""
    if base == DOCS and target.startswith(EXAMPLES_PREFIX) and not (DOCS / "examples").exists():
        return REPO / target
    return (base / target).resolve()


def test_docs_named_by_the_system_prompt_exist() -> None:
    docs_section = build_system_prompt_sections(SystemPromptInputs(cwd=str(REPO), tools=[]))["docs"]
    named = set(re.findall(r"[\w-]+\.md", docs_section))
    assert {"README.md", "extensions.md", "sdk.md", "packages.md"} <= named  # the section still names them
    missing = sorted(name for name in named if not (DOCS / name).is_file())
    assert missing == [], f"named in the system prompt but not in {DOCS}: {missing}"
    assert str(DOCS / "README.md") in docs_section


def test_every_document_is_listed_in_the_docs_readme() -> None:
    listed = {target.split("#")[0] for target in relative_links(DOCS / "README.md")}
    unlisted = sorted(path.name for path in doc_files() if path.name != "README.md" and path.name not in listed)
    assert unlisted == []


def broken_links(path: Path, resolve: Callable[[str], Path]) -> list[str]:
    """The relative links of ``path`` whose file or ``#anchor`` does not exist."""
    broken: list[str] = []
    for target in relative_links(path):
        file_part, _, anchor = target.partition("#")
        destination = resolve(file_part) if file_part else path
        if not destination.exists():
            broken.append(f"{target}: {destination} does not exist")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{target}: no heading with anchor #{anchor} in {destination.name}")
    return broken


@pytest.mark.parametrize("path", doc_files(), ids=lambda p: p.name)
def test_relative_links_resolve(path: Path) -> None:
    assert broken_links(path, lambda target: resolve_in_docs(path.parent, target)) == []


def test_repository_readme_links_resolve() -> None:
    assert broken_links(REPO / "README.md", lambda target: (REPO / target).resolve()) == []


@pytest.mark.parametrize("path", [*doc_files(), REPO / "README.md"], ids=lambda p: p.name)
def test_table_rows_have_as_many_cells_as_their_header(path: Path) -> None:
    """A ``|`` inside a cell must be escaped (``\\|``), or the table renders with shifted columns."""
    bad: list[str] = []
    header: int | None = None
    for line in _FENCE.sub("", path.read_text(encoding="utf-8")).split("\n"):
        if not line.startswith("|"):
            header = None
            continue
        cells = len(re.split(r"(?<!\\)\|", line.strip().strip("|")))
        if header is None:
            header = cells
        elif cells != header:
            bad.append(line)
    assert bad == []


@pytest.mark.parametrize("path", doc_files(), ids=lambda p: p.name)
def test_python_code_blocks_compile(path: Path) -> None:
    blocks = _PYTHON_BLOCK.findall(path.read_text(encoding="utf-8"))
    for index, source in enumerate(blocks):
        compile(source, f"{path.name}[python block {index}]", "exec")


def test_sdk_document_has_python_examples() -> None:
    assert len(_PYTHON_BLOCK.findall((DOCS / "sdk.md").read_text(encoding="utf-8"))) >= 5


def test_wheel_installs_the_examples_next_to_the_docs() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    wheel = config["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["force-include"].get("examples") == "pi_harness/docs/examples"
    assert (REPO / "examples" / "extensions").is_dir() and (REPO / "examples" / "sdk").is_dir()


def test_slug_matches_github_anchors() -> None:
    assert slug("MCP servers (`builtin:mcp`)") == "mcp-servers-builtinmcp"
    assert slug("The context: `ctx`") == "the-context-ctx"
    assert slug("auth.json") == "authjson"
