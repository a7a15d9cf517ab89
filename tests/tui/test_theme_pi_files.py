"""Pi's own theme files (OKHSL colours, vars) load unchanged; ``system`` and light/dark pairs follow the terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_harness.tui.oklab import parse_color_string
from pi_harness.tui.theme import REQUIRED_TOKENS, load_theme_file, parse_theme
from pi_harness.tui.theme_registry import ThemeRegistry, detect_default_theme, resolve_theme_setting

PI_THEMES = Path(__file__).resolve().parents[1] / "fixtures" / "pi_themes"
LIGHT_TERMINAL = {"COLORFGBG": "0;15"}
DARK_TERMINAL = {"COLORFGBG": "15;0"}


def test_pi_dark_theme_loads_with_the_colours_pi_shows() -> None:
    spec, errors = load_theme_file(PI_THEMES / "dark.json")
    assert errors == [] and spec is not None
    assert spec.name == "dark"
    assert set(REQUIRED_TOKENS) <= set(spec.colors)
    # Reference values: Pi 1.4.0's own converter (pi-tui parseColor + colorToHex) on these inputs.
    assert spec.colors["error"] == "#ea7f81"  # var red = okhsl(20 72% 67%)
    assert spec.colors["text"] == "#dee0e1"  # var text = okhsl(234 3% 89%)
    assert spec.colors["warning"] == "#cd9a22"  # var yellow = okhsl(83 88% 67%)
    assert spec.colors["selectedBg"] == "#213b49"  # var blueBg = okhsl(233 41% 24%)
    assert spec.colors["thinkingMax"] == "#fe5462"  # okhsl(20 99% 63%)
    assert spec.colors["searchMatchBg"] == parse_color_string("okhsl(53 51% 24%)")
    assert set(spec.export) == {"pageBg", "cardBg", "infoBg"}


def test_pi_light_theme_loads() -> None:
    spec, errors = load_theme_file(PI_THEMES / "light.json")
    assert errors == [] and spec is not None
    assert spec.colors["warning"] == "#8f6802"  # var yellow = okhsl(83 99% 47%), by Pi's converter
    assert spec.colors["accent"] == "#7459b4"  # var violet = okhsl(295 60% 46%)


def _srgb(linear: float) -> int:
    encoded = 12.92 * linear if linear <= 0.0031308 else 1.055 * linear ** (1 / 2.4) - 0.055
    return round(encoded * 255)


def test_colour_syntaxes_match_independent_references() -> None:
    # CSS Color 4's worked example: sRGB red in OKLCH.
    assert parse_color_string("oklch(62.8% 0.2577 29.23)") == "#ff0000"
    # Its rounded blue lies just outside sRGB, so it is gamut-mapped (Pi 1.4.0 gives the same).
    assert parse_color_string("OKLCH(0.452 0.313 264.05deg)") == "#0031e5"
    assert parse_color_string("oklch(100% 0 0)") == "#ffffff"
    # Outside sRGB: chroma shrinks at the same lightness and hue (reference: Pi 1.4.0's converter).
    assert parse_color_string("oklch(70% 0.3 30)") == "#ff6551"
    assert parse_color_string("oklch(95% 0.4 140)") == "#cdffc2"
    for out_of_range in ("oklch(150% 0 0)", "oklch(0.5 -0.1 30)", "okhsl(30 120% 50%)", "okhsl(30 50% -1%)"):
        assert parse_color_string(out_of_range) is None
    # A grey in OKHSL: lightness goes through the inverse toe, then L**3 is linear light.
    k1, k2 = 0.206, 0.03
    k3 = (1 + k1) / (1 + k2)
    big_l = (0.5 * 0.5 + k1 * 0.5) / (k3 * (0.5 + k2))
    grey = _srgb(big_l**3)
    assert parse_color_string("okhsl(120 0% 50%)") == f"#{grey:02x}{grey:02x}{grey:02x}"
    assert parse_color_string("okhsl(0 0.5 1)") == "#ffffff"
    assert parse_color_string("#AbC") == "#aabbcc"


def test_a_malformed_colour_is_one_line_naming_the_key() -> None:
    document = json.loads((PI_THEMES / "dark.json").read_text())
    document["colors"]["border"] = "okhsl(231 57%)"
    spec, errors = parse_theme(document, "broken.json")
    assert spec is None
    assert len(errors) == 1 and "\n" not in errors[0]
    assert "colors.border" in errors[0] and "okhsl(231 57%)" in errors[0]


@pytest.mark.parametrize(
    ("colorfgbg", "appearance"),
    [("0;15", "light"), ("15;0", "dark"), ("0;7", "light"), ("7;8", "dark"), ("0;200", "dark")],
)
def test_system_follows_colorfgbg_like_pi(colorfgbg: str, appearance: str) -> None:
    assert detect_default_theme({"COLORFGBG": colorfgbg}) == appearance
    assert resolve_theme_setting("system", {"COLORFGBG": colorfgbg}) == appearance


def test_system_and_pairs_pick_a_theme_by_the_terminal(tmp_path: Path) -> None:
    assert resolve_theme_setting("system", {}) == "dark"  # nothing reported: dark, as in Pi
    assert resolve_theme_setting("paper/ink", LIGHT_TERMINAL) == "paper"
    assert resolve_theme_setting("paper / ink", DARK_TERMINAL) == "ink"
    assert resolve_theme_setting("a/b/c", DARK_TERMINAL) == "a/b/c"  # not a pair
    assert ThemeRegistry(env=LIGHT_TERMINAL).create("system", "truecolor").name == "light"
    assert ThemeRegistry(env=DARK_TERMINAL).create("system", "truecolor").name == "dark"
    assert ThemeRegistry(env=LIGHT_TERMINAL).create("dark/light", "truecolor").name == "dark"
    registry = ThemeRegistry(env=LIGHT_TERMINAL)
    assert registry.get("system") is registry.get("light")  # what extensions' get_theme/set_theme see
    assert registry.resolve("nope/dark") is None  # light terminal: the light half "nope" is unknown


def test_reserved_custom_theme_names_are_ignored(tmp_path: Path) -> None:
    for name in ("system", "a/b"):
        document = json.loads((PI_THEMES / "dark.json").read_text())
        document["name"] = name
        (tmp_path / f"{name.replace('/', '-')}.json").write_text(json.dumps(document))
    registry = ThemeRegistry([tmp_path])
    assert registry.names() == ["system", "dark", "light"]
    assert len(registry.diagnostics) == 2
    assert all("ignored" in line for line in registry.diagnostics)
