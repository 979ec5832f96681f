"""OCR quality and speed: page recall@5 on scanned copies against the digital originals, the
character error rate of the OCR text against the text layer, and pages read with OCR per second.

The library is small so that it runs in minutes on two cores: `--covid` covid-qa articles
(most questions per page first, every page, all their questions) and `--filings` financebench
filings, of which `--per-filing` questions are asked and only their gold evidence pages and
the page after each are kept. The originals are
those pages copied as they are; the scans are made from them by bench/scans.py with its fixed
settings (SCAN_DPI, ANGLE_DEG, NOISE_SIGMA, JPEG_QUALITY), and checked to hold no text layer.
Both libraries are indexed by `desktop-rag index` into fresh data dirs, both question sets are
asked with `desktop-rag search - --json -k 5`, and the OCR text of each page is read back from
the scans' index (the chunks' spans put together), so nothing is OCR'd twice.

Usage: python -m bench.ocr [--covid 10] [--filings 3] [--per-filing 2] [--corpus DIR] [--keep DIR]
       python -m bench.ocr --dpi-sweep   (the render resolution: CER and CPU seconds per page)
       python -m bench.ocr --accents     (English, French, German, Spanish, Italian paragraphs)
Prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.scans import (
    ANGLE_DEG,
    JPEG_QUALITY,
    NOISE_SIGMA,
    SCAN_DPI,
    cer,
    has_text_layer,
    make_scan,
)
from desktop_rag.ingest import ocr as ocr_pages
from desktop_rag.ingest.extract import extract

DEFAULT_CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"
CLI = str(Path(sys.executable).with_name("desktop-rag"))
K = 5


def copy_pages(src: Path, dst: Path, pages: list[int]) -> None:
    """The 1-based `pages` of src, as they are, in a new PDF (text layer kept)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(src))
    out = pdfium.PdfDocument.new()
    out.import_pages(doc, [p - 1 for p in pages])
    out.save(str(dst))
    out.close()
    doc.close()


def covid_set(corpus: Path, n: int) -> tuple[dict[str, list[int]], list[dict[str, Any]]]:
    """The n covid-qa articles with most questions, every page; their questions."""
    rows = [json.loads(line) for line in (corpus / "covid-qa" / "questions.jsonl").open()]
    by_doc: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_doc[row["pdf"]].append(row)
    import pypdfium2 as pdfium

    lengths = {}
    for rel in by_doc:
        doc = pdfium.PdfDocument(str(corpus / "covid-qa" / rel))
        lengths[rel] = len(doc)
        doc.close()
    # Most questions per page first: the most evidence for the fewest pages to OCR.
    chosen = sorted(by_doc, key=lambda d: (-len(by_doc[d]) / lengths[d], d))[:n]
    files: dict[str, list[int]] = {}
    questions = []
    for rel in chosen:
        path = corpus / "covid-qa" / rel
        files[str(path)] = list(range(1, lengths[rel] + 1))
        for row in by_doc[rel]:
            questions.append(
                {"q": row["question"], "file": str(path), "page": int(row["answer_page"])}
            )
    return files, questions


def filings_set(
    corpus: Path, n: int, per_filing: int
) -> tuple[dict[str, list[int]], list[dict[str, Any]]]:
    """n financebench filings (those with most questions), `per_filing` questions of each:
    their gold pages and the page after each."""
    root = corpus / "financebench"
    rows = [json.loads(line) for line in (root / "financebench_open_source.jsonl").open()]
    by_doc: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if (root / "pdfs" / f"{row['doc_name']}.pdf").exists():
            by_doc[row["doc_name"]].append(row)
    chosen = sorted(by_doc, key=lambda d: (-len(by_doc[d]), d))[:n]
    files: dict[str, list[int]] = {}
    questions = []
    for name in chosen:
        path = root / "pdfs" / f"{name}.pdf"
        pages: set[int] = set()
        for row in by_doc[name][:per_filing]:
            gold = {int(e["evidence_page_num"]) + 1 for e in row["evidence"]}
            pages |= gold | {g + 1 for g in gold}
            questions.append({"q": row["question"], "file": str(path), "pages": sorted(gold)})
        files[str(path)] = sorted(pages)
    return files, questions


def index(data: Path, folder: Path) -> dict[str, Any]:
    t0 = time.monotonic()
    done = subprocess.run(
        [CLI, "--data-dir", str(data), "index", str(folder), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"index failed: {done.stderr[-2000:]}")
    report: dict[str, Any] = json.loads(done.stdout)
    report["wall_s"] = round(time.monotonic() - t0, 1)
    return report


def search(data: Path, queries: list[str]) -> list[list[tuple[str, int]]]:
    done = subprocess.run(
        [CLI, "--data-dir", str(data), "search", "-", "--json", "-k", str(K)],
        input="".join(q.replace("\n", " ") + "\n" for q in queries),
        capture_output=True,
        text=True,
        check=True,
    )
    out = []
    for line in done.stdout.splitlines():
        hits = json.loads(line)["hits"]
        out.append([(Path(h["path"]).name, int(h["page"])) for h in hits])
    return out


def page_texts(data: Path) -> dict[tuple[str, int], str]:
    """Each page's text as the index holds it: the chunks' spans laid back in place."""
    from desktop_rag.store.lance import LanceStore

    store = LanceStore.open_as_built(data / "index")
    rows = store.chunks_table.search().select(["path", "page", "start", "end", "text"])
    spans: dict[tuple[str, int], dict[int, str]] = defaultdict(dict)
    for row in rows.limit(None).to_arrow().to_pylist():
        key = (Path(row["path"]).name, int(row["page"]))
        for i, ch in enumerate(row["text"]):
            spans[key][row["start"] + i] = ch
    return {k: "".join(v[i] for i in sorted(v)) for k, v in spans.items()}


# The pages of the render-resolution sweep: a two-column article page and a filing's table page.
SWEEP_PAGES = (("covid-qa/pdf/1563.pdf", 2), ("financebench/pdfs/3M_2018_10K.pdf", 40))
SWEEP_DPI = (150, 200, 300)


def dpi_sweep(corpus: Path) -> dict[str, Any]:
    """CER and seconds per page of OCR at each render resolution, on scans of SWEEP_PAGES."""
    import pypdfium2 as pdfium

    from desktop_rag.cleaning import clean_text

    engine = ocr_pages.default_engine()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-ocr-dpi-") as tmp:
        for i, (rel, number) in enumerate(SWEEP_PAGES):
            src = corpus / rel
            scan = Path(tmp) / f"scan{i}.pdf"
            make_scan(src, scan, [number])
            if has_text_layer(scan):
                raise SystemExit(f"the scan of {rel} has a text layer")
            original = pdfium.PdfDocument(str(src))
            textpage = original[number - 1].get_textpage()
            reference = clean_text(textpage.get_text_range())
            doc = pdfium.PdfDocument(str(scan))
            for dpi in SWEEP_DPI:
                t0, c0 = time.perf_counter(), time.process_time()
                result = ocr_pages.read_page(doc[0], engine, ocr_pages.OcrRequest(dpi=dpi))
                rows.append(
                    {
                        "file": src.name,
                        "page": number,
                        "dpi": dpi,
                        "cer": round(cer(result.text, reference), 4),
                        "wall_s": round(time.perf_counter() - t0, 1),
                        "cpu_s": round(time.process_time() - c0, 1),
                    }
                )
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    summary = {}
    for dpi in SWEEP_DPI:
        mine = [r for r in rows if r["dpi"] == dpi]
        summary[str(dpi)] = {
            "cer_mean": round(sum(r["cer"] for r in mine) / len(mine), 4),
            "cpu_s_mean": round(sum(r["cpu_s"] for r in mine) / len(mine), 1),
        }
    return {"pages": rows, "by_dpi": summary}


ACCENT_TEXTS = {
    "english": [
        "The committee approved the annual budget after a long",
        "debate about the costs of the new water treatment plant.",
        "Members asked for a report on the repairs before winter.",
    ],
    "french": [
        "Le comité a approuvé le budget annuel après un long débat",
        "sur le coût de la nouvelle usine de traitement des eaux.",
        "Les élus ont demandé un rapport sur les réparations à faire.",
    ],
    "german": [
        "Der Ausschuss hat den Jahreshaushalt nach längerer Debatte",
        "über die Kosten der neuen Kläranlage gebilligt. Die Mitglieder",
        "fordern einen Bericht über die Schäden an den Brücken.",
    ],
    "spanish": [
        "La comisión aprobó el presupuesto anual después de un largo",
        "debate sobre el costo de la nueva planta de depuración. Los",
        "señores pidieron un informe sobre los daños en el puente.",
    ],
    "italian": [
        "Il comitato ha approvato il bilancio annuale dopo un lungo",
        "dibattito sul costo del nuovo impianto di depurazione. Più",
        "consiglieri hanno chiesto perché la città è già in ritardo.",
    ],
}


def accents() -> dict[str, Any]:
    """CER on a paragraph of each language drawn as a scan here (tests/scanned.py, 200 dpi)."""
    import unicodedata

    from tests.scanned import make_scanned_pdf

    def plain(text: str) -> str:
        decomposed = unicodedata.normalize("NFD", text)
        return "".join(c for c in decomposed if unicodedata.category(c) != "Mn")

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-ocr-accents-") as tmp:
        for lang, lines in ACCENT_TEXTS.items():
            pdf = make_scanned_pdf(Path(tmp) / f"{lang}.pdf", [lines], size_in=(7.5, 2.0))
            text = extract(str(pdf), ocr=ocr_pages.OcrRequest()).pages[0].text
            ref = " ".join(lines)
            accented = [c for c in ref if ord(c) > 127]
            kept = sum(min(text.count(c), ref.count(c)) for c in set(accented))
            out[lang] = {
                "cer": round(cer(text, ref), 4),
                "cer_without_accents": round(cer(plain(text), plain(ref)), 4),
                "accented_letters": len(accented),
                "accented_letters_read": kept,
                "text": text,
            }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    parser.add_argument("--covid", type=int, default=10)
    parser.add_argument("--filings", type=int, default=3)
    parser.add_argument("--per-filing", type=int, default=2, help="questions per filing")
    parser.add_argument("--keep", help="make the libraries and indexes here (else a temp dir)")
    parser.add_argument(
        "--dpi-sweep",
        action="store_true",
        help="only measure OCR at 150, 200 and 300 dpi on two scanned pages (CER, seconds)",
    )
    parser.add_argument(
        "--accents",
        action="store_true",
        help="only measure English, French, German, Spanish and Italian text",
    )
    args = parser.parse_args()
    corpus = Path(args.corpus).resolve()
    load_before = os.getloadavg()
    if args.accents:
        print(json.dumps(accents(), indent=2, ensure_ascii=False))
        return 0
    if args.dpi_sweep:
        sweep = dpi_sweep(corpus)
        sweep.update(load_before=load_before, load_after=os.getloadavg())
        print(json.dumps(sweep, indent=2))
        return 0
    files, questions = covid_set(corpus, args.covid)
    more_files, more_questions = filings_set(corpus, args.filings, args.per_filing)
    files.update(more_files)
    questions += more_questions
    with tempfile.TemporaryDirectory(prefix="bench-ocr-") as tmp:
        work = Path(args.keep or tmp)
        originals, scans = work / "originals", work / "scans"
        originals.mkdir(parents=True, exist_ok=True)
        scans.mkdir(parents=True, exist_ok=True)
        renumber: dict[str, dict[int, int]] = {}
        pages_total = 0
        for src, pages in files.items():
            name = Path(src).name
            copy_pages(Path(src), originals / name, pages)
            make_scan(originals / name, scans / name)
            if has_text_layer(scans / name):
                raise SystemExit(f"the scan of {name} has a text layer")
            renumber[src] = {p: i for i, p in enumerate(pages, start=1)}
            pages_total += len(pages)
        # Gold pages in the copies' numbering; a question whose page was not kept is dropped.
        asked = []
        for q in questions:
            gold = q.get("pages") or [q["page"]]
            mapped = [renumber[q["file"]][p] for p in gold if p in renumber[q["file"]]]
            if mapped:
                asked.append((q["q"], Path(q["file"]).name, set(mapped)))
        report_orig = index(work / "data-originals", originals)
        report_scan = index(work / "data-scans", scans)
        results = {}
        for label, data in (("originals", "data-originals"), ("scans", "data-scans")):
            ranked = search(work / data, [q for q, _, _ in asked])
            hits = sum(
                any(n == name and p in gold for n, p in r)
                for r, (_, name, gold) in zip(ranked, asked, strict=True)
            )
            results[label] = round(hits / len(asked), 4)
        ocr_text = page_texts(work / "data-scans")
        rates = []
        by_set: dict[str, list[float]] = defaultdict(list)
        for src in files:
            name = Path(src).name
            for page in extract(str(originals / name)).pages:
                if not ocr_pages.usable(page.text):
                    continue
                rate = cer(ocr_text.get((name, page.number), ""), page.text)
                rates.append(rate)
                by_set["covid-qa" if "covid-qa" in src else "financebench"].append(rate)
    ocr_seconds = max(report_scan["seconds"] - report_orig["seconds"], 1e-9)
    out = {
        "library": {
            "covid_qa_articles": args.covid,
            "financebench_filings": args.filings,
            "questions_per_filing": args.per_filing,
            "files": [Path(f).name for f in files],
            "pages": pages_total,
            "questions": len(asked),
            "filing_pages": "gold evidence pages and the page after each",
        },
        "scan_settings": {
            "dpi": SCAN_DPI,
            "max_turn_deg": ANGLE_DEG,
            "noise_sigma": NOISE_SIGMA,
            "jpeg_quality": JPEG_QUALITY,
            "text_layer": False,
        },
        "ocr_render_dpi": ocr_pages.DPI,
        f"recall@{K}": results,
        f"recall@{K}_ratio": round(results["scans"] / max(results["originals"], 1e-9), 4),
        "cer_mean": round(sum(rates) / max(len(rates), 1), 4),
        "cer_by_set": {k: round(sum(v) / len(v), 4) for k, v in by_set.items()},
        "index_originals": report_orig,
        "index_scans": report_scan,
        "ocr_pages_per_s": round(pages_total / ocr_seconds, 4),
        "scan_pages_per_s_with_embedding": round(pages_total / report_scan["seconds"], 4),
        "load_before": load_before,
        "load_after": os.getloadavg(),
        "cpus": os.cpu_count(),
    }
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
