"""The desktop window: views, item models and workers over the Qt-free core."""

from __future__ import annotations

import sys


def _pin_singletons() -> None:
    """Keep None, True and False alive whatever the Qt bindings do to their counts.

    PySide6 6.12 returns None from void methods (beginInsertRows, endMoveRows,
    setObjectName, ...) and True from signal emits without the new reference CPython before
    3.12 needs; 3.12 made these objects immortal, so nothing shows there. On 3.11 every such
    call takes one reference away for good, and after a few thousand (a library of a few
    thousand files in the window) the interpreter frees None and aborts. A large count set
    once is what 3.12 does: they are never freed, which they never are anyway.
    """
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return
    import ctypes

    for obj in (None, True, False):
        # ob_refcnt, the first field of every object, a Py_ssize_t.
        ctypes.c_ssize_t.from_address(id(obj)).value += 1 << 40


_pin_singletons()
