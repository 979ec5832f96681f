"""Paths the way each file system takes them: Windows' 260-character limit, and names whose
case a case-insensitive file system (Windows, macOS) does not tell apart.

Windows refuses a path of MAX_PATH (260) characters or more unless the system and the program
both opt in to long paths; the `\\\\?\\` prefix lifts the limit for every call that takes it.
`long_path` adds it to the paths handed to the system and `plain_path` takes it off the paths
the system hands back, so the index, the window and the messages only ever see the plain path.

On a case-insensitive file system `report.pdf` opens `Report.pdf`: the same file reached under
two spellings would be two documents in the index. `disk_case` spells a path the way its
folders list it, so a root given in another case maps onto the files already indexed, and a
rename that only changes case is a rename (the listing shows the new spelling, the old one is
gone from it).
"""

from __future__ import annotations

import ntpath
import os
import sys
from collections.abc import Callable

# Windows' CreateDirectory allows MAX_PATH - 12 characters (room for an 8.3 file name); past
# that a folder's files cannot be opened without the prefix.
WINDOWS_LIMIT = 248
_PREFIX = "\\\\?\\"
_UNC_PREFIX = "\\\\?\\UNC\\"


def long_path(path: str, platform: str | None = None) -> str:
    """The path to hand to the system: on Windows, an absolute path at or past the limit gets
    the `\\\\?\\` prefix (`\\\\?\\UNC\\` for a network share); anything else is unchanged."""
    if (platform or sys.platform) != "win32" or len(path) < WINDOWS_LIMIT:
        return path
    if path.startswith(_PREFIX):
        return path
    full = ntpath.normpath(path)  # the prefix turns off Windows' own normalisation
    if full.startswith("\\\\"):
        return _UNC_PREFIX + full[2:]
    if ntpath.isabs(full) and ntpath.splitdrive(full)[0]:
        return _PREFIX + full
    return path  # relative: the caller makes it absolute first


def plain_path(path: str) -> str:
    """A path without the long-path prefix, as the user knows it."""
    if path.startswith(_UNC_PREFIX):
        return "\\\\" + path[len(_UNC_PREFIX) :]
    if path.startswith(_PREFIX):
        return path[len(_PREFIX) :]
    return path


def disk_case(
    path: str,
    exists: Callable[[str], bool] | None = None,
    listdir: Callable[[str], list[str]] | None = None,
) -> str:
    """The absolute path spelled as its folders list it. A name the folder lists exactly is
    kept (a case-sensitive file system never changes anything); a name that exists only in
    another case (a case-insensitive one) takes the listed spelling. A path that does not
    exist comes back as given. `exists` and `listdir`: os.path's and os's by default."""
    exists = exists or os.path.exists
    listdir = listdir or os.listdir
    if not exists(path):
        return path
    head, tail = os.path.split(path)
    if not tail or head == path:
        return path
    parent = disk_case(head, exists, listdir)
    try:
        names = listdir(parent)
    except OSError:
        return os.path.join(parent, tail)
    if tail not in names:
        folded = tail.casefold()
        same = [name for name in names if name.casefold() == folded]
        if len(same) == 1:
            tail = same[0]
    return os.path.join(parent, tail)


def normalize(path: str) -> str:
    """A path as the index stores it: absolute, with `..` folded, but symlinks kept (the path
    the user sees is the one shown), spelled as its folders list it, so a case-insensitive
    file system's other spellings of the same file are one path (`disk_case`)."""
    return disk_case(os.path.abspath(os.path.expanduser(path)))


def is_under(path: str, root: str) -> bool:
    """Whether `path` is `root` or inside it (both normalized)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
