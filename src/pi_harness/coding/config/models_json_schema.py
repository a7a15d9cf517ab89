"""The shape of models.json (Pi 1.4's fields, docs: models-configuration.md).

``check_models_json`` walks a parsed file and returns two lists: *problems* (a value of the wrong
type; the file is then rejected, with Pi's message format ``<dotted.path>: must be <type>``) and
*unknown* (field paths Pi's schema does not define; Pi ignores them silently, we report them as
warnings so a typo does not go unnoticed, and otherwise ignore them too).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")

Checker = Callable[[Any, str, "Report"], None]


class Report:
    def __init__(self) -> None:
        self.problems: list[tuple[str, str]] = []
        self.unknown: list[str] = []


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    return "array" if isinstance(value, list) else "null"


def _kind(expected: str) -> Checker:
    def check(value: Any, where: str, report: Report) -> None:
        actual = _json_type(value)
        ok = actual == expected or (expected == "integer" and actual == "number" and float(value).is_integer())
        if not ok:
            report.problems.append((where, f"must be {expected}"))

    return check


STRING, BOOLEAN, NUMBER, INTEGER, OBJECT, ARRAY = (
    _kind(k) for k in ("string", "boolean", "number", "integer", "object", "array")
)


def _object(fields: dict[str, Checker], required: tuple[str, ...] = (), *, open_keys: Checker | None = None) -> Checker:
    """An object with known ``fields``; ``open_keys`` checks every key when the keys are free."""

    def check(value: Any, where: str, report: Report) -> None:
        if not isinstance(value, dict):
            report.problems.append((where, "must be object"))
            return
        for name in required:
            if name not in value:
                report.problems.append((f"{where}.{name}", f"must have required properties {name}"))
        for key, item in value.items():
            path = f"{where}.{key}"
            if open_keys is not None:
                open_keys(item, path, report)
            elif key in fields:
                fields[key](item, path, report)
            else:
                report.unknown.append(path)

    return check


def _array(items: Checker) -> Checker:
    def check(value: Any, where: str, report: Report) -> None:
        if not isinstance(value, list):
            report.problems.append((where, "must be array"))
            return
        for index, item in enumerate(value):
            items(item, f"{where}.{index}", report)

    return check


def _any(value: Any, where: str, report: Report) -> None:
    return None


def _string_or_null(value: Any, where: str, report: Report) -> None:
    if value is not None and not isinstance(value, str):
        report.problems.append((where, "must be string or null"))


_RATES = {"input": NUMBER, "output": NUMBER, "cacheRead": NUMBER, "cacheWrite": NUMBER}
_TIER = _object({"inputTokensAbove": NUMBER, **_RATES}, ("inputTokensAbove", *_RATES))
_COST = _object({**_RATES, "cacheWrite1h": NUMBER, "tiers": _array(_TIER)})
_RESIZE = _object({"maxWidth": INTEGER, "maxHeight": INTEGER, "maxBytes": INTEGER, "jpegQuality": INTEGER})
_IMAGES = _object({"resize": _RESIZE, "maxPerMessage": INTEGER, "maxPerRequest": INTEGER})
_INPUT_LIMITS = _object({"maxRequestBytes": INTEGER, "images": _IMAGES})
_PROMPT_CACHE = _object({"short": NUMBER, "long": NUMBER})
_SAMPLING = _object({}, open_keys=_any)
_SAMPLING_BY_LEVEL = _object(dict.fromkeys(THINKING_LEVELS, _SAMPLING))
_THINKING_MAP = _object(dict.fromkeys(THINKING_LEVELS, _string_or_null))
_HEADERS = _object({}, open_keys=STRING)
# compat flags differ per API and grow with every Pi release; their values are checked by the
# providers that read them, so any key is accepted here.
_COMPAT = _object({}, open_keys=_any)

_MODEL_FIELDS: dict[str, Checker] = {
    "name": STRING,
    "reasoning": BOOLEAN,
    "thinkingLevelMap": _THINKING_MAP,
    "input": _array(STRING),
    "inputLimits": _INPUT_LIMITS,
    "cost": _COST,
    "promptCache": _PROMPT_CACHE,
    "contextWindow": NUMBER,
    "maxTokens": NUMBER,
    "samplingParams": _SAMPLING,
    "samplingParamsByThinkingLevel": _SAMPLING_BY_LEVEL,
    "headers": _HEADERS,
    "compat": _COMPAT,
}
_MODEL = _object({"id": STRING, "api": STRING, "baseUrl": STRING, **_MODEL_FIELDS}, ("id",))
_OVERRIDE = _object(_MODEL_FIELDS)
_PROVIDER = _object(
    {
        "name": STRING,
        "baseUrl": STRING,
        "apiKey": STRING,
        "api": STRING,
        "oauth": STRING,
        "headers": _HEADERS,
        "compat": _COMPAT,
        "authHeader": BOOLEAN,
        "models": _array(_MODEL),
        "modelOverrides": _object({}, open_keys=_OVERRIDE),
    }
)
_ROOT = _object({"$schema": STRING, "providers": _object({}, open_keys=_PROVIDER)}, ("providers",))


def check_models_json(data: Any) -> Report:
    report = Report()
    if isinstance(data, dict) and "providers" not in data:
        data = {**data, "providers": {}}  # an empty file (``{}``) is valid
    if not isinstance(data, dict):
        report.problems.append(("root", "must be object"))
        return report
    _ROOT(data, "", report)
    report.problems = [(where.lstrip("."), what) for where, what in report.problems]
    report.unknown = [where.lstrip(".") for where in report.unknown]
    return report
