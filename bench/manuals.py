"""Dense software manuals set in TeX, taken from Debian's documentation packages, for benchmarks.

The files are fetched once with ``apt-get download`` (a package registry, never at run time of
the app) into ``bench/data/manuals/`` and checked against the digests below. The Debian FAQ and
the R FAQ are left out on purpose: an independent check is built from them, so nothing here may
be tuned on them.

    python -m bench.manuals              # fetch (if needed) and list the files with their pages
    python -m bench.manuals --set speed  # only the dense set of the ingestion benchmark
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "manuals"
EXCLUDED = ("R-FAQ.pdf", "debian-faq")


@dataclass(frozen=True)
class Package:
    """A Debian package (bookworm) and the digest of its .deb."""

    name: str
    version: str
    sha256: str


PACKAGES = {
    p.name: p
    for p in (
        Package(
            "r-doc-pdf",
            "4.2.2.20221110-2",
            "beb104ad5818d261f280a868294645ca31d7c63365f2c9a55aa3ca9aad5aa71d",
        ),
        Package(
            "gnuplot-doc",
            "5.4.4+dfsg1-2",
            "73fe1816a296594cf6a1d38528f8d740fd650f57a2cb62e029f7920fcd5b31f0",
        ),
        Package(
            "octave-doc",
            "7.3.0-2",
            "b27897cc7e3d688daa5cb8f8d1ea47077f3fbd205ce32e22522200ff0c1eadd5",
        ),
        Package(
            "debian-reference-en",
            "2.100",
            "9f31d3a17df505de09689ca255512ea58c1fc47c59bb1b0c7bf1c23362e9743f",
        ),
        Package(
            "texlive-latex-base-doc",
            "2022.20230122-3",
            "122dbbe00bd22f872b1837eb86bd76fbac6ec84dd4f5f0c76cc9c18484485848",
        ),
        Package(
            "texlive-latex-recommended-doc",
            "2022.20230122-3",
            "8bea1f81bf50354fa4f3046c2dbb82efba9b8520aca0b2ab12eed18554a66c11",
        ),
    )
}

# (package, path inside it, name in bench/data/manuals)
_R = "usr/share/R/doc/manual/"
_TL = "usr/share/doc/texlive-doc/latex/"
FILES: tuple[tuple[str, str, str], ...] = (
    ("r-doc-pdf", _R + "R-admin.pdf", "R-admin.pdf"),
    ("r-doc-pdf", _R + "R-data.pdf", "R-data.pdf"),
    ("r-doc-pdf", _R + "R-exts.pdf", "R-exts.pdf"),
    ("r-doc-pdf", _R + "R-intro.pdf", "R-intro.pdf"),
    ("r-doc-pdf", _R + "R-ints.pdf", "R-ints.pdf"),
    ("r-doc-pdf", _R + "R-lang.pdf", "R-lang.pdf"),
    ("texlive-latex-base-doc", _TL + "base/clsguide.pdf", "clsguide.pdf"),
    ("texlive-latex-base-doc", _TL + "base/fntguide.pdf", "fntguide.pdf"),
    ("texlive-latex-base-doc", _TL + "base/encguide.pdf", "encguide.pdf"),
    ("texlive-latex-base-doc", _TL + "base/usrguide.pdf", "usrguide.pdf"),
    ("texlive-latex-base-doc", _TL + "base/cfgguide.pdf", "cfgguide.pdf"),
    ("texlive-latex-base-doc", _TL + "amsmath/amsldoc.pdf", "amsldoc.pdf"),
    ("texlive-latex-recommended-doc", _TL + "beamer/beameruserguide.pdf", "beameruserguide.pdf"),
    ("texlive-latex-recommended-doc", _TL + "caption/caption.pdf", "caption.pdf"),
    ("texlive-latex-recommended-doc", _TL + "fontspec/fontspec.pdf", "fontspec.pdf"),
    ("texlive-latex-recommended-doc", _TL + "etoolbox/etoolbox.pdf", "etoolbox.pdf"),
    ("gnuplot-doc", "usr/share/doc/gnuplot/gnuplot.pdf", "gnuplot.pdf"),
    ("octave-doc", "usr/share/doc/octave/octave.pdf", "octave.pdf"),
    ("octave-doc", "usr/share/doc/octave/liboctave.pdf", "liboctave.pdf"),
    (
        "debian-reference-en",
        "usr/share/debian-reference/debian-reference.en.pdf",
        "debian-reference.pdf",
    ),
)

# TeX Live package manuals with short pages full of code and markup (issue 45): 35 of the
# texlive-latex-recommended-doc package's PDFs, every third of those of 2 to 300 pages in path
# order (the ones in FILES, beamer's examples and logos left out), 1,025 pages.
_TEXDOCS = tuple(
    ("texlive-latex-recommended-doc", _TL + path, name)
    for path, name in (
        ("attachfile2/attachfile2.pdf", "tl-attachfile2.pdf"),
        ("breqn/flexisym.pdf", "tl-flexisym.pdf"),
        ("caption/caption-light.pdf", "tl-caption-light.pdf"),
        ("caption/subcaption.pdf", "tl-subcaption.pdf"),
        ("crop/crop.pdf", "tl-crop.pdf"),
        ("euenc/euenc.pdf", "tl-euenc.pdf"),
        ("everyshi/everyshi.pdf", "tl-everyshi.pdf"),
        ("fancyref/fancyref.pdf", "tl-fancyref.pdf"),
        ("float/float.pdf", "tl-float.pdf"),
        ("fp/documentation.pdf", "tl-fp-documentation.pdf"),
        ("l3experimental/l3benchmark/l3benchmark.pdf", "tl-l3benchmark.pdf"),
        ("l3experimental/l3draw/l3draw.pdf", "tl-l3draw.pdf"),
        ("l3experimental/l3sys-shell/l3sys-shell.pdf", "tl-l3sys-shell.pdf"),
        ("l3experimental/xgalley/xgalley.pdf", "tl-xgalley.pdf"),
        ("lineno/lineno.pdf", "tl-lineno.pdf"),
        ("lineno/ulineno.pdf", "tl-ulineno.pdf"),
        ("listings/lstdrvrs.pdf", "tl-lstdrvrs.pdf"),
        ("mathtools/mhsetup.pdf", "tl-mhsetup.pdf"),
        ("mdwtools/doafter.pdf", "tl-doafter.pdf"),
        ("mdwtools/mdwmath.pdf", "tl-mdwmath.pdf"),
        ("mdwtools/syntax.pdf", "tl-syntax.pdf"),
        ("microtype/microtype-code.pdf", "tl-microtype-code.pdf"),
        ("ms/multitoc.pdf", "tl-multitoc.pdf"),
        ("ntgclass/artdoc.pdf", "tl-artdoc.pdf"),
        ("ntgclass/briefdoc.pdf", "tl-briefdoc.pdf"),
        ("ntgclass/rapdoc.pdf", "tl-rapdoc.pdf"),
        ("pdfcolfoot/pdfcolfoot.pdf", "tl-pdfcolfoot.pdf"),
        ("pdfmanagement-testphase/l3backend-testphase.pdf", "tl-l3backend-testphase.pdf"),
        ("pdfmanagement-testphase/l3pdffield-action.pdf", "tl-l3pdffield-action.pdf"),
        ("pdfmanagement-testphase/l3pdffield-pushbutton.pdf", "tl-l3pdffield-pushbutton.pdf"),
        ("pdfmanagement-testphase/l3pdffield.pdf", "tl-l3pdffield.pdf"),
        ("pdfmanagement-testphase/l3pdfmeta.pdf", "tl-l3pdfmeta.pdf"),
        ("pdfmanagement-testphase/ltdocinit.pdf", "tl-ltdocinit.pdf"),
        ("pdfmanagement-testphase/pdfmanagement-testphase.pdf", "tl-pdfmanagement-testphase.pdf"),
        ("polyglossia/example-arabic.pdf", "tl-example-arabic.pdf"),
    )
)
FILES += _TEXDOCS

# The ingestion benchmark's dense set: the R manuals (texinfo) and the LaTeX guides, 811 pages.
SPEED = (
    "R-admin.pdf",
    "R-data.pdf",
    "R-exts.pdf",
    "R-intro.pdf",
    "R-ints.pdf",
    "R-lang.pdf",
    "clsguide.pdf",
    "fntguide.pdf",
    "encguide.pdf",
    "usrguide.pdf",
    "cfgguide.pdf",
    "amsldoc.pdf",
)
SETS = {
    "all": tuple(name for _, _, name in FILES if not name.startswith("tl-")),
    "speed": SPEED,
    "texdocs": tuple(name for _, _, name in _TEXDOCS),
}


def sha256_of(path: Path) -> str:
    """The file's sha256, read in blocks (a .deb is checked against its pinned digest)."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(package: Package, into: Path) -> Path:
    if shutil.which("apt-get") is None:
        raise SystemExit(
            f"apt-get is not available: download {package.name}_{package.version}_all.deb "
            f"from a Debian bookworm mirror into {into} and run this again"
        )
    found = sorted(into.glob(f"{package.name}_*.deb"))
    if not found:
        subprocess.run(
            ["apt-get", "download", f"{package.name}={package.version}"],
            cwd=into,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        found = sorted(into.glob(f"{package.name}_*.deb"))
    deb = found[-1]
    if sha256_of(deb) != package.sha256:
        raise SystemExit(f"{deb} does not have the expected digest: delete it and run this again")
    return deb


def fetch(names: tuple[str, ...] = SETS["all"]) -> list[Path]:
    """The manuals' paths in bench/data/manuals, downloading and unpacking what is missing."""
    DATA.mkdir(parents=True, exist_ok=True)
    debs = DATA / "debs"
    debs.mkdir(exist_ok=True)
    wanted = [f for f in FILES if f[2] in names]
    for package_name in sorted({f[0] for f in wanted if not (DATA / f[2]).exists()}):
        deb = _download(PACKAGES[package_name], debs)
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["dpkg-deb", "-x", str(deb), tmp], check=True)
            for pkg, member, name in wanted:
                if pkg == package_name:
                    shutil.copyfile(Path(tmp) / member, DATA / name)
    paths = [DATA / name for _, _, name in wanted]
    assert not any(x in p.name for p in paths for x in EXCLUDED)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SETS), default="all")
    args = parser.parse_args()
    import pypdfium2

    rows = []
    for path in fetch(SETS[args.set]):
        pdf = pypdfium2.PdfDocument(str(path))
        rows.append(
            {"file": path.name, "pages": len(pdf), "outline_items": len(list(pdf.get_toc()))}
        )
        pdf.close()
    json.dump(
        {"set": args.set, "pages": sum(r["pages"] for r in rows), "files": rows},
        sys.stdout,
        indent=1,
    )
    print()


if __name__ == "__main__":
    main()
