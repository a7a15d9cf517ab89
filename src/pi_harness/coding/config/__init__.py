"""Configuration of the coding agent: paths, settings, trust, credentials and models."""
