"""The page: the template of ``assets/`` with the theme, the data and the scripts filled in.

The page loads nothing: styles and scripts are inline, images are ``data:`` URLs, and a
Content-Security-Policy forbids every fetch. Scripts run only with the page's nonce, a hash of
the embedded data, so even a string that slipped past the escaping could not run code.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any

from pi_harness.tui.html_export.data import SessionPage, page_data, session_from_messages
from pi_harness.tui.html_export.embed import script_json
from pi_harness.tui.html_export.theme_css import theme_css
from pi_harness.tui.theme import ThemeSpec

# The viewer's scripts, in the order they are concatenated (later files use earlier ones).
SCRIPTS = ("syntax.js", "markdown.js", "model.js", "parts.js", "render.js", "tree_view.js", "search.js", "app.js")
_PLACEHOLDER = re.compile(r"\{\{([A-Z_]+)\}\}")


@cache
def asset(name: str) -> str:
    """A file of ``assets/`` (package data) as text."""
    return resources.files("pi_harness.tui.html_export").joinpath("assets", name).read_text(encoding="utf-8")


def _script() -> str:
    body = "\n".join(f"// ---- {name}\n{asset(name)}" for name in SCRIPTS)
    return f"(function () {{\n'use strict';\n{body}\n}})();"


def _escape_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def render_page(page: SessionPage, theme: ThemeSpec) -> str:
    """The whole HTML document (write it as UTF-8)."""
    data = script_json(page_data(page))
    nonce = base64.urlsafe_b64encode(hashlib.sha256(data.encode("utf-8")).digest()[:18]).decode("ascii")
    values = {
        "TITLE": _escape_text(page.title),
        "NONCE": nonce,
        "THEME": theme_css(theme),
        "STYLE": asset("viewer.css"),
        "DATA": data,
        "SCRIPT": _script(),
    }
    # One pass over the template: a value is never scanned for placeholders itself.
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], asset("viewer.html"))


def export_html(
    messages: Iterable[Mapping[str, Any]],
    theme: ThemeSpec,
    *,
    title: str = "Session",
    session_id: str | None = None,
    cwd: str | None = None,
    generator: str = "pi-harness",
    exported_at: datetime | None = None,
) -> str:
    """A page of bare messages (one branch); sessions with a tree use ``render_page``."""
    entries, leaf = session_from_messages(messages)
    header = {"type": "session", "id": session_id or "", "cwd": cwd or "", "timestamp": ""}
    page = SessionPage(entries=entries, leaf_id=leaf, header=header, title=title, generator=generator,
                       exported_at=exported_at)  # fmt: skip
    return render_page(page, theme)


def default_export_name(session_id: str | None, now: datetime | None = None) -> str:
    """``pi-session-<name>.html``: the session file's name without ``.jsonl`` (Pi's choice), or a
    timestamp when there is none."""
    stamp = session_id or (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    return f"pi-session-{stamp}.html"
