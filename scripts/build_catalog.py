"""Build (or check) the package's model catalogue from the facts in ``shared/data``.

Usage:
    python scripts/build_catalog.py [SOURCE_JSON] [--check]

The source is Pi 0.73.1's catalogue dump (``{provider: [model, ...]}``). We keep only the
fields of a model descriptor (``FIELDS`` below), drop models without a usable API id, and write
``src/pi_harness/ai/catalog.json`` sorted by provider and id so diffs stay readable.
``--check`` exits 1 when the package file differs from what the source would produce.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "src" / "pi_harness" / "ai" / "catalog.json"
DEFAULT_SOURCE = ROOT.parent / "shared" / "data" / "model-catalog.json"
FIELDS = (
    "id",
    "name",
    "api",
    "provider",
    "baseUrl",
    "reasoning",
    "input",
    "cost",
    "contextWindow",
    "maxTokens",
    "headers",
    "compat",
    "thinkingLevelMap",
)
REQUIRED = (
    "id",
    "name",
    "api",
    "provider",
    "baseUrl",
    "reasoning",
    "input",
    "cost",
    "contextWindow",
    "maxTokens",
)


def build(source: Path) -> str:
    data = json.loads(source.read_text(encoding="utf-8"))
    out: dict[str, list[dict[str, object]]] = {}
    for provider in sorted(data):
        models = []
        for model in sorted(data[provider], key=lambda m: m["id"]):
            missing = [f for f in REQUIRED if f not in model]
            if missing:
                raise SystemExit(f"{provider}/{model.get('id')}: missing {', '.join(missing)}")
            models.append({f: model[f] for f in FIELDS if f in model})
        out[provider] = models
    return json.dumps(out, ensure_ascii=False, separators=(",", ":"), sort_keys=False) + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    args = [a for a in argv if not a.startswith("--")]
    source = Path(args[0]) if args else DEFAULT_SOURCE
    text = build(source)
    if check:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET} is out of date; run scripts/build_catalog.py", file=sys.stderr)
            return 1
        print("catalogue up to date")
        return 0
    TARGET.write_text(text, encoding="utf-8")
    count = sum(len(v) for v in json.loads(text).values())
    print(f"wrote {TARGET.relative_to(ROOT)}: {len(json.loads(text))} providers, {count} models")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
