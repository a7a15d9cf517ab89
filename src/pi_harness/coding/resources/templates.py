"""Prompt templates: ``/name args`` expands a markdown file (docs/prompt-templates.md)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pi_harness.coding.resources.diagnostics import ResourceDiagnostic
from pi_harness.coding.resources.frontmatter import FrontmatterError, split_frontmatter

TemplateSource = Literal["user", "project", "path", "package"]


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    description: str
    content: str
    file_path: str
    source: TemplateSource


def _description(meta: dict[str, object], body: str) -> str:
    """The frontmatter ``description``, else the first non-empty line (60 characters at most).

    Where the template comes from is not part of it: hosts show ``sourceInfo`` as they like.
    """
    text = meta.get("description")
    if isinstance(text, str) and text.strip():
        return text.strip()
    first = next((line.strip() for line in body.splitlines() if line.strip()), "")
    return first if len(first) <= 60 else first[:60] + "..."


def load_template_file(
    path: Path, source: TemplateSource, diagnostics: list[ResourceDiagnostic]
) -> PromptTemplate | None:
    try:
        meta, body = split_frontmatter(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, FrontmatterError) as exc:
        diagnostics.append(ResourceDiagnostic("warning", str(exc), str(path)))
        return None
    return PromptTemplate(path.stem, _description(meta, body), body, str(path.resolve()), source)


def load_templates(
    locations: Iterable[tuple[Path, TemplateSource]], diagnostics: list[ResourceDiagnostic]
) -> list[PromptTemplate]:
    """Templates from files or (non-recursively) directories; first name wins."""
    out: list[PromptTemplate] = []
    names: set[str] = set()
    for location, source in locations:
        if location.is_dir():
            files = sorted(p for p in location.iterdir() if p.suffix == ".md" and p.is_file())
        elif location.is_file():
            files = [location]
        else:
            continue
        for path in files:
            template = load_template_file(path, source, diagnostics)
            if template is None:
                continue
            if template.name in names:
                diagnostics.append(
                    ResourceDiagnostic("collision", f'name "/{template.name}" collision', template.file_path)
                )
                continue
            names.add(template.name)
            out.append(template)
    return out


def split_args(text: str) -> list[str]:
    """Split on spaces/tabs; '…' or "…" group words (quotes removed, no escapes)."""
    args: list[str] = []
    current: list[str] = []
    quote: str | None = None
    has_token = False
    for ch in text:
        if quote is not None:
            if ch == quote:
                quote = None
            else:
                current.append(ch)
        elif ch in "'\"":
            quote = ch
            has_token = True
        elif ch in " \t":
            if current or has_token:
                args.append("".join(current))
                current, has_token = [], False
        else:
            current.append(ch)
    if current or has_token:
        args.append("".join(current))
    return args


_PATTERN = re.compile(r"\$\{(\d+):-([^}]*)\}|\$\{@:(\d+)(?::(\d+))?\}|\$ARGUMENTS|\$@|\$(\d+)")


def substitute(body: str, args: list[str]) -> str:
    """One pass over the template body, so substituted values are never re-substituted."""

    def replace(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            index = int(match.group(1))
            value = args[index - 1] if 0 < index <= len(args) else ""
            return value if value else match.group(2)
        if match.group(3) is not None:
            start = max(1, int(match.group(3))) - 1
            if match.group(4) is not None:
                return " ".join(args[start : start + int(match.group(4))])
            return " ".join(args[start:])
        if match.group(5) is not None:
            index = int(match.group(5))
            return args[index - 1] if 0 < index <= len(args) else ""
        return " ".join(args)

    return _PATTERN.sub(replace, body)


def expand_template(text: str, templates: Iterable[PromptTemplate]) -> str:
    """``/name args`` → the substituted template body; anything else unchanged."""
    if not text.startswith("/"):
        return text
    name, _, rest = text[1:].partition(" ")
    if "\n" in name:
        name, _, tail = name.partition("\n")
        rest = tail + (" " + rest if rest else "")
    template = next((t for t in templates if t.name == name), None)
    if template is None:
        return text
    return substitute(template.content, split_args(rest))
