"""The lexer for a file name is the one pygments' ``get_lexer_for_filename`` would pick (``syntax``
finds it without compiling every lexer's file patterns)."""

from __future__ import annotations

from pygments.lexers import get_lexer_for_filename
from pygments.lexers._mapping import LEXERS
from pygments.util import ClassNotFound

from pi_harness.tui.syntax import _lexer_class_for_filename, find_lexer


def pygments_choice(name: str) -> type | None:
    try:
        return type(get_lexer_for_filename(name))
    except ClassNotFound:
        return None


def test_every_extension_pygments_knows_gets_the_same_lexer() -> None:
    extensions = {pattern[1:] for entry in LEXERS.values() for pattern in entry[3] if pattern.startswith("*.")}
    names = [f"file{extension}" for extension in sorted(extensions)]
    names += ["Makefile", "Dockerfile", "CMakeLists.txt", ".bashrc", "file.php4", "file.3", "file.xbm", "file", "x."]
    assert {name: _lexer_class_for_filename(name) for name in names} == {name: pygments_choice(name) for name in names}


def test_find_lexer_by_path() -> None:
    found = find_lexer(path="src/app.py")
    assert found is not None and found.name == "Python"
    assert find_lexer(path="notes.unknownextension") is None
