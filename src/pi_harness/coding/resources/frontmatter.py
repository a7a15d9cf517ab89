"""YAML frontmatter (``---`` fenced block at the top of a markdown file)."""

from __future__ import annotations


class FrontmatterError(ValueError):
    pass


def split_frontmatter(text: str) -> tuple[dict[str, object], str]:
    """``(metadata, body)``; a file without frontmatter has empty metadata."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not (text.startswith("---\n") or text.startswith("---\r\n")):
        return {}, text
    lines = text.split("\n")
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r") == "---":
            raw = "\n".join(lines[1:index])
            body = "\n".join(lines[index + 1 :])
            return _parse_yaml(raw), body
    return {}, text


def _parse_yaml(raw: str) -> dict[str, object]:
    import yaml

    try:
        data = yaml.safe_load(raw) if raw.strip() else {}
    except yaml.YAMLError as exc:
        raise FrontmatterError(f"invalid frontmatter: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontmatterError("invalid frontmatter: not a mapping")
    return data
