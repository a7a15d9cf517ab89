"""Prompt-cache warming (placeholder, filled in below)."""
