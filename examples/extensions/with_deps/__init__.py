"""with-deps: an extension that brings its own third-party package.

The ``parse_duration`` tool turns a duration written the way people write it (``2 days``,
``1h30m``, ``90s``, ``1:30:00``) into milliseconds, with the ``pytimeparse2`` package from PyPI.
That package is not a dependency of pi: the extension keeps it in its own directory, in
``.deps/``, and puts that directory first on ``sys.path`` when it is imported. Install it once::

    pip install --target examples/extensions/with_deps/.deps -r examples/extensions/with_deps/requirements.txt

Without it the extension still loads, and the tool answers with that command as its error, so a
missing package is reported where it matters instead of breaking the whole session. A text the
parser does not understand is an error result too.

What it shows: an extension package with its own ``requirements.txt``, resolving imports from its
own directory (``.deps`` here, or a virtual environment of its own), and importing an optional
package lazily, at the first call.

Load it with ``pi -e examples/extensions/with_deps``.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ToolResult

DEPS_DIR = Path(__file__).resolve().parent / ".deps"
REQUIREMENTS = Path(__file__).resolve().parent / "requirements.txt"
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"duration": {"type": "string", "description": "A duration such as '2 days', '1h', '5m'"}},
    "required": ["duration"],
}


def use_own_packages() -> None:
    """Put ``.deps`` first on the import path (once), so its packages win over any other copy."""
    entry = str(DEPS_DIR)
    if DEPS_DIR.is_dir() and entry not in sys.path:
        sys.path.insert(0, entry)


def parse_seconds(text: str) -> float | None:
    parser = importlib.import_module("pytimeparse2")
    seconds = parser.parse(text)
    return None if seconds is None else float(seconds)


def extension(pi: ExtensionAPI) -> None:
    use_own_packages()

    @pi.tool(
        name="parse_duration",
        label="Parse duration",
        description="Convert a human-readable duration ('2 days', '1h', '5m') to milliseconds.",
        parameters=PARAMETERS,
    )
    async def parse_duration(
        tool_call_id: str, params: dict[str, Any], signal: object, on_update: object, ctx: object
    ) -> ToolResult:
        text = str(params["duration"])
        try:
            seconds = parse_seconds(text)
        except ModuleNotFoundError:
            hint = f"pip install --target {DEPS_DIR} -r {REQUIREMENTS}"
            return ToolResult(f"parse_duration needs the pytimeparse2 package: {hint}", is_error=True)
        if seconds is None:
            return ToolResult(f'Not a duration: "{text}"', is_error=True)
        milliseconds = round(seconds * 1000)
        return ToolResult(f"{text} = {milliseconds} milliseconds", details={"milliseconds": milliseconds})
