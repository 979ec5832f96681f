"""Logging: a rotating file in the user's log dir, and only warnings on the terminal."""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys

from desktop_rag.config import log_dir

_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def setup(verbose: bool = False, to_file: bool = True) -> None:
    """Idempotent. Document text is never logged above DEBUG, and only as short excerpts."""
    # The Rust side of LanceDB logs to stderr on its own; keep it to errors unless asked.
    # lance reads LANCE_LOG; lancedb's own logger reads LANCEDB_LOG (its deprecation warnings
    # filled the window's stderr by the dozen).
    os.environ.setdefault("LANCE_LOG", "debug" if verbose else "error")
    os.environ.setdefault("LANCEDB_LOG", "debug" if verbose else "error")
    root = logging.getLogger()
    if getattr(root, "_desktop_rag", False):
        return
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(logging.DEBUG if verbose else logging.WARNING)
    console.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    root.addHandler(console)
    if to_file:
        try:
            folder = log_dir()
            folder.mkdir(parents=True, exist_ok=True)
            handler = logging.handlers.RotatingFileHandler(
                folder / "desktop-rag.log", maxBytes=2_000_000, backupCount=3, encoding="utf-8"
            )
            handler.setLevel(logging.DEBUG if verbose else logging.INFO)
            handler.setFormatter(logging.Formatter(_FORMAT))
            root.addHandler(handler)
        except OSError:
            pass  # a read-only home must not stop the app
    for noisy in ("pypdf", "httpx", "urllib3", "sentence_transformers", "transformers"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    root._desktop_rag = True  # type: ignore[attr-defined]
