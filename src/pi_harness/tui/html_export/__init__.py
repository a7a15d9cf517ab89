"""The HTML export: one self-contained page that lets a reader browse a whole session.

``data`` turns a session (header, every entry of every branch, the leaf) into the JSON the page
embeds; ``embed`` makes that JSON safe inside a ``<script>`` element; ``theme_css`` turns the
current theme into CSS variables; ``page`` puts them into the template of ``assets/`` (HTML, CSS
and JavaScript that render the tree, the messages and the search in the browser).
"""

from __future__ import annotations

from pi_harness.tui.html_export.data import SessionPage, page_data, session_from_messages
from pi_harness.tui.html_export.embed import script_json
from pi_harness.tui.html_export.page import default_export_name, export_html, render_page

__all__ = [
    "SessionPage",
    "default_export_name",
    "export_html",
    "page_data",
    "render_page",
    "script_json",
    "session_from_messages",
]
