"""``/export``'s page: kept as the import path of the HTML export (``pi_harness.tui.html_export``)."""

from __future__ import annotations

from pi_harness.tui.html_export import SessionPage, default_export_name, export_html, render_page

__all__ = ["SessionPage", "default_export_name", "export_html", "render_page"]
