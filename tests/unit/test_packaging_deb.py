"""The .deb's control file, dependencies, menu entry and layout (packaging/make_deb.py), with
ldd and dpkg faked; `make package-test` installs and removes the real one."""

from __future__ import annotations

import configparser
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "packaging"))

import make_deb  # noqa: E402

from desktop_rag.infra.display import XCB_LIBRARIES  # noqa: E402


def _bundle(tmp_path: Path) -> Path:
    """A bundle's shape: the executable, _internal with a library, the Linux extras."""
    bundle = tmp_path / "dist" / "desktop-rag"
    (bundle / "_internal").mkdir(parents=True)
    exe = bundle / "desktop-rag"
    exe.write_bytes(b"\x7fELF fake executable")
    exe.chmod(0o755)
    (bundle / "_internal" / "libpython3.11.so.1.0").write_bytes(b"\x7fELF fake library")
    (bundle / "_internal" / "base_library.zip").write_bytes(b"PK")
    for name in ("install.sh", "desktop-rag.desktop", "desktop-rag.svg"):
        (bundle / name).write_text("x")
    shutil.copy2(REPO / "resources" / "icons" / "app.svg", bundle / "desktop-rag.png")
    return bundle


def test_depends_lists_glibc_first_then_every_xcb_package_and_the_linked_ones() -> None:
    deps = make_deb.depends({"libfontconfig1", "libc6", "libglib2.0-0t64"}, "2.36")
    assert deps[0] == "libc6 (>= 2.36)"
    assert deps.count("libc6 (>= 2.36)") == 1 and "libc6" not in deps
    rest = deps[1:]
    assert rest == sorted(rest)
    assert set(XCB_LIBRARIES.values()) | {"libfontconfig1", "libglib2.0-0t64"} == set(rest)


def test_system_libraries_are_those_the_bundle_does_not_carry(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path)
    inside = bundle / "_internal" / "libpython3.11.so.1.0"
    outputs = {
        "desktop-rag": (
            f"\tlibpython3.11.so.1.0 => {inside} (0x00007f)\n"
            "\tlibz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x00007f)\n"
            "\tlinux-vdso.so.1 (0x00007ffd)\n"
            "\tlibmissing.so.2 => not found\n"
        ),
        "libpython3.11.so.1.0": "\tlibm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x00007f)\n",
    }
    seen: list[str] = []

    def ldd(path: Path) -> str:
        seen.append(path.name)
        return outputs[path.name]

    found = make_deb.system_libraries(bundle, ldd)
    assert found == {"/lib/x86_64-linux-gnu/libz.so.1", "/lib/x86_64-linux-gnu/libm.so.6"}
    assert sorted(seen) == ["desktop-rag", "libpython3.11.so.1.0"], "only ELF files"


def test_packages_of_reads_dpkg_s_without_architectures() -> None:
    answers = {
        "/lib/x86_64-linux-gnu/libz.so.1": "zlib1g:amd64: /lib/x86_64-linux-gnu/libz.so.1\n",
        "/lib/x86_64-linux-gnu/libm.so.6": "libc6:amd64: /lib/x86_64-linux-gnu/libm.so.6\n",
        "/usr/lib/x86_64-linux-gnu/libGL.so.1": (
            "libgl1:amd64, libgl1-mesa-glx:amd64: /usr/lib/x86_64-linux-gnu/libGL.so.1\n"
        ),
    }
    names = make_deb.packages_of(answers, lambda path: answers.get(path, ""))
    assert names == {"zlib1g", "libc6", "libgl1", "libgl1-mesa-glx"}


def test_control_file_fields() -> None:
    text = make_deb.control("0.1.0", "amd64", 981234, ["libc6 (>= 2.36)", "libxcb1"])
    fields = dict(
        line.split(": ", 1) for line in text.splitlines() if line and not line.startswith(" ")
    )
    assert fields["Package"] == "desktop-rag" and fields["Version"] == "0.1.0"
    assert fields["Architecture"] == "amd64" and fields["Installed-Size"] == "981234"
    assert fields["Depends"] == "libc6 (>= 2.36), libxcb1"
    assert text.endswith("\n") and "\n \n" not in text.replace("\n .\n", "")


def test_the_menu_entry_runs_the_command_on_the_path() -> None:
    template = (REPO / "packaging" / "linux" / "desktop-rag.desktop").read_text()
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read_string(make_deb.desktop_entry(template))
    section = entry["Desktop Entry"]
    assert section["Exec"] == "desktop-rag"
    assert section["TryExec"] == "/usr/bin/desktop-rag"
    assert section["Icon"] == "desktop-rag"


def test_stage_lays_out_opt_usr_bin_menu_icons_and_leaves_the_per_user_installer(
    tmp_path: Path,
) -> None:
    bundle = _bundle(tmp_path)
    root = tmp_path / "root"
    make_deb.stage(bundle, root)
    app = root / "opt" / "desktop-rag"
    assert (app / "desktop-rag").is_file() and (app / "_internal" / "base_library.zip").is_file()
    assert not (app / "install.sh").exists(), "install.sh is the tar.gz's per-user installer"
    link = root / "usr" / "bin" / "desktop-rag"
    assert link.is_symlink() and str(link.readlink()) == "/opt/desktop-rag/desktop-rag"
    assert (root / "usr/share/applications/desktop-rag.desktop").is_file()
    assert (root / "usr/share/icons/hicolor/scalable/apps/desktop-rag.svg").is_file()
    assert (root / "usr/share/icons/hicolor/256x256/apps/desktop-rag.png").is_file()
    assert (root / "usr/share/doc/desktop-rag/copyright").is_file()
    assert not (root / "DEBIAN").exists(), "no maintainer scripts: Debian's triggers suffice"


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="dpkg-deb is not here")
def test_build_makes_a_package_dpkg_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = _bundle(tmp_path)
    monkeypatch.setattr(make_deb, "system_libraries", lambda root: set())
    deb = make_deb.build(bundle, tmp_path / "out", tmp_path / "work")
    info = subprocess.run(["dpkg-deb", "--info", str(deb)], capture_output=True, text=True)
    assert info.returncode == 0, info.stderr
    assert "Package: desktop-rag" in info.stdout and "libxcb-cursor0" in info.stdout
    contents = subprocess.run(
        ["dpkg-deb", "--contents", str(deb)], capture_output=True, text=True, check=True
    ).stdout
    assert "root/root" in contents and "./opt/desktop-rag/desktop-rag" in contents
    assert "./usr/bin/desktop-rag -> /opt/desktop-rag/desktop-rag" in contents
