"""Helpers shared by the benchmarks: corpus paths, a command run and measured, JSON output,
the generated and picked libraries of the indexing benchmarks, and the answer benchmarks'
question sets and scores. Benchmarks import these, never one another."""

from __future__ import annotations

import collections
import hashlib
import json
import os
import random
import re
import resource
import socket
import string
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
CORPUS = (REPO / ".." / "shared" / "corpus").resolve()
OUT = REPO / "bench" / "out"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSON Lines file (blank lines skipped)."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def fast_tokenizer() -> Any:
    """The bundled embedder's fast tokenizer (its tokenizer.json), loaded as the chunker loads
    it (no truncation, no padding), for counting word pieces in batches."""
    from tokenizers import Tokenizer

    from desktop_rag.engines.embed import bundled_model_dir

    tok = Tokenizer.from_file(str(bundled_model_dir() / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return tok


def pdfs(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix.lower() == ".pdf")


def chunked_library(folder: Path) -> tuple[list[Any], list[Any], int]:
    """Every PDF under folder read and chunked as the indexer does, nothing embedded:
    (document records, chunks, pages)."""
    from desktop_rag.ingest.chunk import ChunkParams, bundled_tokenizer, chunk_pages
    from desktop_rag.ingest.extract import extract
    from desktop_rag.ingest.scan import doc_id_for
    from desktop_rag.types import DocumentRecord, Status

    tok = bundled_tokenizer()
    docs: list[DocumentRecord] = []
    chunks: list[Any] = []
    pages = 0
    for path in pdfs(folder):
        got = extract(str(path))
        doc_id = doc_id_for(str(path))
        mine = chunk_pages(doc_id, str(path), got.pages, tok, ChunkParams())
        st = path.stat()
        docs.append(
            DocumentRecord(
                doc_id, str(path), st.st_size, st.st_mtime_ns, got.sha256, len(got.pages),
                len(mine), Status.INDEXED, "", "", time.time(),
            )
        )  # fmt: skip
        chunks.extend(mine)
        pages += len(got.pages)
    return docs, chunks, pages


def run_measured(cmd: list[str], env: dict[str, str], stdin: str = "") -> dict[str, Any]:
    """Run a command that prints JSON (its last line is read); add its wall seconds, its CPU
    seconds and the peak summed RSS of its process tree (readers included).

    CPU seconds are the command's and every process it waited for: unlike the wall clock, they
    hardly move with what else runs on a shared machine.
    """
    from bench.memory import TreeMemory

    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    # Children looked for at every sample: a reader that lives a second still counts.
    with TreeMemory(proc.pid, series_s=None, children_s=0.0) as rss:
        out, err = proc.communicate(stdin.encode())
    wall = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    if proc.returncode not in (0, 1):
        say(err.decode(errors="replace")[-3000:])
        raise SystemExit(f"{cmd[:3]} failed with exit code {proc.returncode}")
    result: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    result["wall_s"] = round(wall, 2)
    result["cpu_s"] = round(cpu, 2)
    result["peak_rss_mb"] = rss.peak_mb
    # Which processes made the peak (the indexer, its readers), each with its RSS.
    result["at_peak_rss"] = rss.at_peak_rss
    return result


class Timer:
    """Wall time of a block, in seconds."""

    def __enter__(self) -> Timer:
        self.t0 = time.perf_counter()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.t0


def machine() -> dict[str, Any]:
    """What the figures were measured on, including how busy it was."""
    import platform

    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    cpu = ""
    try:  # the CPU's name: int8 speed and the int8 rule's verdict depend on it
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "loadavg_1m_at_start": round(load[0], 2),
    }


def emit(name: str, result: dict[str, Any]) -> None:
    """Print the result as JSON on stdout and keep a copy in bench/out/NAME.json."""
    text = json.dumps(result, indent=2)
    print(text)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.json").write_text(text + "\n", encoding="utf-8")


def say(*parts: object) -> None:
    """Progress on stderr, so stdout stays one JSON document."""
    print(*parts, file=sys.stderr, flush=True)


# moto's S3 on loopback, for the team library's benchmarks (team, team_ray).

BUCKET = "bench"
KEYS = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench-secret"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def moto_s3(env: dict[str, str]) -> Iterator[dict[str, str]]:
    """moto's S3 on loopback in its own process, with a bucket; the environment to reach it."""
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(150):
            try:
                urllib.request.urlopen(f"{endpoint}/moto-api/", timeout=1).read()
                break
            except OSError:
                time.sleep(0.2)
        env = {**env, **KEYS, "AWS_ENDPOINT_URL": endpoint, "AWS_DEFAULT_REGION": "us-east-1"}
        import boto3

        boto3.client(
            "s3",
            endpoint_url=endpoint,
            region_name="us-east-1",
            aws_access_key_id=KEYS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=KEYS["AWS_SECRET_ACCESS_KEY"],
        ).create_bucket(Bucket=BUCKET)
        yield env
    finally:
        server.terminate()
        server.wait(30)


# Libraries the indexing benchmarks share: small generated PDFs (small_files, index_memory,
# pieces, team_ray, window_stall) and a fixed spread of real files (ingest, index_memory).

FOLDERS = ["Factures 2024", "Factures 2024/Été", "Projets/réunions d'équipe", "日本語", "misc"]
_TEXT = (
    "the of and to in a is that for it as was with be by on not he this are or his from at "
    "which but have an they you were her she there been one all we their has would when if "
    "so no will more can out up into do time only other new some could these two may first "
    "then any like my now over such our man me even most made after also did many before "
    "must through back years where much your way well down should because each just those "
    "people how too little state good very make world still own see men work long get here "
    "between both life being under never day same another know while last might us great old "
    "year off come since against go came right used take three invoice payment account budget "
    "meeting project report quarter revenue customer contract delivery schedule review team "
    "office supplier order total balance period service support manager policy insurance "
    "claim tax return receipt statement salary benefit travel expense approval signature"
)
WORDS = _TEXT.split()


def make_library(root: Path, files: int, seed: int = 12) -> int:
    """Write the PDFs; returns the number of pages."""
    from tests.pdfgen import make_pdf

    rng = random.Random(seed)
    pages_total = 0
    for i in range(files):
        folder = root / FOLDERS[i % len(FOLDERS)] / f"lot {i // 250:02d}"
        pages = []
        for _ in range(rng.randint(1, 3)):
            words = [rng.choice(WORDS) for _ in range(rng.randint(150, 250))]
            sentences = [" ".join(words[j : j + 12]).capitalize() + "." for j in range(0, 250, 12)]
            pages.append(" ".join(s for s in sentences if s != "."))
        make_pdf(folder / f"document n° {i:04d} – copie.pdf", pages)
        pages_total += len(pages)
    return pages_total


def spread(files: list[Path], n: int) -> list[Path]:
    """n files evenly spread over the sorted list: a fixed, varied subset."""
    if n <= 0 or n >= len(files):
        return files
    step = len(files) / n
    return [files[int(i * step)] for i in range(n)]


# The answer benchmarks' question sets, their halves and how an answer is scored against the
# gold: answer_quality, answer_facts, answer_latency, unanswerable and tune.cross_weight share
# them.

ANSWER_DATA = REPO / "bench" / "data" / "facts"
QUESTIONS = REPO / "bench" / "questions"
MANUALS = REPO / "bench" / "data" / "manuals"
FILINGS = 20  # financebench filings drawn for answer_quality's library (seed SEED)
SEED = 0  # the draws of filings and of covid-qa questions

OFF_TOPIC = [
    "What is the capital of France?",
    "Who painted the Mona Lisa?",
    "How many players are on a rugby union team?",
    "What is the boiling point of water at sea level in Fahrenheit?",
    "Who was the first person to walk on the moon?",
    "What language is spoken in Brazil?",
    "How do I make a cheese omelette?",
    "What year did the Berlin Wall fall?",
    "Who composed the Four Seasons?",
    "What is the tallest mountain in Africa?",
    "How many strings does a violin have?",
    "What is the chemical symbol for gold?",
    "Who wrote Pride and Prejudice?",
    "What is the longest river in South America?",
    "How do I knit a scarf?",
    "Which ocean lies between Africa and Australia?",
    "What is the national animal of Scotland?",
    "Who directed the film Jaws?",
    "How many keys does a standard piano have?",
    "What is the currency of Japan?",
    "Which city hosted the 2012 Summer Olympics?",
    "How do I grow tomatoes on a balcony?",
    "What is the speed of sound in air?",
    "Who invented the telephone?",
    "What are the rules of chess castling?",
    "Which desert is the largest in Asia?",
    "What is the main ingredient of guacamole?",
    "Who is the author of the Harry Potter books?",
    "How long is a marathon in kilometres?",
    "What colour is a ripe banana?",
]


# More everyday questions, written before any was asked, for the tune half only: 13 off-topic
# questions of the 30 fall in the tune half, too few to choose several thresholds on. The
# report half stays the 30's other half.
OFF_TOPIC_TUNE = [
    "How many legs does a spider have?",
    "What is the largest planet in the solar system?",
    "Who wrote Romeo and Juliet?",
    "How do I fix a flat bicycle tyre?",
    "What is the capital of Canada?",
    "Which country is famous for tulips and windmills?",
    "What do bees make from nectar?",
    "How do I bake a chocolate cake?",
    "Who painted The Starry Night?",
    "What is the hardest natural mineral?",
    "How many minutes does a football match last?",
    "What is the largest ocean on Earth?",
    "Which bird is the symbol of peace?",
    "How long should I boil an egg for a soft yolk?",
    "Who was the first president of the United States?",
    "What is the tallest building in the world?",
    "How many continents are there?",
    "Which planet is known as the Red Planet?",
    "What is the square root of 144?",
    "How do I tie a bowline knot?",
    "Who sang Bohemian Rhapsody?",
    "Which team won the 2018 football World Cup?",
    "How many days are in a leap year?",
    "Which metal is liquid at room temperature?",
    "Who wrote the Odyssey?",
    "What are the colours of the rainbow?",
    "How do I clean a cast iron pan?",
    "What is the fastest land animal?",
    "Which river flows through Paris?",
    "What is the largest island in the world?",
]


_NUMBER = re.compile(
    r"(?<![\w.])[-−(]?\$?\s?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*(%|percent|million|billion|"
    r"thousand|mn|bn)?",
    re.I,
)
_SCALE = {"thousand": 1e3, "million": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9}
_CITATION = re.compile(r"\[\d+(?:\s*[,;–-]\s*\d+)*\]")
_LEAD = re.compile(r"^\s*According to \[\d+\],?\s*", re.I)


def numbers(text: str) -> list[tuple[float, float]]:
    """(value, scale) for every number in text, years such as FY2022 or 2019 left out."""
    text = re.sub(r"\b(?:FY|Q[1-4]\s?)?(?:19|20)\d\d\b", " ", text)
    found = []
    for m in _NUMBER.finditer(text):
        value = float(m.group(1).replace(",", "") + (m.group(2) or ""))
        if m.group(0).lstrip().startswith(("-", "−", "(")):
            value = -value
        found.append((value, _SCALE.get((m.group(3) or "").lower(), 1.0)))
    return found


def content(answer: str) -> str:
    """The answer without its citations and the "According to [n]," lead every answer has."""
    return _CITATION.sub(" ", _LEAD.sub("", answer)).strip()


def question_scale(question: str) -> float:
    q = question.lower()
    if re.search(r"usd billions|in billions|\$ ?billions", q):
        return 1e9
    if re.search(r"usd millions|in millions|\$ ?millions", q):
        return 1e6
    return 1.0


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 0.01 * abs(b) if b else abs(a) < 1e-9


def number_match(answer: str, gold: tuple[float, float], asked_scale: float) -> bool:
    g, g_scale = gold
    g_full = g * (g_scale if g_scale != 1.0 else asked_scale)
    for a, a_scale in numbers(answer):
        for a_value in (a, -a):  # "a loss of 3.7" vs a gold of -3.7
            if close(a_value, g) or close(a_value * a_scale, g_full):
                return True
    return False


def normalise(text: str) -> list[str]:
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return re.sub(r"\b(a|an|the)\b", " ", text).split()


def f1(answer: str, gold: str) -> float:
    a, g = normalise(answer), normalise(gold)
    same = sum((collections.Counter(a) & collections.Counter(g)).values())
    if not same:
        return 0.0
    precision, recall = same / len(a), same / len(g)
    return 2 * precision * recall / (precision + recall)


def contains(text: str, gold: str) -> bool:
    g = " ".join(normalise(gold))
    return bool(g) and g in " ".join(normalise(text))


def half(question: str) -> str:
    if question in OFF_TOPIC_TUNE:
        return "tune"
    return "tune" if hashlib.sha1(question.encode()).digest()[0] % 2 == 0 else "report"


def finance_filings(corpus: Path, count: int | None = FILINGS) -> list[Path]:
    """financebench's filings with questions: `count` drawn at random (seed 0), None for all."""
    folder = corpus / "financebench" / "pdfs"
    rows = _finance_rows(corpus)
    docs = sorted({r["doc_name"] for r in rows if (folder / f"{r['doc_name']}.pdf").is_file()})
    drawn = docs if count is None else random.Random(SEED).sample(docs, count)
    return [folder / f"{d}.pdf" for d in sorted(drawn)]


def _finance_rows(corpus: Path) -> list[dict[str, Any]]:
    path = corpus / "financebench" / "financebench_open_source.jsonl"
    return [json.loads(line) for line in path.open()]


def finance_questions(corpus: Path, names: set[str] | None = None) -> list[dict[str, Any]]:
    names = names if names is not None else {p.stem for p in finance_filings(corpus)}
    out = []
    for row in _finance_rows(corpus):
        if row["doc_name"] in names:
            evidence = row["evidence"]
            gold_pages = {(f"{e['doc_name']}.pdf", e["evidence_page_num"] + 1) for e in evidence}
            out.append(
                {
                    "question": row["question"],
                    "gold": row["answer"],
                    "golds": [row["answer"]],
                    "figures": numbers(row["answer"]),
                    "gold_pages": sorted(gold_pages),
                }
            )
    return out


def covid_questions(corpus: Path, n: int) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (corpus / "covid-qa" / "questions.jsonl").open()]
    out = []
    for row in random.Random(SEED).sample(rows, n):
        out.append(
            {
                "question": row["question"],
                "gold": row["answers"][0],
                "golds": list(row["answers"]),
                "gold_pages": [(Path(row["pdf"]).name, row["answer_page"])],
            }
        )
    return out


def plain(answer: str) -> str:
    """The words a user reads: the answer without its [n] marks and "According to [n],"."""
    return " ".join(content(answer).split())


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def manual_states(text: str, must: list[str]) -> bool:
    low = _norm(text)
    held = sum(1 for m in must if _norm(m) in low)
    return held * 2 >= len(must)


# gnuplot's manual is one of the documents an independent check is built from: its questions
# tune nothing (it stays in the library, as one more manual to find the others among).
UNTUNED = ("gnuplot.pdf",)


def manual_questions() -> list[dict[str, Any]]:
    path = QUESTIONS / "manuals-facts.jsonl"
    rows = [json.loads(line) for line in path.open() if line.strip()]
    rows = [r for r in rows if r["pdf"] not in UNTUNED]
    return [
        {
            "question": r["question"],
            "must": r["must"],
            "split": "tune" if r["split"] == "tune" else "report",
            "gold_pages": [[r["pdf"], r["page"]]],
        }
        for r in rows
    ]


def set_questions(
    name: str, covid: int, covid_articles: str = "all"
) -> tuple[list[dict[str, Any]], list[str]]:
    """The questions of a set, each with its split, and the paths of its library."""
    corpus = CORPUS.resolve()
    if name == "manuals":
        from bench.manuals import fetch

        fetch()  # downloaded once from Debian's packages, checked against their digests
        qs = manual_questions()
        pdfs = sorted({p for q in qs for p, _ in q["gold_pages"]} | set(UNTUNED))
        return qs, [str(MANUALS / p) for p in pdfs]
    if name == "covid":
        qs = covid_questions(corpus, covid)
        paths = [str(corpus / "covid-qa" / "pdf")]
        if covid_articles == "held_out":
            # Only questions on the articles the reranker never saw (training/libraries.py).
            held = set(json.loads((QUESTIONS / "splits.json").read_text())["covid-qa"]["held_out"])
            qs = [q for q in qs if q["gold_pages"][0][0] in held]
    elif name == "finance":
        splits = json.loads((QUESTIONS / "splits.json").read_text())["financebench"]
        held = set(splits["library"])
        qs = [q for q in finance_questions(corpus, held) if q["figures"]]
        folder = corpus / "financebench" / "pdfs"
        paths = [str(folder / f"{d}.pdf") for d in sorted(held)]
    else:
        raise SystemExit(f"unknown set {name}")
    for q in qs:
        q["split"] = half(q["question"])
        q["gold_pages"] = [list(p) for p in q["gold_pages"]]
    return qs, paths


def states(name: str, text: str, q: dict[str, Any]) -> bool:
    if not text:
        return False
    if name == "manuals":
        return manual_states(text, q["must"])
    if name == "covid":
        return any(contains(text, g) for g in q["golds"])
    scale = question_scale(q["question"])
    return any(number_match(text, g, scale) for g in q["figures"])


def gold_words(text: str, q: dict[str, Any]) -> bool:
    """covid-qa's fact in other words: at least three quarters of some gold answer's content
    words (stop words left out, normalised as `states` normalises) in the text. A written
    answer says "The accumulation of ROS hinders …" where the gold is "reactive oxygen species
    (ROS)": the gold span's containment misses what a reader would count."""
    from desktop_rag.query.quote import STOPWORDS

    held = set(normalise(text))
    for gold in q["golds"]:
        words = [w for w in normalise(gold) if w not in STOPWORDS]
        if words and sum(w in held for w in words) * 4 >= 3 * len(words):
            return True
    return False


def open_library(name: str, paths: list[str], rerank: bool = True, model: str = "") -> Any:
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings

    # Indexing at normal priority: the app's background priority starves it on a busy machine.
    settings = Settings(
        data_dir=str(ANSWER_DATA / name), index_low_priority=False, rerank=rerank, model_path=model
    )
    app = build_app(settings)
    t0 = time.perf_counter()
    report = app.ingest.index(paths)
    print(
        f"{name}: {report.indexed} indexed, {report.unchanged} unchanged, "
        f"{len(report.failed)} failed {[f.reason for f in report.failed][:3]}, "
        f"{app.store.count_chunks()} chunks, {time.perf_counter() - t0:.0f} s",
        file=sys.stderr,
    )
    return app


def answer_one(app: Any, question: str) -> dict[str, Any]:
    from desktop_rag.types import DoneEvent, QuotesEvent, SourcesEvent, TokenEvent

    t0 = time.perf_counter()
    first = None
    row: dict[str, Any] = {"sources": [], "quotes": []}
    for event in app.answer.ask(question):
        if isinstance(event, SourcesEvent):
            row["sources"] = [
                {"n": s.n, "path": os.path.basename(s.path), "page": s.page, "text": s.text}
                for s in event.sources
            ]
        elif isinstance(event, QuotesEvent):
            row["quotes"] = [{"n": q.n, "page": q.page, "text": q.text} for q in event.quotes]
        elif isinstance(event, TokenEvent) and first is None:
            first = time.perf_counter() - t0
        elif isinstance(event, DoneEvent):
            row.update(
                answer=event.answer,
                cited=list(event.cited),
                refused=event.refused,
                unsupported=list(event.unsupported),
                withheld=event.withheld,
                mode=event.mode,
                note=event.note,
                answerable=event.answerable,
            )
    row["first_words_s"] = round(first or 0.0, 3)
    row["total_s"] = round(time.perf_counter() - t0, 3)
    return row


def set_mode(app: Any, mode: str) -> None:
    service = app.answer
    service.mode = "composed" if mode == "composed" else "written"
    service.replace_unbacked = mode != "written-before"
