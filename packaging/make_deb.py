"""Build dist/desktop-rag_VERSION_ARCH.deb from the bundle (dist/desktop-rag/) with dpkg-deb.

The package installs the bundle in /opt/desktop-rag/, links /usr/bin/desktop-rag to its
executable, and adds the menu entry and the icon under /usr/share. It has no maintainer
scripts: Debian's own triggers (desktop-file-utils, hicolor-icon-theme) refresh the menu and
icon caches when those folders change, so `dpkg -r desktop-rag` leaves nothing behind (the
user's index and settings are in their home and stay, as with install.sh --uninstall).

Depends: the X11 (xcb) libraries Qt's xcb plugin loads (desktop_rag/infra/display.py's list,
which the app checks too), and the Debian packages of every other system library the bundle's
binaries link (found with ldd, named by dpkg -S), glibc at the version it was built against.

    python packaging/make_deb.py [--bundle dist/desktop-rag] [--out dist]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from desktop_rag import __version__  # noqa: E402
from desktop_rag.infra.display import XCB_LIBRARIES  # noqa: E402

PACKAGE = "desktop-rag"
PREFIX = Path("opt") / PACKAGE
MAINTAINER = "Desktop RAG <desktop-rag@localhost>"
DESCRIPTION = """Private, offline answers from your own documents
 Desktop RAG indexes your PDFs, Word, OpenDocument, EPUB, HTML, Markdown and text files and
 answers questions about them, citing the file and page, with everything on your computer:
 no network access, ever. It carries its own Python, Qt, llama.cpp and models."""
# Libraries any Debian system has, or that the bundle only opens when the system has them
# (GTK's theme plugin is left out of the bundle; OpenGL drivers come with the desktop).
IGNORED_PACKAGES = frozenset({"libc6"})
COPYRIGHT = """Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: desktop-rag

Files: *
License: Apache-2.0
 On Debian systems the full text is in /usr/share/common-licenses/Apache-2.0. The bundle in
 /opt/desktop-rag carries Python, Qt, llama.cpp and other libraries under their own licences.
"""


def architecture() -> str:
    """Debian's name for this machine's architecture (amd64, arm64)."""
    return subprocess.run(
        ["dpkg", "--print-architecture"], capture_output=True, text=True, check=True
    ).stdout.strip()


def glibc_version() -> str:
    """The glibc the bundle was built against: the oldest it runs on."""
    name, version = platform.libc_ver()
    return version if name == "glibc" and version else ""


def is_elf(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def system_libraries(bundle: Path, ldd: Callable[[Path], str] | None = None) -> set[str]:
    """The system libraries (absolute paths) that the bundle's ELF files link and that the
    bundle does not carry itself."""
    internal = bundle / "_internal"
    run = ldd or (lambda path: _ldd(path, internal))
    found: set[str] = set()
    for path in bundle.rglob("*"):
        if not path.is_file() or path.is_symlink() or not is_elf(path):
            continue
        for line in run(path).splitlines():
            match = re.match(r"\s*(\S+) => (/\S+) \(0x", line)
            if match and not Path(match.group(2)).resolve().is_relative_to(bundle.resolve()):
                found.add(match.group(2))
    return found


def _ldd(path: Path, internal: Path) -> str:
    # The bundle's own folders first, as its executable sets them: what it carries is found there.
    env = dict(os.environ, LD_LIBRARY_PATH=f"{path.parent}:{internal}")
    done = subprocess.run(["ldd", str(path)], capture_output=True, text=True, env=env)
    return done.stdout


def packages_of(libraries: Iterable[str], dpkg_s: Callable[[str], str] | None = None) -> set[str]:
    """The Debian packages holding these files (dpkg -S), without architecture qualifiers."""
    run = dpkg_s or _dpkg_s
    names: set[str] = set()
    for lib in sorted(libraries):
        out = run(lib) or run(str(Path(lib).resolve()))
        for line in out.splitlines():
            owners = line.split(": ", 1)[0]
            for owner in owners.split(", "):
                names.add(owner.split(":", 1)[0].strip())
    return {n for n in names if n}


def _dpkg_s(path: str) -> str:
    # dpkg knows /usr/lib/... and /lib/... apart (merged /usr): try both spellings.
    for candidate in (
        path,
        re.sub(r"^/usr/lib/", "/lib/", path),
        re.sub(r"^/lib/", "/usr/lib/", path),
    ):
        done = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if done.returncode == 0:
            return done.stdout
    return ""


def depends(system_packages: Iterable[str], glibc: str) -> list[str]:
    """The Depends field's entries: glibc first, then the xcb packages and the rest, sorted."""
    wanted = set(XCB_LIBRARIES.values()) | set(system_packages)
    wanted -= IGNORED_PACKAGES
    first = [f"libc6 (>= {glibc})"] if glibc else ["libc6"]
    return first + sorted(wanted)


def control(version: str, arch: str, installed_kib: int, deps: list[str]) -> str:
    return (
        f"Package: {PACKAGE}\n"
        f"Version: {version}\n"
        "Section: text\n"
        "Priority: optional\n"
        f"Architecture: {arch}\n"
        f"Maintainer: {MAINTAINER}\n"
        f"Installed-Size: {installed_kib}\n"
        f"Depends: {', '.join(deps)}\n"
        f"Description: {DESCRIPTION}\n"
    )


def desktop_entry(template: str) -> str:
    """The menu entry, its Exec the command on everyone's PATH."""
    return template.replace("@EXEC@", PACKAGE).replace("@TRYEXEC@", f"/usr/bin/{PACKAGE}")


def _copy(src: str, dst: str) -> object:
    try:
        os.link(src, dst)  # the same file system: no second gigabyte written
    except OSError:
        shutil.copy2(src, dst)
    return dst


def stage(bundle: Path, root: Path) -> None:
    """Lay out the package's files under root (emptied first)."""
    shutil.rmtree(root, ignore_errors=True)
    app = root / PREFIX
    app.parent.mkdir(parents=True)
    shutil.copytree(bundle, app, symlinks=True, copy_function=_copy)
    # The per-user installer and its copies of the menu entry and icons are the tar.gz's.
    for name in ("install.sh", "desktop-rag.desktop", "desktop-rag.svg", "desktop-rag.png"):
        (app / name).unlink(missing_ok=True)
    (root / "usr" / "bin").mkdir(parents=True)
    (root / "usr" / "bin" / PACKAGE).symlink_to(f"/{PREFIX}/{PACKAGE}")
    share = root / "usr" / "share"
    (share / "applications").mkdir(parents=True)
    template = (REPO / "packaging" / "linux" / "desktop-rag.desktop").read_text(encoding="utf-8")
    (share / "applications" / f"{PACKAGE}.desktop").write_text(
        desktop_entry(template), encoding="utf-8"
    )
    icons = share / "icons" / "hicolor"
    (icons / "scalable" / "apps").mkdir(parents=True)
    (icons / "256x256" / "apps").mkdir(parents=True)
    shutil.copy2(
        REPO / "resources" / "icons" / "app.svg", icons / "scalable" / "apps" / "desktop-rag.svg"
    )
    shutil.copy2(bundle / "desktop-rag.png", icons / "256x256" / "apps" / "desktop-rag.png")
    doc = share / "doc" / PACKAGE
    doc.mkdir(parents=True)
    (doc / "copyright").write_text(COPYRIGHT, encoding="utf-8")


def installed_kib(root: Path) -> int:
    total = sum(p.lstat().st_size for p in root.rglob("*") if not p.is_dir())
    return (total + 1023) // 1024


def build(bundle: Path, out: Path, work: Path) -> Path:
    if not (bundle / PACKAGE).is_file():
        raise SystemExit(f"make_deb: no bundle at {bundle}; run make package first")
    arch = architecture()
    root = work / "root"
    stage(bundle, root)
    deps = depends(packages_of(system_libraries(root / PREFIX)), glibc_version())
    (root / "DEBIAN").mkdir()
    (root / "DEBIAN" / "control").write_text(
        control(__version__, arch, installed_kib(root), deps), encoding="utf-8"
    )
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{PACKAGE}_{__version__}_{arch}.deb"
    # gzip: every dpkg reads it (zstd needs dpkg 1.21.18), and it packs in seconds, not the
    # minutes xz takes for a gigabyte on two cores.
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", str(root), str(target)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    shutil.rmtree(root, ignore_errors=True)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, default=REPO / "dist" / PACKAGE)
    parser.add_argument("--out", type=Path, default=REPO / "dist")
    parser.add_argument("--work", type=Path, default=REPO / "build" / "deb")
    args = parser.parse_args(argv)
    target = build(args.bundle, args.out, args.work)
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
