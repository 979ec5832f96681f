"""OCR of pages without a usable text layer, with a fake engine: order, boxes, limits, control."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from desktop_rag.engines.ocr import OcrLine
from desktop_rag.ingest import ocr, sandbox
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.ingest.extract import ExtractError, extract
from desktop_rag.ingest.ocr import OcrRequest, assemble, order_lines
from desktop_rag.types import FailKind
from tests.fake_readers import read_by_name
from tests.fakes import FakeOcr
from tests.pdfgen import make_pdf
from tests.scanned import make_noise_pdf, make_scanned_pdf


@pytest.fixture
def fake_ocr():
    engine = FakeOcr(
        [("Octopus blood is blue because of hemocyanin.", 0.97), ("It carries oxygen.", 0.93)]
    )
    ocr.set_engine(engine)
    yield engine
    ocr.set_engine(None)


def _line(text: str, x0: float, y0: float, x1: float, y1: float, score: float = 0.9) -> OcrLine:
    return OcrLine(text, score, (x0, y0, x1, y1))


def _text(blocks: list[list[list[OcrLine]]]) -> list[str]:
    return [ln.text for block in blocks for row in block for ln in row]


def test_two_columns_are_read_one_after_the_other() -> None:
    # Lines of both columns share their heights, as in a two-column article.
    lines = [_line("Title across the page", 100, 50, 1100, 90)]
    for i in range(6):
        y = 150 + 40 * i
        lines.append(_line(f"left {i}", 100, y, 560, y + 25))
        lines.append(_line(f"right {i}", 640, y, 1100, y + 25))
    got = _text(order_lines(lines))
    assert got == ["Title across the page"] + [f"left {i}" for i in range(6)] + [
        f"right {i}" for i in range(6)
    ]


def test_table_rows_stay_rows() -> None:
    # A label column and narrow number columns: cells, not columns of running text.
    lines = []
    for i in range(5):
        y = 100 + 40 * i
        lines.append(_line(f"label {i}", 100, y, 500, y + 25))
        lines.append(_line(f"{i}1", 800, y, 860, y + 25))
        lines.append(_line(f"{i}2", 950, y, 1010, y + 25))
    got = _text(order_lines(lines))
    assert got[:3] == ["label 0", "01", "02"]
    assert got[3:6] == ["label 1", "11", "12"]


def test_boxes_point_at_their_words_and_unsure_lines_are_dropped() -> None:
    lines = [
        _line("Hemocyanin binds oxygen", 100, 100, 700, 140, 0.95),
        _line("zq#x", 100, 200, 200, 240, 0.3),  # noise read as letters
        _line("with copper", 100, 300, 400, 340, 0.9),
    ]
    result = assemble(lines, 1000, 1000)
    assert result.text == "Hemocyanin binds oxygen\n\nwith copper"
    words = [result.text[s:e] for s, e, *_ in result.boxes]
    assert words == ["Hemocyanin", "binds", "oxygen", "with", "copper"]
    for _s, _e, x0, y0, x1, y1 in result.boxes:
        assert 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1
    first = result.boxes[0]
    assert first[2] == pytest.approx(0.1) and first[3] == pytest.approx(0.1)
    assert result.score == pytest.approx((0.95 * 21 + 0.9 * 10) / 31)


def test_a_scan_is_read_with_ocr_and_keeps_its_boxes(tmp_path: Path, fake_ocr: FakeOcr) -> None:
    path = make_scanned_pdf(tmp_path / "scan.pdf", [["anything"], ["anything"]])
    with pytest.raises(ExtractError) as caught:
        extract(str(path))  # no OCR asked: the old answer
    assert caught.value.kind == FailKind.NO_TEXT and "no text layer" in str(caught.value)
    seen: list[tuple[int, int]] = []
    result = extract(str(path), ocr=OcrRequest(on_page=lambda d, t: seen.append((d, t))))
    assert fake_ocr.calls == 2
    assert seen == [(1, 2), (2, 2)]
    assert [p.ocr for p in result.pages] == [True, True]
    page = result.pages[0]
    assert page.text.startswith("Octopus blood is blue")
    assert [page.text[s:e] for s, e, *_ in page.boxes][:3] == ["Octopus", "blood", "is"]
    # Rendered at the chosen resolution (the page is 6 x 3 inches).
    assert fake_ocr.shapes[0][:2] == (3 * ocr.DPI, 6 * ocr.DPI)


def test_digital_pages_are_not_ocrd_unless_forced(tmp_path: Path, fake_ocr: FakeOcr) -> None:
    path = make_pdf(tmp_path / "digital.pdf", ["A page of real text about squid and octopus."])
    result = extract(str(path), ocr=OcrRequest())
    assert fake_ocr.calls == 0 and not result.pages[0].ocr
    forced = extract(str(path), ocr=OcrRequest(force=True))
    assert fake_ocr.calls == 1
    assert forced.pages[0].ocr and forced.pages[0].text.startswith("Octopus blood")


def test_noise_is_not_indexed_as_words(tmp_path: Path) -> None:
    ocr.set_engine(FakeOcr([("x7 ;k", 0.62), ("lll1", 0.65)]))
    try:
        path = make_noise_pdf(tmp_path / "noise.pdf")
        with pytest.raises(ExtractError) as caught:
            extract(str(path), ocr=OcrRequest())
    finally:
        ocr.set_engine(None)
    assert caught.value.kind == FailKind.NO_TEXT
    assert "OCR found no text it is sure of" in str(caught.value)


def test_reading_holds_between_pages_while_paused(tmp_path: Path, fake_ocr: FakeOcr) -> None:
    path = make_scanned_pdf(tmp_path / "scan.pdf", [["a"], ["b"], ["c"]])
    pages_read: list[int] = []  # how many pages were read at each look at the pause

    def paused() -> bool:
        pages_read.append(fake_ocr.calls)
        return fake_ocr.calls == 1 and pages_read.count(1) <= 3  # after page 1, three looks

    extract(str(path), ocr=OcrRequest(paused=paused))
    # Looked before each page; while paused, no page was read, and it went on after.
    assert pages_read == [0, 1, 1, 1, 1, 2]
    assert fake_ocr.calls == 3


def test_chunks_carry_the_boxes_of_their_own_words(tmp_path: Path, fake_ocr: FakeOcr) -> None:
    from desktop_rag.ingest.chunk import chunk_pages
    from tests.fakes import WordTokenizer

    fake_ocr.lines = [(f"word{i} " * 10, 0.95) for i in range(12)]
    path = make_scanned_pdf(tmp_path / "scan.pdf", [["x"]])
    pages = extract(str(path), ocr=OcrRequest()).pages
    chunks = ocr.with_boxes(
        chunk_pages("d", str(path), pages, WordTokenizer(), ChunkParams(32, 8)), pages
    )
    assert len(chunks) > 2
    for chunk in chunks:
        boxes = json.loads(chunk.boxes)
        assert boxes and all(chunk.start <= s and e <= chunk.end for s, e, *_ in boxes)
        assert [pages[0].text[s:e] for s, e, *_ in boxes] == chunk.text.split()


# -- limits in the reader process ---------------------------------------------------------------


def test_a_page_over_its_limit_stops_its_file_only(tmp_path: Path) -> None:
    # 'ocr-hang' says it has 3 pages to OCR, reads one, then hangs on the second.
    hang = tmp_path / "ocr-hang-3.pdf"
    fine = tmp_path / "fine.pdf"
    for p in (hang, fine):
        p.write_bytes(b"%PDF-1.4")
    box = sandbox.Sandbox(
        timeout_s=60, memory_mb=0, read=read_by_name, page_timeout_s=1.5, page_budget_s=10
    )
    heard: list[tuple[str, int, int]] = []
    try:
        got = dict(
            box.run(
                [sandbox.Job(str(hang)), sandbox.Job(str(fine))],
                on_ocr=lambda job, d, t: heard.append((Path(job.path).name, d, t)),
            )
        )
    finally:
        box.close()
    outcome = {Path(j.path).name: o for j, o in got.items()}
    assert isinstance(outcome["ocr-hang-3.pdf"], ExtractError)
    assert outcome["ocr-hang-3.pdf"].kind == FailKind.TIMEOUT
    assert "page 2 of 3 with OCR" in str(outcome["ocr-hang-3.pdf"])
    assert not isinstance(outcome["fine.pdf"], ExtractError)
    assert ("ocr-hang-3.pdf", 1, 3) in heard


def test_the_file_limit_grows_with_its_pages_to_ocr(tmp_path: Path) -> None:
    # 6 pages of 0.4 s: 2.4 s, over the 1 s limit of a text PDF, within 1 s + 6 x 1 s.
    slow = tmp_path / "ocr-slow-6.pdf"
    slow.write_bytes(b"%PDF-1.4")
    box = sandbox.Sandbox(
        timeout_s=1.0, memory_mb=0, read=read_by_name, page_timeout_s=5, page_budget_s=1.0
    )
    try:
        ((_job, outcome),) = list(box.run([sandbox.Job(str(slow))]))
    finally:
        box.close()
    assert not isinstance(outcome, ExtractError), outcome
    # And without pages to OCR the old limit holds (a reader hanging 60 s is stopped).
    hang = tmp_path / "hang.pdf"
    hang.write_bytes(b"%PDF-1.4")
    box = sandbox.Sandbox(timeout_s=1.0, memory_mb=0, read=read_by_name)
    try:
        ((_job, outcome),) = list(box.run([sandbox.Job(str(hang))]))
    finally:
        box.close()
    assert isinstance(outcome, ExtractError) and outcome.kind == FailKind.TIMEOUT


def test_paused_time_is_not_counted_against_the_limits(tmp_path: Path) -> None:
    slow = tmp_path / "ocr-slow-4.pdf"
    slow.write_bytes(b"%PDF-1.4")
    pause = threading.Event()
    box = sandbox.Sandbox(
        timeout_s=1.0, memory_mb=0, read=read_by_name, page_timeout_s=1.0, page_budget_s=0.5
    )
    heard: list[int] = []

    def on_ocr(job: sandbox.Job, done: int, total: int) -> None:
        heard.append(done)
        if done == 1:  # hold for 3 s: longer than every limit
            pause.set()
            threading.Timer(3.0, pause.clear).start()

    try:
        ((_job, outcome),) = list(box.run([sandbox.Job(str(slow))], pause=pause, on_ocr=on_ocr))
    finally:
        box.close()
    assert not isinstance(outcome, ExtractError), outcome
    assert heard[:2] == [0, 1]


def test_a_page_waiting_for_a_core_is_not_a_stuck_page(tmp_path: Path) -> None:
    # Each page takes 0.4 s of wall time but hardly any CPU (a machine busy with other work):
    # over the 0.2 s page limit by the clock, well within it in the reader's CPU seconds.
    slow = tmp_path / "ocr-slow-3.pdf"
    slow.write_bytes(b"%PDF-1.4")
    box = sandbox.Sandbox(
        timeout_s=0.2, memory_mb=0, read=read_by_name, page_timeout_s=0.2, page_budget_s=0.2
    )
    try:
        ((_job, outcome),) = list(box.run([sandbox.Job(str(slow))]))
    finally:
        box.close()
    assert not isinstance(outcome, ExtractError), outcome


def test_a_blank_pdf_is_not_called_a_scan(tmp_path: Path, fake_ocr: FakeOcr) -> None:
    path = make_pdf(tmp_path / "blank.pdf", [""])
    with pytest.raises(ExtractError) as caught:
        extract(str(path), ocr=OcrRequest())
    assert fake_ocr.calls == 0
    assert "shows nothing to read" in str(caught.value)


# -- large pages, engine errors -----------------------------------------------------------------


class _FailingOcr(FakeOcr):
    """Runs out of memory on images of more than `max_pixels`, and on the calls in `fail_on`
    (1-based) whatever their size."""

    def __init__(self, max_pixels: int = 1 << 40, fail_on: tuple[int, ...] = ()) -> None:
        super().__init__()
        self.max_pixels = max_pixels
        self.fail_on = fail_on

    def read(self, image):  # type: ignore[no-untyped-def]
        from desktop_rag.engines.ocr import OcrEngineError

        lines = super().read(image)
        if self.calls in self.fail_on or image.shape[0] * image.shape[1] > self.max_pixels:
            raise OcrEngineError(
                "the OCR engine ran out of memory in its text detection model (std::bad_alloc)",
                out_of_memory=True,
            )
        return lines


def test_a_large_scan_is_rendered_at_its_own_resolution(tmp_path: Path, fake_ocr: FakeOcr) -> None:
    # The page of issue 31: 17.5 x 24.6 in, its image placed at 96 ppi (1680 x 2362 px).
    path = make_scanned_pdf(tmp_path / "large.pdf", [["x"]], dpi=96, size_in=(17.5, 24.6))
    extract(str(path), ocr=OcrRequest())
    assert fake_ocr.shapes[0][:2] == (2362, 1680)


def test_a_fine_large_scan_is_rendered_within_the_pixel_budget(
    tmp_path: Path, fake_ocr: FakeOcr
) -> None:
    # The same page size scanned at 200 ppi: 17 MP at its own resolution, 9 MP at the old
    # side limit; the detection model needs about 190 MB per megapixel.
    path = make_scanned_pdf(
        tmp_path / "large.pdf", [["x"]], dpi=200, size_in=(17.5, 24.6), noise=0.0
    )
    extract(str(path), ocr=OcrRequest())
    height, width = fake_ocr.shapes[0][:2]
    assert height * width <= ocr.PIXEL_BUDGET
    assert height * width >= 0.95 * ocr.PIXEL_BUDGET
    assert abs(height / width - 24.6 / 17.5) < 0.01


def test_a_small_or_coarse_scan_keeps_a_readable_resolution(
    tmp_path: Path, fake_ocr: FakeOcr
) -> None:
    coarse = make_scanned_pdf(tmp_path / "coarse.pdf", [["x"]], dpi=50, size_in=(6.0, 3.0))
    extract(str(coarse), ocr=OcrRequest())
    assert fake_ocr.shapes[-1][:2] == (3 * ocr.MIN_DPI, 6 * ocr.MIN_DPI)
    fine = make_scanned_pdf(tmp_path / "fine.pdf", [["x"]], dpi=400, size_in=(6.0, 3.0))
    extract(str(fine), ocr=OcrRequest())
    assert fake_ocr.shapes[-1][:2] == (3 * ocr.DPI, 6 * ocr.DPI)


def test_a_page_the_engine_cannot_read_costs_only_that_page(tmp_path: Path) -> None:
    engine = _FailingOcr(fail_on=(2, 3))  # page 2, and its retry with fewer pixels
    ocr.set_engine(engine)
    try:
        path = make_scanned_pdf(tmp_path / "scan.pdf", [["a"], ["b"], ["c"]])
        pages = extract(str(path), ocr=OcrRequest()).pages
    finally:
        ocr.set_engine(None)
    assert [bool(p.text) for p in pages] == [True, False, True]
    assert not pages[0].error and not pages[2].error
    assert "ran out of memory" in pages[1].error and "std::bad_alloc" in pages[1].error
    # The retry asked for fewer pixels.
    first, retry = engine.shapes[1], engine.shapes[2]
    assert retry[0] * retry[1] < 0.5 * first[0] * first[1]
    assert ocr.page_problems(pages, 3).startswith("page 2 of 3 could not be read with OCR: ")


def test_a_page_too_big_for_memory_is_read_with_fewer_pixels(tmp_path: Path) -> None:
    engine = _FailingOcr(max_pixels=3_000_000)
    ocr.set_engine(engine)
    try:
        path = make_scanned_pdf(tmp_path / "large.pdf", [["x"]], dpi=96, size_in=(17.5, 24.6))
        (page,) = extract(str(path), ocr=OcrRequest()).pages
    finally:
        ocr.set_engine(None)
    assert page.text and not page.error
    assert len(engine.shapes) == 2


def test_an_engine_error_on_every_page_is_reported_as_what_it_is(tmp_path: Path) -> None:
    ocr.set_engine(_FailingOcr(max_pixels=0))
    try:
        path = make_scanned_pdf(tmp_path / "scan.pdf", [["a"], ["b"]])
        with pytest.raises(ExtractError) as caught:
            extract(str(path), ocr=OcrRequest())
    finally:
        ocr.set_engine(None)
    message = str(caught.value)
    assert caught.value.kind == FailKind.MEMORY
    assert "could not be read with OCR on any of its 2 pages" in message
    assert "ran out of memory in its text detection model (std::bad_alloc)" in message
    assert "damaged" not in message


def test_the_adapter_reports_onnx_runtimes_own_error() -> None:
    from desktop_rag.engines.ocr import OcrEngineError, RapidOcr

    class RuntimeException(Exception):  # onnxruntime_pybind11_state's, as RapidOCR wraps it
        pass

    def detect(image, **options):  # type: ignore[no-untyped-def]
        try:
            raise RuntimeException(
                "[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned "
                "while running Conv node. Name:'conv2d_482.tmp_0_nchwc' Status Message: "
                "std::bad_alloc"
            )
        except RuntimeException as exc:
            raise Exception("Traceback (most recent call last):\n  File ...") from exc

    engine = RapidOcr()
    engine._engine = detect
    import numpy as np

    with pytest.raises(OcrEngineError) as caught:
        engine.read(np.zeros((10, 10, 3), dtype=np.uint8))
    assert caught.value.out_of_memory
    assert str(caught.value) == "the OCR engine ran out of memory (std::bad_alloc)"


def test_text_is_found_on_at_most_the_detection_budget() -> None:
    from desktop_rag.engines.ocr import DETECT_PIXELS, detect_limit

    letter = (2200, 1700)  # 8.5 x 11 in at 200 dpi: 3.7 MP
    longer = detect_limit(*letter)
    assert longer < 2200
    assert longer * (longer * 1700 / 2200) <= DETECT_PIXELS
    assert detect_limit(600, 800) == 800  # small images are not enlarged
    assert detect_limit(*letter, pixels=0) == 32
