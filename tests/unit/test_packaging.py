"""The Linux installer script and the generated icons, on a stand-in app (no bundle build)."""

from __future__ import annotations

import configparser
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LINUX = REPO / "packaging" / "linux"
sys.path.insert(0, str(REPO / "packaging"))

from make_icons import ICO_SIZES, make_icons  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _fake_app(folder: Path) -> Path:
    """What make_bundle.py leaves in dist/desktop-rag/, with a script for the executable."""
    (folder / "_internal").mkdir(parents=True)
    exe = folder / "desktop-rag"
    exe.write_text("#!/bin/sh\necho desktop-rag 0.1.0\n")
    exe.chmod(0o755)
    shutil.copy2(LINUX / "install.sh", folder / "install.sh")
    shutil.copy2(LINUX / "desktop-rag.desktop", folder / "desktop-rag.desktop")
    shutil.copy2(REPO / "resources" / "icons" / "app.svg", folder / "desktop-rag.svg")
    (folder / "desktop-rag.png").write_bytes(PNG_MAGIC)
    return folder


def _env(tmp_path: Path, prefix: Path) -> dict[str, str]:
    # Never the real home: every location the script writes is under tmp_path.
    return {
        "HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "share"),
        "PREFIX": str(prefix),
        "PATH": "/usr/bin:/bin",
    }


def _install(app: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", str(app / "install.sh"), *args], env=env, capture_output=True, text=True
    )


def test_install_puts_the_app_entry_and_icon_under_the_user_dirs(tmp_path):
    app = _fake_app(tmp_path / "unpacked" / "desktop-rag")
    prefix = tmp_path / "my apps"  # a space: Exec must quote the path
    env = _env(tmp_path, prefix)
    done = _install(app, env)
    assert done.returncode == 0, done.stderr
    installed = prefix / "lib" / "desktop-rag"
    link = prefix / "bin" / "desktop-rag"
    assert subprocess.run([str(link)], capture_output=True, text=True).stdout.strip() == (
        "desktop-rag 0.1.0"
    )
    entry = tmp_path / "share" / "applications" / "desktop-rag.desktop"
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(entry)
    section = parser["Desktop Entry"]
    assert section["Exec"] == f'"{installed}/desktop-rag"'
    assert section["TryExec"] == f"{installed}/desktop-rag"
    assert section["Icon"] == "desktop-rag"
    icons = tmp_path / "share" / "icons" / "hicolor"
    assert (icons / "scalable" / "apps" / "desktop-rag.svg").is_file()
    assert (icons / "256x256" / "apps" / "desktop-rag.png").is_file()
    if shutil.which("desktop-file-validate"):
        check = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True)
        assert check.returncode == 0 and not check.stdout, check.stdout


def test_uninstall_removes_what_install_added_and_nothing_else(tmp_path):
    app = _fake_app(tmp_path / "unpacked" / "desktop-rag")
    prefix = tmp_path / "prefix"
    env = _env(tmp_path, prefix)
    assert _install(app, env).returncode == 0
    keep = tmp_path / "share" / "desktop-rag" / "index"  # the user's data dir: not ours
    keep.mkdir(parents=True)
    done = _install(prefix / "lib" / "desktop-rag", env, "--uninstall")
    assert done.returncode == 0, done.stderr
    caches = {"mimeinfo.cache", "icon-theme.cache"}  # the desktop's own, rebuilt by its tools
    left = sorted(
        str(p.relative_to(tmp_path))
        for p in tmp_path.rglob("*")
        if (p.is_file() or p.is_symlink()) and p.name not in caches
    )
    assert all(p.startswith("unpacked/") for p in left), left
    assert keep.is_dir()


def test_a_folder_that_is_not_the_app_is_never_replaced_or_removed(tmp_path):
    app = _fake_app(tmp_path / "unpacked" / "desktop-rag")
    prefix = tmp_path / "prefix"
    foreign = prefix / "lib" / "desktop-rag"
    foreign.mkdir(parents=True)
    (foreign / "notes.txt").write_text("mine")
    env = _env(tmp_path, prefix)
    done = _install(app, env)
    assert done.returncode == 1 and "not Desktop RAG" in done.stderr
    done = _install(app, env, "--uninstall")
    assert done.returncode == 0 and "left" in done.stderr
    assert (foreign / "notes.txt").read_text() == "mine"


def test_the_icons_hold_png_images_at_every_size(tmp_path):
    paths = make_icons(tmp_path)
    assert paths["png"].read_bytes().startswith(PNG_MAGIC)

    ico = paths["ico"].read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", ico)
    assert (reserved, kind, count) == (0, 1, len(ICO_SIZES))
    for i, size in enumerate(sorted(ICO_SIZES)):
        width, _h, _c, _r, _p, _b, length, offset = struct.unpack_from("<BBBBHHII", ico, 6 + 16 * i)
        assert width == (0 if size == 256 else size)
        assert ico[offset : offset + length].startswith(PNG_MAGIC)

    icns = paths["icns"].read_bytes()
    assert icns[:4] == b"icns" and struct.unpack_from(">I", icns, 4)[0] == len(icns)
    pos, kinds = 8, []
    while pos < len(icns):
        kinds.append(icns[pos : pos + 4])
        length = struct.unpack_from(">I", icns, pos + 4)[0]
        assert icns[pos + 8 : pos + 16] == PNG_MAGIC
        pos += length
    assert pos == len(icns) and b"ic09" in kinds  # 512 px, what Finder shows large


def test_the_installer_is_valid_posix_shell():
    assert subprocess.run(["sh", "-n", str(LINUX / "install.sh")]).returncode == 0


def test_one_qt_the_ocr_engine_comes_without_opencv_python():
    """rapidocr requires opencv-python, whose wheel carries a Qt 5 beside
    PySide6's: the venv holds the headless OpenCV only, and the set-up keeps it that way."""
    import importlib.metadata as metadata
    import tomllib

    with pytest.raises(metadata.PackageNotFoundError):
        metadata.version("opencv-python")
    assert metadata.version("opencv-python-headless")
    import cv2

    assert not (Path(cv2.__file__).parent / "qt").exists()
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    names = [d.split("=")[0].split(">")[0].split("<")[0].strip().lower() for d in deps]
    assert "opencv-python" not in names and "rapidocr" not in names
    assert "opencv-python-headless" in names
    makefile = (REPO / "Makefile").read_text()
    assert 'pip install --quiet --no-deps "rapidocr==$(RAPIDOCR)"' in makefile
    assert metadata.version("rapidocr") in makefile


def _ldconfig(tmp_path: Path, libs: list[str]) -> dict[str, str]:
    """An environment whose ldconfig -p lists only these libraries."""
    tools = tmp_path / "tools"
    tools.mkdir()
    known = "".join(f"\\t{lib} (libc6,x86-64) => /usr/lib/{lib}\\n" for lib in libs)
    (tools / "ldconfig").write_text(f"#!/bin/sh\nprintf '{known}'\n")
    (tools / "ldconfig").chmod(0o755)
    env = _env(tmp_path, tmp_path / "apps")
    env["PATH"] = f"{tools}:/usr/bin:/bin"
    return env


def test_install_names_the_debian_packages_the_window_lacks(tmp_path):
    # A fresh Debian had libxcb-cursor0 (the one Qt's own message names) but not these two.
    from desktop_rag.infra.display import XCB_LIBRARIES

    app = _fake_app(tmp_path / "unpacked" / "desktop-rag")
    there = [lib for lib in XCB_LIBRARIES if "icccm" not in lib and "keysyms" not in lib]
    done = _install(app, _ldconfig(tmp_path, there))
    assert done.returncode == 0, done.stderr
    assert "sudo apt-get install" in done.stdout, done.stdout
    wanted = done.stdout.split("sudo apt-get install", 1)[1].splitlines()[0].split()
    assert wanted == ["libxcb-icccm4", "libxcb-keysyms1"]


def test_install_says_nothing_more_when_the_libraries_are_there(tmp_path):
    from desktop_rag.infra.display import XCB_LIBRARIES

    app = _fake_app(tmp_path / "unpacked" / "desktop-rag")
    done = _install(app, _ldconfig(tmp_path, list(XCB_LIBRARIES)))
    assert done.returncode == 0 and "apt-get" not in done.stdout, done.stdout


def test_the_installer_and_the_app_check_the_same_libraries():
    from desktop_rag.infra.display import XCB_LIBRARIES

    script = (LINUX / "install.sh").read_text()
    listed = script.split('XCB_LIBS="', 1)[1].split('"', 1)[0].split()
    assert dict(pair.split(":") for pair in listed) == XCB_LIBRARIES
