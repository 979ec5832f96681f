"""The window's system libraries, checked before Qt starts (issue 31: Qt aborted, naming only
libxcb-cursor0, on a Debian that lacked libxcb-icccm4 and libxcb-keysyms1)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from desktop_rag.infra.display import XCB_LIBRARIES, check, missing_packages, uses_xcb

REPO = Path(__file__).resolve().parents[3]


def test_the_missing_libraries_are_named_by_their_debian_packages() -> None:
    absent = {"libxcb-icccm.so.4", "libxcb-keysyms.so.1"}
    message = check({"DISPLAY": ":0"}, loads=lambda soname: soname not in absent)
    assert "sudo apt-get install libxcb-icccm4 libxcb-keysyms1" in message
    assert "libxcb-cursor0" not in message
    assert check({"DISPLAY": ":0"}, loads=lambda soname: True) == ""
    assert missing_packages(lambda soname: soname != "libxcb-cursor.so.0") == ["libxcb-cursor0"]


def test_only_the_xcb_platform_is_checked() -> None:
    assert uses_xcb({"DISPLAY": ":0"}, "linux")
    assert uses_xcb({"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "wayland-0"}, "linux")
    assert not uses_xcb({"WAYLAND_DISPLAY": "wayland-0"}, "linux")
    assert not uses_xcb({"QT_QPA_PLATFORM": "offscreen"}, "linux")
    assert not uses_xcb({"DISPLAY": ":0"}, "win32")
    assert check({"QT_QPA_PLATFORM": "offscreen"}, loads=lambda soname: False) == ""


def test_every_library_is_found_on_this_machine() -> None:
    # The machine the tests run on has the window's packages: nothing is reported missing.
    assert missing_packages() == [], "install them, or the list names a wrong soname"
    assert len(XCB_LIBRARIES) >= 3


def test_the_window_says_what_to_install_instead_of_aborting(tmp_path: Path) -> None:
    # A library that cannot be loaded, as if its package were not installed: Qt's xcb plugin
    # fails to load it and Qt aborts the process (SIGABRT) with a hint naming libxcb-cursor0.
    broken = tmp_path / "lib"
    broken.mkdir()
    (broken / "libxcb-icccm.so.4").write_bytes(b"not a library")
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "xcb",
        "DISPLAY": ":97",
        "LD_LIBRARY_PATH": str(broken),
        "PYTHONPATH": str(REPO),
        "HOME": str(tmp_path / "home"),
        "DESKTOP_RAG_CONFIG_DIR": str(tmp_path / "config"),
        "DESKTOP_RAG_LOG_DIR": str(tmp_path / "logs"),
        "XDG_DOCUMENTS_DIR": str(tmp_path / "Documents"),
    }
    env.pop("WAYLAND_DISPLAY", None)
    done = subprocess.run(
        [sys.executable, "-m", "desktop_rag", "--data-dir", str(tmp_path / "data")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])
    assert "sudo apt-get install libxcb-icccm4" in done.stderr, done.stderr[-2000:]
