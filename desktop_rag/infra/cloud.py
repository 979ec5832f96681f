"""Files whose contents live in the cloud only (OneDrive's and iCloud Drive's online-only files):
told apart by what the file system says of them, so a scan skips them instead of reading them,
which would download every one.

Windows marks such a placeholder with FILE_ATTRIBUTE_RECALL_ON_DATA_ACCESS (OneDrive's Files
On-Demand), FILE_ATTRIBUTE_RECALL_ON_OPEN, or the older FILE_ATTRIBUTE_OFFLINE, in the
attributes os.stat reports without opening the data. macOS marks a file iCloud keeps in the
cloud only as SF_DATALESS in its flags. Other systems have no such files.
"""

from __future__ import annotations

import os
import sys

FILE_ATTRIBUTE_OFFLINE = 0x00001000
FILE_ATTRIBUTE_RECALL_ON_OPEN = 0x00040000
FILE_ATTRIBUTE_RECALL_ON_DATA_ACCESS = 0x00400000
_WINDOWS_ONLINE_ONLY = (
    FILE_ATTRIBUTE_OFFLINE | FILE_ATTRIBUTE_RECALL_ON_OPEN | FILE_ATTRIBUTE_RECALL_ON_DATA_ACCESS
)
SF_DATALESS = 0x40000000  # sys/stat.h on macOS

WINDOWS_REASON = (
    "is online-only: its contents are in the cloud (OneDrive), not on this computer, and "
    "indexing does not download files. To index it, right-click it and choose "
    '"Always keep on this device"'
)
MACOS_REASON = (
    "is in iCloud Drive only, not on this Mac, and indexing does not download files. To "
    'index it, click "Download Now" on it in the Finder'
)


def online_only(st: os.stat_result, platform: str | None = None) -> str:
    """Why this file (as os.stat saw it) is skipped: "" when its contents are on this
    computer, else the reason to show, without a final period."""
    platform = platform or sys.platform
    if platform == "win32":
        if getattr(st, "st_file_attributes", 0) & _WINDOWS_ONLINE_ONLY:
            return WINDOWS_REASON
    elif platform == "darwin" and getattr(st, "st_flags", 0) & SF_DATALESS:
        return MACOS_REASON
    return ""
