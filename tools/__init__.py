"""Developer tools run from the repository root (python tools/NAME.py)."""
