"""Each format against the PDF of the same source: passage-level recall@5 and reading speed.

From each source manual (HTML shipped by Debian packages on this machine; never the Debian FAQ
nor the R FAQ, which an independent check keeps for itself) pandoc makes Markdown,
reStructuredText, plain text, Word, OpenDocument, EPUB and a PDF (ms through groff's pdfroff);
the source's own HTML is the HTML. Every format gets its own library of the same manuals,
indexed by the real pipeline (reader processes, the bundled embedder), and is asked the same
questions.

Questions come from the source's own sentences, as pandoc's plain text gives them (not our
readers): sentences of 10 to 60 words, drawn with a fixed seed. A question is the sentence's
content words with every third one dropped and the rest shuffled, so it never matches a passage
verbatim; a second, sparse question keeps only every other content word. A hit counts when its
text holds a run of five consecutive words of the sentence. recall@5 is the share of questions
with a hit among the first five results (hybrid search, as the app answers); ratio_to_pdf
divides it by the PDF's.

Reading speed: extract() on each document of each format, in this process, best of --repeat,
as words of extracted text per second and milliseconds per document.

Usage: python -m bench.formats [--sources FILE.html,...] [--questions-per-source 40]
       [--work DIR] [--repeat 3]
Needs pandoc and pdfroff (apt-get install pandoc groff ghostscript). Prints one JSON document.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.perfutil import OUT, emit, machine, say

DEFAULT_SOURCES = [
    "/usr/share/doc/bzip2/manual.html",
    "/usr/share/doc/ninja-build/manual.html",
    "/usr/share/doc/bc/bc.html",
    "/usr/share/doc/fontconfig/fontconfig-user.html",
    "/usr/share/doc/base-passwd/users-and-groups.html",
]
# pandoc writer, extension, extra arguments.
FORMATS: dict[str, tuple[str, str, list[str]]] = {
    "pdf": ("ms", "pdf", ["--pdf-engine=pdfroff"]),
    "html": ("", "html", []),  # the source itself
    "markdown": ("gfm", "md", []),
    "rst": ("rst", "rst", []),
    "txt": ("plain", "txt", []),
    "docx": ("docx", "docx", []),
    "odt": ("odt", "odt", []),
    "epub": ("epub3", "epub", []),
}
_STOP = """a an the and or but if then else of to in on at by for with from as is are was were be
    been being it its this that these those there here which who whom whose what when where why
    how not no nor so than too very can could may might must shall should will would do does did
    has have had having you your yours we our they them their he she his her i me my also only
    such any all each every some more most other into over under about after before between
    through during without within upon via per one two use used using"""
STOPWORDS = frozenset(_STOP.split())
_WORD = re.compile(r"[a-z0-9]+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def convert(source: Path, folder: Path) -> dict[str, Path]:
    """The source in every format, named after it (bzip2-manual.docx, ...)."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{source.parent.name}-{source.stem}"
    out: dict[str, Path] = {}
    for name, (writer, ext, extra) in FORMATS.items():
        target = folder / name / f"{stem}.{ext}"
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            if not writer:
                shutil.copyfile(source, target)
            else:
                cmd = ["pandoc", "-f", "html", "-t", writer, "-s", *extra, str(source)]
                cmd += ["-o", str(target), "--metadata", f"title={stem}"]
                subprocess.run(cmd, check=True, capture_output=True, timeout=600)
        out[name] = target
    return out


def sentences(source: Path) -> list[str]:
    plain = subprocess.run(
        ["pandoc", "-f", "html", "-t", "plain", "--wrap=none", str(source)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    out = []
    for paragraph in plain.split("\n\n"):
        for sentence in _SENTENCE.split(" ".join(paragraph.split())):
            w = words(sentence)
            alpha = sum(x.isalpha() for x in w)
            # Prose, not code or tables: mostly words, of a readable length.
            if 10 <= len(w) <= 60 and alpha >= 0.8 * len(w):
                out.append(sentence)
    return out


def question(sentence: str, rng: random.Random, keep_every: int = 3) -> str:
    """Content words, shuffled: with keep_every=3 two of each three are kept ("keywords"), with
    keep_every=2 one of each two ("sparse", a vaguer question)."""
    content = [w for w in dict.fromkeys(words(sentence)) if w not in STOPWORDS]
    if len(content) > 5:
        if keep_every == 3:
            content = [w for i, w in enumerate(content) if i % 3 != 2]
        else:
            content = content[::2]
    rng.shuffle(content)
    return " ".join(content)


def holds_run(hit: str, gold: list[str], run: int = 5) -> bool:
    text = " " + " ".join(words(hit)) + " "
    return any(" " + " ".join(gold[i : i + run]) + " " in text for i in range(len(gold) - run + 1))


def reading_speed(files: list[Path], repeat: int) -> dict[str, Any]:
    from desktop_rag.ingest.extract import extract

    best = float("inf")
    n_words = sections = 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        got = [extract(str(f)) for f in files]
        best = min(best, time.perf_counter() - t0)
        n_words = sum(len(p.text.split()) for g in got for p in g.pages)
        sections = sum(len(g.pages) for g in got)
    return {
        "read_ms_per_doc": round(1000 * best / len(files), 1),
        "read_words_per_s": round(n_words / best),
        "words": n_words,
        "pages_or_sections": sections,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sources", default=",".join(DEFAULT_SOURCES))
    parser.add_argument("--questions-per-source", type=int, default=40)
    parser.add_argument("--work", default="", help="folder for the converted documents")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args()
    for tool in ("pandoc", "pdfroff"):
        if shutil.which(tool) is None:
            say(f"{tool} is missing: apt-get install -y pandoc groff ghostscript")
            return 2
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings

    sources = [Path(s) for s in args.sources.split(",") if s]
    for s in sources:
        if "debian-faq" in str(s).lower() or "r-faq" in str(s).lower():
            say(f"{s}: the Debian FAQ and the R FAQ are kept for an independent check")
            return 2
    at_start = machine()
    work = Path(args.work) if args.work else OUT / "formats"
    docs = {s: convert(s, work / "docs") for s in sources}
    rng = random.Random(args.seed)
    questions: list[tuple[str, str, str]] = []  # (style, question, gold sentence)
    for s in sources:
        pool = sentences(s)
        for sentence in rng.sample(pool, min(args.questions_per_source, len(pool))):
            questions.append(("keywords", question(sentence, rng, 3), sentence))
            questions.append(("sparse", question(sentence, rng, 2), sentence))
    say(f"{len(questions)} questions from {len(sources)} sources")

    results: dict[str, Any] = {}
    data_root = Path(tempfile.mkdtemp(prefix="bench-formats-"))
    try:
        for name in FORMATS:
            files = [docs[s][name] for s in sources]
            speed = reading_speed(files, args.repeat)
            app = build_app(Settings(data_dir=str(data_root / name)))
            t0 = time.perf_counter()
            report = app.ingest.index([str(f) for f in files])
            index_s = time.perf_counter() - t0
            if report.failed:
                say(f"{name}: {[(f.path, f.reason) for f in report.failed]}")
            hits = {"keywords": 0, "sparse": 0}
            for style, q, gold in questions:
                found = app.retriever.search(q, k=5)
                gold_words = words(gold)
                hits[style] += any(holds_run(h.text, gold_words) for h in found)
            per_style = len(questions) // 2
            results[name] = {
                "recall_at_5": round(hits["keywords"] / per_style, 3),
                "recall_at_5_sparse": round(hits["sparse"] / per_style, 3),
                **speed,
                "chunks": app.store.count_chunks(),
                "index_s": round(index_s, 1),
                "failed": len(report.failed),
            }
            say(name, results[name])
    finally:
        shutil.rmtree(data_root, ignore_errors=True)
    pdf, pdf_sparse = results["pdf"]["recall_at_5"], results["pdf"]["recall_at_5_sparse"]
    for r in results.values():
        r["ratio_to_pdf"] = round(r["recall_at_5"] / pdf, 3) if pdf else None
        r["ratio_to_pdf_sparse"] = (
            round(r["recall_at_5_sparse"] / pdf_sparse, 3) if pdf_sparse else None
        )
    emit(
        "formats",
        {
            "sources": [str(s) for s in sources],
            "questions_per_style": len(questions) // 2,
            "seed": args.seed,
            "goal": "each format's recall@5 >= 0.95 x the PDF's",
            "formats": results,
            "machine": {**at_start, "loadavg_1m_at_end": round(os.getloadavg()[0], 2)},
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
