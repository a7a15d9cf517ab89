from __future__ import annotations

import json
import os
from pathlib import Path

from pi_harness.tui.colors import detect_color_mode, rgb_to_index, sgr, to_hex
from pi_harness.tui.theme import REQUIRED_TOKENS, Theme, builtin_theme, load_theme_file, parse_theme
from pi_harness.tui.theme_registry import ThemeRegistry, detect_default_theme


def theme_document(name: str = "custom", **overrides: object) -> dict[str, object]:
    colors: dict[str, object] = dict.fromkeys(REQUIRED_TOKENS, "base")
    colors.update(overrides)
    return {"name": name, "vars": {"base": "#336699"}, "colors": colors}


def test_builtin_themes_define_every_required_token() -> None:
    assert len(REQUIRED_TOKENS) == 51
    for name in ("dark", "light"):
        spec = builtin_theme(name)
        assert spec.name == name
        assert set(REQUIRED_TOKENS) <= set(spec.colors)
        assert spec.colors["thinkingMax"]  # the optional token is present (or falls back)
        assert set(spec.export) == {"pageBg", "cardBg", "infoBg"}


def test_vars_indexes_and_default_colour_resolve() -> None:
    spec, errors = parse_theme(theme_document(accent=214, text="", error="#FF0000"))
    assert errors == [] and spec is not None
    assert spec.colors["border"] == "#336699"
    assert spec.colors["accent"] == 214
    assert spec.colors["text"] == ""
    assert spec.colors["error"] == "#ff0000"
    assert spec.colors["thinkingMax"] == spec.colors["thinkingXhigh"]
    theme = Theme(spec, "truecolor")
    assert theme.fg("text", "x") == "x"  # terminal default: no escape at all
    assert theme.fg("accent", "x") == "\x1b[38;5;214mx\x1b[39m"
    assert theme.bg("border", "x") == "\x1b[48;2;51;102;153mx\x1b[49m"


def test_validation_errors_are_messages() -> None:
    document = theme_document(accent="#12345", border="nope", success=300)
    del document["colors"]["bashMode"]  # type: ignore[attr-defined]
    document["name"] = ""
    spec, errors = parse_theme(document, "my.json")
    assert spec is None
    joined = "\n".join(errors)
    assert 'missing or empty "name"' in joined
    assert "missing color tokens: bashMode" in joined
    assert "colors.accent: invalid color '#12345'" in joined
    assert "colors.border: unknown variable or invalid color 'nope'" in joined
    assert "colors.success: color index 300 is outside 0-255" in joined


def test_theme_files_by_path(tmp_path: Path) -> None:
    good = tmp_path / "ocean.json"
    good.write_text(json.dumps(theme_document("ocean")), encoding="utf-8")
    spec, errors = load_theme_file(good)
    assert errors == [] and spec is not None and spec.name == "ocean"
    bad = tmp_path / "broken.json"
    bad.write_text("{not json", encoding="utf-8")
    spec, errors = load_theme_file(bad)
    assert spec is None and errors[0].startswith(f"Failed to parse theme {bad}")
    spec, errors = load_theme_file(tmp_path / "missing.json")
    assert spec is None and "Failed to read theme" in errors[0]


def test_registry_first_name_wins_and_reports(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps(theme_document("ocean")), encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps(theme_document("ocean")), encoding="utf-8")
    (tmp_path / "c.json").write_text(json.dumps(theme_document("dark")), encoding="utf-8")
    (tmp_path / "d.json").write_text(json.dumps({"name": "x"}), encoding="utf-8")
    registry = ThemeRegistry([tmp_path])
    assert registry.names() == ["system", "dark", "light", "ocean"]
    assert registry.get("ocean").source_path == str(tmp_path / "a.json")  # type: ignore[union-attr]
    text = "\n".join(registry.diagnostics)
    assert f'Theme "ocean" from {tmp_path / "b.json"} ignored' in text
    assert f'Theme "dark" from {tmp_path / "c.json"} ignored' in text
    assert 'missing "colors" object' in text
    fallback = registry.create("nonexistent", "256")
    assert fallback.name == "dark" and 'Theme "nonexistent" not found' in registry.diagnostics[-1]


def test_registry_resolves_a_path_and_hot_reloads(tmp_path: Path) -> None:
    path = tmp_path / "live.json"
    path.write_text(json.dumps(theme_document("live")), encoding="utf-8")
    registry = ThemeRegistry()
    spec = registry.resolve(str(path))
    assert spec is not None and spec.colors["accent"] == "#336699"
    path.write_text(json.dumps(theme_document("live", accent="#ff0000")), encoding="utf-8")
    stat = path.stat()
    os.utime(path, (stat.st_atime, stat.st_mtime + 5))
    assert registry.reload_changed() == ["live"]
    assert registry.get("live").colors["accent"] == "#ff0000"  # type: ignore[union-attr]
    assert registry.reload_changed() == []


def test_truecolor_only_when_the_terminal_says_so() -> None:
    assert detect_color_mode({"COLORTERM": "truecolor"}) == "truecolor"
    assert detect_color_mode({"COLORTERM": "24bit"}) == "truecolor"
    assert detect_color_mode({"TERM": "xterm-256color"}) == "256"
    assert sgr("#ff0000", "truecolor") == "\x1b[38;2;255;0;0m"
    assert sgr("#ff0000", "256") == "\x1b[38;5;196m"
    assert sgr("#808080", "256", background=True) == "\x1b[48;5;244m"
    assert rgb_to_index(0, 0, 0) == 16
    assert to_hex(196) == "#ff0000"


def test_256_colour_theme_never_emits_truecolor() -> None:
    theme = Theme(builtin_theme("dark"), "256")
    for token in REQUIRED_TOKENS:
        assert ";2;" not in theme.fg_code(token) + theme.bg_code(token)


def test_default_theme_follows_the_terminal_background() -> None:
    assert detect_default_theme({"COLORFGBG": "0;15"}) == "light"
    assert detect_default_theme({"COLORFGBG": "15;0"}) == "dark"
    assert detect_default_theme({}) == "dark"
