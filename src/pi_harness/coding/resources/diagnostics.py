"""Diagnostics produced while loading resources: reported at startup, never fatal by themselves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class ResourceDiagnostic:
    kind: Literal["warning", "error", "collision", "info"]
    message: str
    path: str | None = None

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message
