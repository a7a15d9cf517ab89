"""Project and user resources: context files, SYSTEM.md, skills, prompt templates and the loader."""
