"""The components of the interactive screen; each renders to lines with ``render(width)``."""
