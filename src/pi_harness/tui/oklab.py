"""OKLCH and OKHSL colours to sRGB, from Björn Ottosson's published definitions of OKLab and OKHSL.

Pi's theme files write colours as ``oklch(L C H)`` and ``okhsl(H S L)``. OKHSL is always inside
the sRGB gamut by construction; an OKLCH colour outside it keeps its lightness and hue and loses
chroma until it fits. Values out of range (lightness or saturation outside 0-1) are rejected.
"""

from __future__ import annotations

import math
import re

_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?"
_OKLCH = re.compile(rf"^oklch\(\s*({_NUMBER})(%)?\s+({_NUMBER})\s+({_NUMBER})(?:deg)?\s*\)$", re.IGNORECASE)
_OKHSL = re.compile(rf"^okhsl\(\s*({_NUMBER})(?:deg)?\s+({_NUMBER})(%)?\s+({_NUMBER})(%)?\s*\)$", re.IGNORECASE)
_HEX = re.compile(r"^#([0-9a-f]{3}|[0-9a-f]{6})$", re.IGNORECASE)

Lab = tuple[float, float, float]


def _lms_cubed(lightness: float, a: float, b: float) -> Lab:
    l_ = lightness + 0.3963377774 * a + 0.2158037573 * b
    m_ = lightness - 0.1055613458 * a - 0.0638541728 * b
    s_ = lightness - 0.0894841775 * a - 1.2914855480 * b
    return l_**3, m_**3, s_**3


def oklab_to_linear_srgb(lightness: float, a: float, b: float) -> Lab:
    long_, medium, short = _lms_cubed(lightness, a, b)
    return (
        4.0767416621 * long_ - 3.3077115913 * medium + 0.2309699292 * short,
        -1.2684380046 * long_ + 2.6097574011 * medium - 0.3413193965 * short,
        -0.0041960863 * long_ - 0.7034186147 * medium + 1.7076147010 * short,
    )


def _encode(channel: float) -> int:
    """Linear light to an 8-bit sRGB channel, clamped to the gamut."""
    channel = min(1.0, max(0.0, channel))
    value = 12.92 * channel if channel <= 0.0031308 else 1.055 * channel ** (1 / 2.4) - 0.055
    return round(min(1.0, max(0.0, value)) * 255)


def _hex(linear: Lab) -> str:
    return "#{:02x}{:02x}{:02x}".format(*(_encode(channel) for channel in linear))


def _in_gamut(linear: Lab) -> bool:
    return all(-1e-7 <= channel <= 1 + 1e-7 for channel in linear)


def oklch_to_hex(lightness: float, chroma: float, hue_degrees: float) -> str:
    """The sRGB colour; outside the gamut the chroma is reduced (hue and lightness kept), as Pi does."""
    hue = math.radians(hue_degrees)
    a, b = math.cos(hue), math.sin(hue)
    lightness = min(1.0, max(0.0, lightness))
    chroma = max(0.0, chroma)
    linear = oklab_to_linear_srgb(lightness, chroma * a, chroma * b)
    if not _in_gamut(linear):
        low, high = 0.0, chroma  # bisection: chroma 0 (a grey) is always inside
        for _ in range(40):
            middle = (low + high) / 2
            if _in_gamut(oklab_to_linear_srgb(lightness, middle * a, middle * b)):
                low = middle
            else:
                high = middle
        linear = oklab_to_linear_srgb(lightness, low * a, low * b)
    return _hex(linear)


# --- OKHSL: saturation relative to the largest chroma sRGB allows at that hue and lightness ---

_K1, _K2 = 0.206, 0.03
_K3 = (1 + _K1) / (1 + _K2)


def _toe_inv(x: float) -> float:
    return (x * x + _K1 * x) / (_K3 * (x + _K2))


def _max_saturation(a: float, b: float) -> float:
    """Largest S = C/L in sRGB for the hue (a, b): a polynomial guess refined by one Halley step."""
    if -1.88170328 * a - 0.80936493 * b > 1:  # red is the first channel to clip
        k = (1.19086277, 1.76576728, 0.59662641, 0.75515197, 0.56771245)
        w = (4.0767416621, -3.3077115913, 0.2309699292)
    elif 1.81444104 * a - 1.19445276 * b > 1:  # green
        k = (0.73956515, -0.45954404, 0.08285427, 0.12541070, 0.14503204)
        w = (-1.2684380046, 2.6097574011, -0.3413193965)
    else:  # blue
        k = (1.35733652, -0.00915799, -1.15130210, -0.50559606, 0.00692167)
        w = (-0.0041960863, -0.7034186147, 1.7076147010)
    saturation = k[0] + k[1] * a + k[2] * b + k[3] * a * a + k[4] * a * b
    k_lms = (
        0.3963377774 * a + 0.2158037573 * b,
        -0.1055613458 * a - 0.0638541728 * b,
        -0.0894841775 * a - 1.2914855480 * b,
    )
    roots = [1 + saturation * kc for kc in k_lms]
    f = sum(wc * r**3 for wc, r in zip(w, roots, strict=True))
    f1 = sum(wc * 3 * kc * r * r for wc, kc, r in zip(w, k_lms, roots, strict=True))
    f2 = sum(wc * 6 * kc * kc * r for wc, kc, r in zip(w, k_lms, roots, strict=True))
    return saturation - f * f1 / (f1 * f1 - 0.5 * f * f2)


def _cusp(a: float, b: float) -> tuple[float, float]:
    """Lightness and chroma of the most saturated sRGB colour of the hue."""
    saturation = _max_saturation(a, b)
    peak = max(oklab_to_linear_srgb(1, saturation * a, saturation * b))
    lightness = (1 / peak) ** (1 / 3)
    return lightness, lightness * saturation


def _gamut_intersection(a: float, b: float, lightness: float, cusp: tuple[float, float]) -> float:
    """Largest chroma inside sRGB at ``lightness`` for the hue (a, b) (a ray of constant lightness)."""
    cusp_l, cusp_c = cusp
    if lightness <= cusp_l:
        return cusp_c * lightness / cusp_l  # below the cusp the gamut edge is a straight line to black
    t = cusp_c * (lightness - 1) / (cusp_l - 1)  # the straight line to white: a first guess
    # Above the cusp the edge is curved: refine with one Halley step per channel, keep the first hit.
    k_lms = (
        0.3963377774 * a + 0.2158037573 * b,
        -0.1055613458 * a - 0.0638541728 * b,
        -0.0894841775 * a - 1.2914855480 * b,
    )
    roots = [lightness + t * kc for kc in k_lms]
    cubes = [r**3 for r in roots]
    d1 = [3 * kc * r * r for kc, r in zip(k_lms, roots, strict=True)]
    d2 = [6 * kc * kc * r for kc, r in zip(k_lms, roots, strict=True)]
    rows = (
        (4.0767416621, -3.3077115913, 0.2309699292),
        (-1.2684380046, 2.6097574011, -0.3413193965),
        (-0.0041960863, -0.7034186147, 1.7076147010),
    )
    best = math.inf
    for row in rows:
        value = sum(w * c for w, c in zip(row, cubes, strict=True)) - 1
        first = sum(w * c for w, c in zip(row, d1, strict=True))
        second = sum(w * c for w, c in zip(row, d2, strict=True))
        step = first / (first * first - 0.5 * value * second)
        if step >= 0:
            best = min(best, -value * step)
    return t + (best if best != math.inf else 0.0)


def _st_mid(a: float, b: float) -> tuple[float, float]:
    """Ottosson's smooth approximation of the cusp's S and T, used for the middle of the saturation scale."""
    s = 0.11516993 + 1 / (
        7.44778970 + 4.15901240 * b
        + a * (-2.19557347 + 1.75198401 * b + a * (-2.13704948 - 10.02301043 * b
                                                   + a * (-4.24894561 + 5.38770819 * b + 4.69891013 * a)))
    )  # fmt: skip
    t = 0.11239642 + 1 / (
        1.61320320 - 0.68124379 * b
        + a * (0.40370612 + 0.90148123 * b + a * (-0.27087943 + 0.61223990 * b
                                                  + a * (0.00299215 - 0.45399568 * b - 0.14661872 * a)))
    )  # fmt: skip
    return s, t


def _chroma_scale(lightness: float, a: float, b: float) -> tuple[float, float, float]:
    """The chroma of OKHSL saturation 0.8 reference points: (C_0, C_mid, C_max)."""
    cusp = _cusp(a, b)
    c_max = _gamut_intersection(a, b, lightness, cusp)
    cusp_l, cusp_c = cusp
    s_max, t_max = cusp_c / cusp_l, cusp_c / (1 - cusp_l)
    k = c_max / min(lightness * s_max, (1 - lightness) * t_max)
    s_mid, t_mid = _st_mid(a, b)
    c_a, c_b = lightness * s_mid, (1 - lightness) * t_mid
    c_mid = 0.9 * k * math.sqrt(math.sqrt(1 / (1 / c_a**4 + 1 / c_b**4)))
    c_a, c_b = lightness * 0.4, (1 - lightness) * 0.8
    c_0 = math.sqrt(1 / (1 / c_a**2 + 1 / c_b**2))
    return c_0, c_mid, c_max


def okhsl_to_hex(hue_degrees: float, saturation: float, lightness: float) -> str:
    saturation = min(1.0, max(0.0, saturation))
    if lightness >= 1:
        return "#ffffff"
    if lightness <= 0:
        return "#000000"
    hue = math.radians(hue_degrees)
    a_, b_ = math.cos(hue), math.sin(hue)
    big_l = _toe_inv(lightness)
    if saturation == 0:
        return _hex(oklab_to_linear_srgb(big_l, 0, 0))
    c_0, c_mid, c_max = _chroma_scale(big_l, a_, b_)
    mid, mid_inv = 0.8, 1.25
    if saturation < mid:
        t = mid_inv * saturation
        k_1 = mid * c_0
        k_2 = 1 - k_1 / c_mid
        chroma = t * k_1 / (1 - k_2 * t)
    else:
        t = (saturation - mid) / (1 - mid)
        k_1 = (1 - mid) * c_mid * c_mid * mid_inv * mid_inv / c_0
        k_2 = 1 - k_1 / (c_max - c_mid)
        chroma = c_mid + t * k_1 / (1 - k_2 * t)
    return _hex(oklab_to_linear_srgb(big_l, chroma * a_, chroma * b_))


def parse_color_string(value: str) -> str | None:
    """``#rrggbb`` for ``#rgb``, ``#rrggbb``, ``oklch(...)`` or ``okhsl(...)``; None for anything else."""
    text = value.strip()
    match = _HEX.match(text)
    if match:
        digits = match.group(1)
        if len(digits) == 3:
            digits = "".join(d * 2 for d in digits)
        return "#" + digits.lower()
    # Like Pi, lightness and saturation outside 0-1 (0%-100%) and negative chroma are invalid.
    match = _OKLCH.match(text)
    if match:
        lightness = float(match.group(1)) / (100 if match.group(2) else 1)
        chroma, hue = float(match.group(3)), float(match.group(4))
        if not (0 <= lightness <= 1 and chroma >= 0 and math.isfinite(hue)):
            return None
        return oklch_to_hex(lightness, chroma, hue)
    match = _OKHSL.match(text)
    if match:
        hue = float(match.group(1))
        saturation = float(match.group(2)) / (100 if match.group(3) else 1)
        lightness = float(match.group(4)) / (100 if match.group(5) else 1)
        if not (0 <= saturation <= 1 and 0 <= lightness <= 1 and math.isfinite(hue)):
            return None
        return okhsl_to_hex(hue, saturation, lightness)
    return None
