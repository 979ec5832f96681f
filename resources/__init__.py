"""Bundled resources (icons, the user guide), installed as the package desktop_rag.resources."""
