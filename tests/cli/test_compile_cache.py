"""``cli/compile_cache.py``: the compiled ``@dataclass`` methods are kept beside the ``.pyc`` and
reused by the next process, typing's forward references are compiled once per text, and the
classes behave exactly as without the caches."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

MODULE = """
from __future__ import annotations
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

class Shape(TypedDict):
    kind: str
    sides: NotRequired[int]
    parts: list[str]

class Other(TypedDict):
    kind: str

@dataclass(frozen=True)
class Point:
    x: int
    y: int = 2
    tags: list[str] = field(default_factory=list)

@dataclass(order=True)
class Named:
    name: str
    size: float = 0.5
"""

# Prints what the classes do, and how many texts the cache had to compile.
PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
compiled = []
signatures = []
import inspect
real_signature = inspect.signature
def counting_signature(*args, **kwargs):
    signatures.append(args[0])
    return real_signature(*args, **kwargs)
inspect.signature = counting_signature
if sys.argv[2].startswith("cache"):
    from pi_harness.cli import compile_cache
    original = compile
    def counting(*args, **kwargs):
        compiled.append(args[0])
        return original(*args, **kwargs)
    compile_cache.compile = counting
    compile_cache.install(roots=(sys.argv[1],) if sys.argv[2] == "cache" else (sys.argv[1] + "-other",))
import probe_module as m
p = m.Point(1, tags=["a"])
print(json.dumps({
    "repr": [repr(p), repr(m.Named("n"))],
    "eq": [p == m.Point(1, 2, ["a"]), p == m.Point(2)],
    "order": m.Named("a") < m.Named("b"),
    "hash": hash(m.Point(1, 2, ())) == hash(m.Point(1, 2, ())),
    "default": m.Named("n").size,
    "annotations": {k: str(v) for k, v in m.Point.__init__.__annotations__.items()},
    "frozen": m.Point.__setattr__.__qualname__,
    "hints": {k: str(v) for k, v in __import__("typing").get_type_hints(m.Shape).items()},
    "keys": [sorted(m.Shape.__required_keys__), sorted(m.Shape.__optional_keys__)],
    "shared": m.Shape.__annotations__["kind"].__forward_code__ is m.Other.__annotations__["kind"].__forward_code__,
    "docs": [m.Point.__doc__, m.Named.__doc__],
    "compiled": len(compiled),
    "signatures": len(signatures),
}))
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return env


def _probe(directory: Path, mode: str, env: dict[str, str] | None = None) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(directory), mode],
        capture_output=True,
        text=True,
        env=env if env is not None else _env(),
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return dict(json.loads(result.stdout))


def _write(directory: Path, text: str) -> None:
    """The module's source, with a new mtime (a same-size rewrite within a second would leave
    Python's own ``.pyc`` of the previous text in use)."""
    path = directory / "probe_module.py"
    previous = path.stat().st_mtime if path.exists() else 1_000_000_000.0
    path.write_text(text)
    os.utime(path, (previous + 10, previous + 10))


def _sidecars(directory: Path) -> list[Path]:
    return sorted((directory / "__pycache__").glob("probe_module.*.dataclasses"))


def test_the_second_process_compiles_nothing_and_the_classes_are_the_same(tmp_path: Path) -> None:
    _write(tmp_path, MODULE)
    plain = _probe(tmp_path, "plain")
    first = _probe(tmp_path, "cache")
    assert len(_sidecars(tmp_path)) == 1
    second = _probe(tmp_path, "cache")
    assert int(str(first["compiled"])) > 0
    assert second["compiled"] == 0
    # The docstrings @dataclass writes from the signature: computed once, then read back.
    assert plain["signatures"] == first["signatures"] == 2
    assert second["signatures"] == 0
    # The same classes; only the code of the forward reference ``"str"`` is now one object.
    assert plain["shared"] is False
    for result in (first, second):
        assert result["shared"] is True
        assert {k: v for k, v in result.items() if k not in ("compiled", "shared", "signatures")} == {
            k: v for k, v in plain.items() if k not in ("compiled", "shared", "signatures")
        }


def test_a_changed_class_compiles_again_and_a_broken_file_is_ignored(tmp_path: Path) -> None:
    _write(tmp_path, MODULE)
    first = _probe(tmp_path, "cache")
    (sidecar,) = _sidecars(tmp_path)
    sidecar.write_bytes(b"not a cache")
    assert int(str(_probe(tmp_path, "cache")["compiled"])) > 0
    assert _probe(tmp_path, "cache")["compiled"] == 0  # written again
    # A new default is not part of the text (defaults are passed in): nothing to compile.
    _write(tmp_path, MODULE.replace("size: float = 0.5", "size: float = 10.5"))
    changed = _probe(tmp_path, "cache")
    assert (changed["compiled"], changed["default"]) == (0, 10.5)
    # A renamed field is: Named's methods are compiled again, Point's are still cached.
    _write(tmp_path, MODULE.replace("name: str", "title: str"))
    renamed = int(str(_probe(tmp_path, "cache")["compiled"]))
    assert 0 < renamed < int(str(first["compiled"]))
    assert _probe(tmp_path, "cache")["compiled"] == 0


def test_nothing_is_written_when_bytecode_writing_is_off(tmp_path: Path) -> None:
    _write(tmp_path, MODULE)
    _probe(tmp_path, "cache", env={**_env(), "PYTHONDONTWRITEBYTECODE": "1"})
    assert _sidecars(tmp_path) == []


def test_modules_outside_the_roots_get_no_cache_file(tmp_path: Path) -> None:
    """Only pi-harness's own modules are cached: another package's directory stays as installed."""
    _write(tmp_path, MODULE)
    assert int(str(_probe(tmp_path, "cache-elsewhere")["compiled"])) > 0
    assert _sidecars(tmp_path) == []
