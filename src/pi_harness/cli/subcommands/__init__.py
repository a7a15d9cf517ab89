"""Subcommands that run instead of a session (``pi auth …``, ``pi config …``)."""
