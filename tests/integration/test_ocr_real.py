"""The real OCR engine (rapidocr, models from its wheel) on scanned pages made here: words
and boxes read, offline with an empty home, and a kill mid-OCR costs only the file in progress."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from desktop_rag.engines import ocr as engine
from desktop_rag.ingest.extract import extract
from desktop_rag.ingest.ocr import OcrRequest
from tests.pdfgen import make_pdf
from tests.scanned import make_noise_pdf, make_scanned_pdf

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not engine.available(), reason="the OCR engine is not installed"),
]

CLI = str(Path(sys.executable).with_name("desktop-rag"))
LINES = ["Octopus blood is blue because of hemocyanin.", "The third heart pumps it to the body."]


def test_a_scanned_page_is_read_with_its_word_boxes(tmp_path: Path) -> None:
    path = make_scanned_pdf(tmp_path / "scan.pdf", [LINES])
    page = extract(str(path), ocr=OcrRequest()).pages[0]
    assert page.ocr
    words = page.text.lower().split()
    for word in ("octopus", "blood", "blue", "hemocyanin.", "third", "heart"):
        assert word in words, page.text
    first = next(b for b in page.boxes if page.text[b[0] : b[1]] == "Octopus")
    # Drawn at a third of an inch from the top-left corner of a 6 x 3 inch page.
    _s, _e, x0, y0, x1, y1 = first
    assert 0.03 < x0 < 0.08 and 0.08 < y0 < 0.16 and x1 > x0 and y1 > y0


# Paragraphs whose accented words the recogniser must keep (the accents bench, bench/ocr.py,
# reads other sentences).
ACCENTED = {
    "french": [
        "L'été dernier, la mairie a décidé de rénover l'école",
        "près du château. Les élèves ont reçu des cahiers où",
        "ils notent leurs idées, même pendant les fêtes.",
    ],
    "german": [
        "Die Bürgermeisterin eröffnete am Dienstag die große",
        "Brücke über den Fluss. Künftig dürfen Fußgänger und",
        "Radfahrer sie täglich nutzen, außer bei Glätte.",
    ],
}


@pytest.mark.parametrize("language", sorted(ACCENTED))
def test_a_scanned_paragraph_keeps_its_accents(tmp_path: Path, language: str) -> None:
    lines = ACCENTED[language]
    path = make_scanned_pdf(tmp_path / "scan.pdf", [lines], size_in=(7.5, 2.0))
    words = extract(str(path), ocr=OcrRequest()).pages[0].text.split()
    accented = [w for line in lines for w in line.split() if not w.isascii()]
    assert len(accented) >= 9
    assert [w for w in accented if w not in words] == [], " ".join(words)


def test_noise_fails_with_a_reason_instead_of_invented_words(tmp_path: Path) -> None:
    from desktop_rag.ingest.extract import ExtractError

    path = make_noise_pdf(tmp_path / "noise.pdf")
    with pytest.raises(ExtractError) as caught:
        extract(str(path), ocr=OcrRequest())
    assert "OCR found no text it is sure of" in str(caught.value)


def _clean_env(home: Path, data: Path) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "DESKTOP_RAG_DATA_DIR": str(data),
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }


def test_a_scan_is_indexed_and_found_offline_with_an_empty_home(tmp_path: Path) -> None:
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-rn", "true"]).returncode:
        pytest.skip("unshare -rn is not available: cannot cut the network")
    lib = tmp_path / "lib"
    make_scanned_pdf(lib / "scan.pdf", [["Delivery note."], ["The Pelargonite valve is in 7."]])
    home = tmp_path / "home"
    home.mkdir()
    env = _clean_env(home, tmp_path / "data")
    run = ["unshare", "-rn", CLI]
    indexed = subprocess.run(
        [*run, "index", str(lib), "--json"], env=env, capture_output=True, text=True, timeout=900
    )
    assert indexed.returncode == 0, indexed.stderr[-2000:]
    assert json.loads(indexed.stdout)["pages"] == 2
    found = subprocess.run(
        [*run, "search", "Pelargonite valve", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    hits = json.loads(found.stdout)["hits"]
    assert hits[0]["page"] == 2 and "pelargonite" in hits[0]["text"].lower()
    # Nothing was fetched into the empty home: no model hub cache, no OCR model copied in
    # (the embedder's own export into the app's cache is made here, from the bundled model).
    names = {p.name for p in home.rglob("*")}
    assert not names & set(engine.MODEL_FILES)
    assert not (home / ".cache" / "huggingface").exists()


def _readers_of(pid: int) -> set[int]:
    """The reader processes of an indexer (not multiprocessing's resource tracker, which
    leaves once the last of them has)."""
    try:
        children = psutil.Process(pid).children(recursive=True)
        return {c.pid for c in children if "spawn_main" in " ".join(c.cmdline())}
    except psutil.NoSuchProcess:
        return set()


def test_a_kill_mid_ocr_costs_only_the_file_being_read(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    make_pdf(lib / "a-digital.pdf", ["Squid have three hearts as octopuses do."])
    make_pdf(lib / "b-digital.pdf", ["Cuttlefish change colour in a fraction of a second."])
    make_scanned_pdf(lib / "c-scan.pdf", [LINES] * 4)
    data = tmp_path / "data"
    env = {**os.environ, "DESKTOP_RAG_DATA_DIR": str(data)}
    proc = subprocess.Popen(
        [CLI, "index", str(lib)], env=env, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    readers: set[int] = set()
    assert proc.stderr is not None
    deadline = time.monotonic() + 600
    for line in proc.stderr:
        readers |= _readers_of(proc.pid)
        if "(OCR page " in line:
            break
        assert time.monotonic() < deadline, "OCR never started"
    readers |= _readers_of(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(30)
    # The reader process, busy with OCR, notices its indexer is gone and stops.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(psutil.pid_exists(p) for p in readers):
        time.sleep(0.2)
    alive = [p for p in readers if psutil.pid_exists(p) and psutil.Process(p).status() != "zombie"]
    assert not alive, f"reader processes outlived the killed indexer: {alive}"

    resumed = subprocess.run(
        [CLI, "index", str(lib), "--json"], env=env, capture_output=True, text=True, timeout=900
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    report = json.loads(resumed.stdout)
    assert report["indexed"] + report["unchanged"] == 3 and not report["failed"]
    status = json.loads(
        subprocess.run(
            [CLI, "status", "--json"], env=env, capture_output=True, text=True, check=True
        ).stdout
    )
    assert status["documents"] == 3 and status["pages"] == 6


def _reader_rss_mb() -> tuple[float, float]:
    """(resident, peak resident) in MB of this process's reader process."""
    for child in psutil.Process().children(recursive=True):
        try:
            if "spawn_main" not in " ".join(child.cmdline()):
                continue
            with open(f"/proc/{child.pid}/status") as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
            return (
                float(fields["VmRSS"].split()[0]) / 1024,
                float(fields["VmHWM"].split()[0]) / 1024,
            )
        except (psutil.Error, OSError, KeyError):
            continue
    return (0.0, 0.0)


@pytest.mark.parametrize(
    ("size_in", "dpi", "pages"),
    [((17.5, 24.6), 96, 5), ((17.5, 24.6), 200, 2), ((6.0, 3.0), 200, 3)],
    ids=["large-96ppi", "large-200ppi", "small"],
)
def test_scans_are_read_to_the_last_page_within_the_readers_limits(
    tmp_path: Path, size_in: tuple[float, float], dpi: int, pages: int
) -> None:
    """Issue 31: a 17.5 x 24.6 in scan ran out of memory at its 12th page (ONNX Runtime's
    std::bad_alloc under the reader's 3 GB address-space limit, resident memory grown to
    1.5 GB). Read here in a reader process with the app's own limits, to the last page."""
    from desktop_rag.ingest import sandbox

    content = [[f"Page {n} tells of the Pelargonite valve.", *LINES] for n in range(1, pages + 1)]
    path = make_scanned_pdf(tmp_path / "scan.pdf", content, dpi=dpi, size_in=size_in)
    memory: list[tuple[float, float]] = []

    def on_ocr(_job: sandbox.Job, done: int, _total: int) -> None:
        if done:
            memory.append(_reader_rss_mb())

    box = sandbox.Sandbox()  # DEFAULT_MEMORY_MB and the OCR time limits, as the app runs it
    try:
        ((_job, outcome),) = list(box.run([sandbox.Job(str(path))], on_ocr=on_ocr))
    finally:
        box.close()
    assert not isinstance(outcome, Exception), outcome
    for n, page in enumerate(outcome.pages, start=1):
        assert not page.error, page.error
        # Spaces put back by the recogniser's character positions may fall mid-word on
        # small print ("Pelargo nite"); every line's letters must be there.
        letters = "".join(page.text.lower().split())
        assert f"page{n}tellsofthepelargonite" in letters, (n, page.text)
        assert "hemocyanin" in letters, (n, page.text)
    assert len(memory) == pages
    # Half the reader's address space at most (a 17.5 x 24.6 in page rendered at 9 MP
    # peaked at 2.2 GB resident, where ONNX Runtime's bad_alloc was near).
    peak = max(hwm for _rss, hwm in memory)
    assert 0 < peak < sandbox.DEFAULT_MEMORY_MB / 2, memory
    # Memory does not grow page by page: the last page ends where the second did.
    if pages > 2:
        assert memory[-1][0] - memory[1][0] < 100, memory


def test_a_letter_page_is_read_in_under_600_mb_of_reader(tmp_path: Path) -> None:
    """Issue 45: finding the text of a letter page at 200 dpi (3.7 MP) took the reader from
    0.13 to 0.87 GB resident, beside an indexer of 0.6-0.7 GB. The text is found on at most
    engines.ocr.DETECT_PIXELS, and every line read at the page's own resolution."""
    from desktop_rag.ingest import sandbox

    content = [["Page 1 tells of the Pelargonite valve.", *LINES] * 8]
    path = make_scanned_pdf(tmp_path / "letter.pdf", content, dpi=200, size_in=(8.5, 11.0))
    memory: list[tuple[float, float]] = []

    def on_ocr(_job: sandbox.Job, done: int, _total: int) -> None:
        if done:
            memory.append(_reader_rss_mb())

    box = sandbox.Sandbox()
    try:
        ((_job, outcome),) = list(box.run([sandbox.Job(str(path))], on_ocr=on_ocr))
    finally:
        box.close()
    assert not isinstance(outcome, Exception), outcome
    letters = "".join(outcome.pages[0].text.lower().split())
    assert letters.count("tellsofthepelargonite") == 8, outcome.pages[0].text
    assert letters.count("hemocyanin") == 8, outcome.pages[0].text
    (peak,) = [hwm for _rss, hwm in memory]
    assert 0 < peak < 600, memory
