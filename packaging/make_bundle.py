"""Build the installed app: prepare the models, render the icons, run PyInstaller, pack it.

Usage: python packaging/make_bundle.py [--no-archive]

Writes dist/desktop-rag/ (the one-folder app; its executable is dist/desktop-rag/desktop-rag,
or desktop-rag.exe and "Desktop RAG.exe" on Windows, and dist/Desktop RAG.app on macOS). On
Linux it adds the installer script, menu entry and icons to that folder and packs it as
dist/desktop-rag-VERSION-linux-ARCH.tar.gz. Prints the bundle's size by top-level entry and
keeps it in build/size.json. The same script runs on Windows and macOS (packaging/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from make_icons import make_icons
from prebuild import prebuild

from desktop_rag import __version__

REPO = Path(__file__).resolve().parents[1]
BUILD = REPO / "build"
DIST = REPO / "dist"
BUNDLE = DIST / "desktop-rag"
LINUX = REPO / "packaging" / "linux"


def run_pyinstaller(prebuilt: Path, icons: Path) -> None:
    env = {
        **os.environ,
        "DESKTOP_RAG_PREBUILT": str(prebuilt),
        "DESKTOP_RAG_ICONS": str(icons),
        "DESKTOP_RAG_VERSION": __version__,
    }
    subprocess.run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--log-level=WARN",
            "--distpath",
            str(DIST),
            "--workpath",
            str(BUILD / "pyinstaller"),
            str(REPO / "packaging" / "desktop-rag.spec"),
        ],
        env=env,
        check=True,
    )


def add_linux_files(bundle: Path, icons: Path) -> None:
    """What install.sh needs beside the executable, so the unpacked archive installs itself."""
    shutil.copy2(LINUX / "install.sh", bundle / "install.sh")
    shutil.copy2(LINUX / "desktop-rag.desktop", bundle / "desktop-rag.desktop")
    shutil.copy2(REPO / "resources" / "icons" / "app.svg", bundle / "desktop-rag.svg")
    shutil.copy2(icons / "desktop-rag.png", bundle / "desktop-rag.png")


def archive(bundle: Path) -> Path:
    """The folder as a tar.gz whose single top-level entry is desktop-rag/."""
    arch = platform.machine().lower() or "unknown"
    target = bundle.parent / f"desktop-rag-{__version__}-linux-{arch}.tar.gz"
    tmp = target.with_name(target.name + ".part")
    with tarfile.open(tmp, "w:gz", compresslevel=6) as tar:
        tar.add(bundle, arcname=bundle.name)
    os.replace(tmp, target)
    return target


def disk_usage(path: Path) -> int:
    """Bytes on disk under path, counting hard-linked files once and symlinks as links."""
    if path.is_symlink() or path.is_file():
        return path.lstat().st_size
    seen: set[tuple[int, int]] = set()
    total = 0
    for folder, _dirs, files in os.walk(path):
        for name in files:
            st = os.lstat(os.path.join(folder, name))
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_size
    return total


def size_report(bundle: Path, top: int = 15) -> dict[str, object]:
    """The bundle's size and its largest top-level entries (inside _internal/), in MiB."""
    inner = bundle / "_internal"
    entries = {p.name: disk_usage(p) for p in inner.iterdir()} if inner.is_dir() else {}
    largest = sorted(entries.items(), key=lambda kv: kv[1], reverse=True)[:top]
    prebuilt = inner / "prebuilt"
    models = [
        *prebuilt.glob("llm/*.gguf"),
        *prebuilt.glob("embedder/onnx-*"),
        *prebuilt.glob("multilingual/onnx-*"),
    ]
    return {
        "total_mib": _mib(disk_usage(bundle)),
        "largest_mib": {name: _mib(size) for name, size in largest},
        "models_mib": {p.relative_to(prebuilt).as_posix(): _mib(disk_usage(p)) for p in models},
    }


def _mib(size: int) -> float:
    return round(size / 2**20, 1)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-archive", action="store_true", help="skip the Linux tar.gz")
    args = parser.parse_args(argv)
    t0 = time.monotonic()
    prebuilt, icons = BUILD / "prebuilt", BUILD / "icons"
    print("preparing the models (assembled GGUF, ONNX exports)", flush=True)
    print(json.dumps(prebuild(prebuilt)), flush=True)
    make_icons(icons)
    print("running PyInstaller", flush=True)
    shutil.rmtree(BUNDLE, ignore_errors=True)
    run_pyinstaller(prebuilt, icons)
    figures: dict[str, object] = {"build_s": 0.0, **size_report(BUNDLE)}
    if sys.platform.startswith("linux"):
        add_linux_files(BUNDLE, icons)
        if not args.no_archive:
            t1 = time.monotonic()
            target = archive(BUNDLE)
            figures["archive"] = target.name
            figures["archive_mib"] = _mib(target.stat().st_size)
            figures["archive_s"] = round(time.monotonic() - t1, 1)
    figures["build_s"] = round(time.monotonic() - t0, 1)
    (BUILD / "size.json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
