"""llama-cpp-python built once for every x86-64 CPU from AVX2 up, for the venv and the bundle alike.

pip's default build of llama-cpp-python compiles llama.cpp for the CPU it is built on
(`-march=native`): a bundle made on a machine with AVX-512 dies with SIGILL on a laptop with
AVX2 only, and on an Intel Xeon with AMX it does not even run at home. There, Debian 12's GCC
12 miscompiles ggml's AMX tile set-up: its `_tile_loadconfig` tells the compiler that
`ldtilecfg` reads 8 bytes, not the 64-byte tile configuration, so the stores of the tile rows and
column widths are dropped as dead, `ldtilecfg` loads a configuration with garbage in it, and the
CPU raises a general protection fault in `ggml_backend_amx_mul_mat` as soon as a prompt of more
than one token is evaluated (`make test` ended in "Error 139" there).

So llama.cpp is built without native tuning, with its CPU code as one library per CPU
generation that ggml loads at run time, choosing the best the CPU supports (GGML_BACKEND_DL with
GGML_CPU_ALL_VARIANTS). From what that build makes, the wheel keeps the variants from Haswell
(AVX2, FMA, F16C, BMI2) up and drops:
- `sapphirerapids`, the only one compiled with AMX (the fault above; AMX is a Xeon server
  feature, no laptop has it; on such a Xeon ggml picks the next best, AVX-512 with VNNI);
- the variants below AVX2 (x64, sse42, sandybridge, ivybridge, piledriver): the README says
  which CPUs are supported, and the app tells a CPU without AVX2 so instead of running at a
  crawl (engines/llm.py).
pip's wheel cache does not tell builds with other CMAKE_ARGS apart, so the wheel is built with
`--no-cache-dir` and kept in a cache of ours whose name carries the recipe.

    python packaging/llama.py --install     # build (once) and install into this Python
    python packaging/llama.py --wheel       # print the wheel's path, building it if needed
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

VERSION = "0.3.36"
CMAKE_ARGS = "-DGGML_NATIVE=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON"
# The CPU variants shipped (x86-64), best last; ggml scores each against the CPU and loads the
# best it supports.
X86_VARIANTS = (
    "haswell",
    "skylakex",
    "cannonlake",
    "cascadelake",
    "icelake",
    "cooperlake",
    "zen4",
    "alderlake",
)
# Bump when what the repacking keeps changes: the cached wheel's name carries it.
RECIPE = "1"

_VARIANT = re.compile(r"(?:lib)?ggml-cpu-([A-Za-z0-9_.]+)\.(?:so|dll|dylib)$")


def cache_root() -> Path:
    return Path(
        os.environ.get("DESKTOP_RAG_WHEELS", Path.home() / ".cache" / "desktop-rag" / "wheels")
    )


def recipe_key() -> str:
    digest = hashlib.sha256(f"{VERSION}|{CMAKE_ARGS}|{RECIPE}|{X86_VARIANTS}".encode())
    return f"llama-cpp-python-{VERSION}-{platform.machine()}-{digest.hexdigest()[:12]}"


def kept(name: str) -> str | None:
    """Where a file of the built wheel goes in ours (None: left out). The CPU variants move from
    the stray top-level bin/ that ggml's install rule puts them in to llama_cpp/lib/, beside
    libggml, where engines/llm.py tells ggml to look; the top-level lib/ and include/ (copies of
    what llama_cpp/lib holds, and headers) are left out."""
    top = name.split("/", 1)[0]
    match = _VARIANT.search(name)
    if match and top in ("bin", "lib", "llama_cpp"):
        variant = match.group(1)
        if platform.machine().lower() in ("x86_64", "amd64") and variant not in X86_VARIANTS:
            return None
        return f"llama_cpp/lib/{Path(name).name}"
    if top in ("bin", "lib", "include"):
        return None
    return name


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def repack(built: Path, target: Path) -> Path:
    """A copy of the built wheel with the variants in place and a RECORD that says so."""
    out = target / built.name
    with zipfile.ZipFile(built) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        record_name = next(n for n in src.namelist() if n.endswith(".dist-info/RECORD"))
        lines = []
        for info in src.infolist():
            if info.filename == record_name or info.is_dir():
                continue
            name = kept(info.filename)
            if name is None:
                continue
            data = src.read(info)
            copy = zipfile.ZipInfo(name, info.date_time)
            copy.external_attr = info.external_attr
            copy.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(copy, data)
            lines.append(_record_line(name, data))
        lines.append(f"{record_name},,")
        dst.writestr(record_name, "\n".join(lines) + "\n")
    return out


def wheel() -> Path:
    """The repacked wheel, built the first time (about 8 minutes on two cores)."""
    folder = cache_root() / recipe_key()
    found = sorted(folder.glob("llama_cpp_python-*.whl"))
    if found:
        return found[0]
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent) as tmp:
        env = dict(os.environ, CMAKE_ARGS=CMAKE_ARGS, FORCE_CMAKE="1")
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--quiet",
                "--no-cache-dir",
                "--no-deps",
                "--no-binary",
                "llama-cpp-python",
                "--wheel-dir",
                tmp,
                f"llama-cpp-python=={VERSION}",
            ],
            check=True,
            env=env,
        )
        (built,) = Path(tmp).glob("llama_cpp_python-*.whl")
        staged = Path(tmp) / "repacked"
        staged.mkdir()
        repacked = repack(built, staged)
        done = Path(tmp) / "done"
        done.mkdir()
        shutil.move(str(repacked), done / repacked.name)
        if folder.exists():
            shutil.rmtree(folder)
        done.rename(folder)
    return next(folder.glob("llama_cpp_python-*.whl"))


def install() -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--force-reinstall",
            str(wheel()),
        ],
        check=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--install", action="store_true", help="build once, install here")
    action.add_argument("--wheel", action="store_true", help="print the wheel's path")
    args = parser.parse_args()
    if args.install:
        install()
    else:
        print(wheel())


if __name__ == "__main__":
    main()
