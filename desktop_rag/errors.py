"""One root exception, and the one place that turns exceptions into user messages."""

from __future__ import annotations


class DesktopRagError(Exception):
    """An error the user can act on; its message says what happened and what to do."""


class UsageError(DesktopRagError):
    """The command was given something it cannot use (a missing path, a bad option)."""


class StoreError(DesktopRagError):
    """The index on disk cannot be read or written."""


class IndexMismatchError(StoreError):
    """The index was built by another schema, embedder or chunking: it needs a rebuild."""

    def __init__(self, message: str, found: object = None) -> None:
        super().__init__(message)
        self.found = found  # the IndexMeta on disk


class IndexDamagedError(StoreError):
    """The index files cannot be read; the index is rebuilt from the documents."""


class UnreachableError(StoreError):
    """A team library on object storage did not answer in time (down, hung or refusing)."""


class ReadOnlyError(StoreError):
    """A team library these credentials may read but not write."""


class ModelError(DesktopRagError):
    """A model file is missing, unreadable, not a GGUF, or too large for this machine."""


class EmptyLibraryError(DesktopRagError):
    """There is nothing indexed to answer from."""


class Cancelled(DesktopRagError):
    """The user cancelled a long job."""


class BusyError(DesktopRagError):
    """Another process holds the index for writing."""


def user_message(exc: BaseException) -> str:
    """A one-paragraph message for the user: ours verbatim, others named plainly."""
    if isinstance(exc, DesktopRagError):
        return str(exc)
    if isinstance(exc, PermissionError):
        name = getattr(exc, "filename", None) or "a file"
        return f"Permission denied: {name}. Check that you may read (and write) it."
    if isinstance(exc, FileNotFoundError):
        name = getattr(exc, "filename", None) or "a file"
        return f"Not found: {name}."
    if isinstance(exc, OSError) and exc.errno == 28:  # ENOSPC
        return "The disk is full. Free some space and try again; nothing was lost."
    if isinstance(exc, MemoryError):
        return "Out of memory. Close other programs or use a smaller model, then try again."
    text = str(exc).strip() or type(exc).__name__
    return f"Unexpected error ({type(exc).__name__}): {text}"
