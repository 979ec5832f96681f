"""What the window needs from the system before Qt starts: the X11 (xcb) libraries Qt's xcb
platform plugin loads, named by the Debian packages that hold them.

Qt aborts the process when its platform plugin cannot load, and its own hint names only
libxcb-cursor0; a fresh Debian also lacks libxcb-icccm4 and libxcb-keysyms1. Each library is
opened here the way the plugin opens it (dlopen by its soname), so what is missing is said in
words a user can act on, before Qt is asked to start.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

# soname -> the Debian (and Ubuntu) package holding it: what Qt 6's xcb plugin loads
# (`ldd` of libqxcb.so and libQt6XcbQpa.so.6 in PySide6 6.12).
XCB_LIBRARIES: dict[str, str] = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb.so.1": "libxcb1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
}


def uses_xcb(environ: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """Whether Qt will load its xcb plugin: Linux, and X11 asked for or chosen by default
    (Qt prefers Wayland when a Wayland session is there and nothing else is asked)."""
    env = os.environ if environ is None else environ
    if not (platform or sys.platform).startswith("linux"):
        return False
    asked = env.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if asked:
        return asked == "xcb"
    return not env.get("WAYLAND_DISPLAY")


def _loads(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        pass
    else:
        return True
    # A frozen build may carry the library in its own folder, beside Qt's.
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        for folder in (Path(bundle), Path(bundle) / "PySide6" / "Qt" / "lib"):
            try:
                ctypes.CDLL(str(folder / soname))
            except OSError:
                continue
            return True
    return False


def missing_packages(loads: Callable[[str], bool] = _loads) -> list[str]:
    """The Debian packages whose libraries the xcb plugin needs and cannot load, in order."""
    return [package for soname, package in XCB_LIBRARIES.items() if not loads(soname)]


def missing_message(packages: Sequence[str]) -> str:
    """What to tell the user, with the command that fixes it."""
    one = len(packages) == 1
    sonames = ", ".join(s for s, p in XCB_LIBRARIES.items() if p in packages)
    return (
        "Desktop RAG cannot open its window: this system lacks "
        + ("a library" if one else f"{len(packages)} libraries")
        + " that Qt needs to show windows on X11.\n"
        + f"On Debian or Ubuntu, install {'it' if one else 'them'} with:\n\n"
        + f"    sudo apt-get install {' '.join(packages)}\n\n"
        + f"(Elsewhere, install what provides {sonames}.) "
        + "The command line works without them: desktop-rag --help."
    )


def check(environ: Mapping[str, str] | None = None, loads: Callable[[str], bool] = _loads) -> str:
    """ "" when the window can start here, else the message saying what to install."""
    if not uses_xcb(environ):
        return ""
    missing = missing_packages(loads)
    return missing_message(missing) if missing else ""
