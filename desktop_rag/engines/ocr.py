"""Local OCR: the engine Protocol and the RapidOCR adapter (PP-OCRv6 models inside its wheel)."""

from __future__ import annotations

import importlib.util
import itertools
import logging
import math
import threading
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

log = logging.getLogger(__name__)

ENGINE_PACKAGE = "rapidocr"
# The three models the engine loads, all inside the wheel (detection, direction, recognition).
# PP-OCRv6's small recogniser is multilingual: Chinese, Japanese and the Latin scripts with
# their accents (French, German, Spanish, Italian, Portuguese, Polish, Czech, ...), which
# PP-OCRv4's dropped (bench/results/ocr-accents-*.json).
MODEL_FILES = (
    "PP-OCRv6_det_small.onnx",
    "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
    "PP-OCRv6_rec_small.onnx",
)
# The engine shrinks any image whose longer side exceeds this before reading it; our renders
# stay within it, so the resolution chosen by measurement is the one the models see.
MAX_SIDE = 3600

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels, origin top-left


@dataclass(frozen=True, slots=True)
class OcrLine:
    """One line of text found on an image: its words, confidence (0..1) and box in pixels.

    `chars` holds one box per character of `text` when the engine gives them (else empty).
    """

    text: str
    score: float
    box: Box
    chars: tuple[Box, ...] = ()


class OcrEngineError(Exception):
    """The engine could not read one image; the message says what happened, in words.

    `out_of_memory` is set when an allocation failed (ONNX Runtime's std::bad_alloc under the
    reader's address-space limit, or a MemoryError): the same page may read at fewer pixels.
    """

    def __init__(self, message: str, *, out_of_memory: bool = False) -> None:
        super().__init__(message)
        self.out_of_memory = out_of_memory


# Where in RapidOCR a failure happened, by the module its traceback passes through.
_STAGES = (
    ("ch_ppocr_det", "text detection"),
    ("ch_ppocr_cls", "text direction"),
    ("ch_ppocr_rec", "text recognition"),
)
_OOM_MARKS = ("bad_alloc", "failed to allocate", "out of memory", "cannot allocate memory")


def engine_error(exc: BaseException) -> OcrEngineError:
    """An engine's exception as an OcrEngineError: ONNX Runtime's own message (not the
    traceback RapidOCR wraps it in), the model that raised it, and whether memory ran out."""
    if isinstance(exc, OcrEngineError):
        return exc
    cause = exc.__cause__ if exc.__cause__ is not None else exc
    text = str(cause).strip()
    detail = text.splitlines()[-1].strip() if text else type(cause).__name__
    # "[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned while
    # running Conv node. Name:'conv2d_482.tmp_0_nchwc' Status Message: std::bad_alloc"
    detail = detail.split("Status Message:")[-1].strip() or detail
    files = " ".join(frame.filename for frame in traceback.extract_tb(exc.__traceback__))
    stage = next((name for mark, name in _STAGES if mark in files), "")
    where = f" in its {stage} model" if stage else ""
    lowered = text.lower()
    if isinstance(cause, MemoryError) or any(mark in lowered for mark in _OOM_MARKS):
        return OcrEngineError(
            f"the OCR engine ran out of memory{where} ({detail or 'MemoryError'})",
            out_of_memory=True,
        )
    return OcrEngineError(f"the OCR engine failed{where} ({detail[:200]})")


class OcrEngine(Protocol):
    """What reading a page image needs of an OCR engine."""

    name: str

    def read(self, image: NDArray[np.uint8]) -> list[OcrLine]:
        """The lines of text on an RGB image (height x width x 3), in any order; raises
        OcrEngineError when the engine fails on it."""
        ...


def available() -> bool:
    """Whether the OCR engine and its models are installed (the app runs without them)."""
    try:
        return importlib.util.find_spec(ENGINE_PACKAGE) is not None and all(
            (models_dir() / name).is_file() for name in MODEL_FILES
        )
    except (ImportError, ValueError):
        return False


def models_dir() -> Path:
    """Where the wheel keeps the models (read in place; nothing is ever downloaded)."""
    spec = importlib.util.find_spec(ENGINE_PACKAGE)
    if spec is None or spec.origin is None:
        raise ImportError(f"{ENGINE_PACKAGE} is not installed")
    return Path(spec.origin).parent / "models"


# Text is found on the page at no more than this many pixels; the lines found are read at the
# full resolution. The detector's memory grows with the pixels it sees, about 180 MB a
# megapixel: a letter page at 200 dpi (3.7 MP) took the reader from 0.13 to 0.87 GB, beside
# the indexer (issue 45).
DETECT_PIXELS = 2_000_000


def detect_limit(height: int, width: int, pixels: int = DETECT_PIXELS) -> int:
    """The longer side to find text at on a height x width image, within `pixels`."""
    longer = max(height, width)
    scale = min(1.0, math.sqrt(pixels / max(height * width, 1)))
    return max(32, int(longer * scale))


class RapidOcr:
    """PP-OCRv6 small through ONNX Runtime; the models load on first use, once per process."""

    name = "rapidocr"

    def __init__(self, threads: int = 1, detect_pixels: int = DETECT_PIXELS) -> None:
        # One thread: the reader process runs beside the embedder on few cores.
        self.threads = max(1, threads)
        self.detect_pixels = detect_pixels  # 0: find text at the image's own resolution
        self._engine: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._engine is None:
                from rapidocr import RapidOCR

                models = models_dir()
                det, cls, rec = (str(models / name) for name in MODEL_FILES)
                # Each model named by its path, read in place: a model not named is one
                # rapidocr would download (the same file, from its own site, at run time).
                engine = RapidOCR(
                    params={
                        "Global.log_level": "warning",
                        "Global.max_side_len": MAX_SIDE,
                        "Global.model_root_dir": str(models),
                        "Det.model_path": det,
                        "Cls.model_path": cls,
                        "Rec.model_path": rec,
                        "EngineConfig.onnxruntime.intra_op_num_threads": self.threads,
                        "EngineConfig.onnxruntime.inter_op_num_threads": 1,
                    }
                )
                if self.detect_pixels:
                    _limit_detection(engine._load_det_model(), self.detect_pixels)
                self._engine = engine
            return self._engine

    def read(self, image: NDArray[np.uint8]) -> list[OcrLine]:
        try:
            result = self._load()(image, return_word_box=True, return_single_char_box=True)
        except Exception as exc:  # ONNX Runtime's errors, wrapped by RapidOCR in its own
            raise engine_error(exc) from exc
        # Nothing found comes back as an empty result; boxes without words as the detector's.
        if getattr(result, "txts", None) is None or getattr(result, "boxes", None) is None:
            return []
        words = result.word_results or ()
        lines = []
        for i, (quad, text, score) in enumerate(
            zip(result.boxes, result.txts, result.scores, strict=True)
        ):
            xs = [float(p[0]) for p in quad]
            ys = [float(p[1]) for p in quad]
            box = (min(xs), min(ys), max(xs), max(ys))
            chars = _char_boxes(str(text), words[i] if i < len(words) else ())
            lines.extend(split_gutters(OcrLine(str(text), float(score), box, chars)))
        return lines


def _char_boxes(text: str, items: Any) -> tuple[Box, ...]:
    """One box per character of `text`: rapidocr gives the letters' boxes without the spaces,
    so each space is given the gap between its neighbours."""
    letters = [c for c in text if not c.isspace()]
    if not items or len(items) != len(letters) or [str(it[0]) for it in items] != letters:
        return ()
    boxes: list[Box] = []
    for it in items:
        qx = [float(p[0]) for p in it[2]]
        qy = [float(p[1]) for p in it[2]]
        boxes.append((min(qx), min(qy), max(qx), max(qy)))
    out: list[Box] = []
    k = 0
    for ch in text:
        if ch.isspace():
            left = boxes[k - 1] if k else boxes[0]
            right = boxes[k] if k < len(boxes) else left
            out.append((left[2], left[1], max(left[2], right[0]), left[3]))
        else:
            out.append(boxes[k])
            k += 1
    return tuple(out)


def _limit_detection(detector: Any, pixels: int) -> None:
    """Make RapidOCR's text detector shrink images to `pixels` before finding text on them.
    Its own choice of size (limit_type 'min': never shrink; 'max': a fixed side) ignores the
    area; its post-processing maps the boxes back to the full image."""

    def preprocess() -> Any:
        return _AreaPreProcess(pixels, detector.mean, detector.std)

    detector.get_preprocess = preprocess


class _AreaPreProcess:
    def __init__(self, pixels: int, mean: Any, std: Any) -> None:
        self.pixels, self.mean, self.std = pixels, mean, std

    def __call__(self, image: NDArray[np.uint8]) -> Any:
        from rapidocr.ch_ppocr_det.utils import DetPreProcess

        limit = detect_limit(image.shape[0], image.shape[1], self.pixels)
        return DetPreProcess(limit, "max", self.mean, self.std)(image)


# The detector can join lines of two columns across a narrow gutter; the character positions
# still show both.
GUTTER_STEP = 4.0


def split_gutters(line: OcrLine) -> list[OcrLine]:
    """A line read with its spaces, split where it jumps a column gutter: a step between the
    centres of two letters GUTTER_STEP times the line's median step between letters (a space
    between words makes about two)."""
    chars, text = line.chars, line.text
    letters = [i for i, ch in enumerate(text) if not ch.isspace()]
    if len(chars) != len(text) or len(letters) < 3:
        return [line]
    centres = [(chars[i][0] + chars[i][2]) / 2 for i in letters]
    steps = [b - a for a, b in itertools.pairwise(centres)]
    median = sorted(steps)[len(steps) // 2]
    if median <= 0:
        return [line]
    cuts = [letters[k + 1] for k, step in enumerate(steps) if step >= GUTTER_STEP * median]
    if not cuts:
        return [line]
    out = []
    for start, end in itertools.pairwise([0, *cuts, len(text)]):
        piece = list(range(start, end))
        while piece and text[piece[-1]].isspace():
            piece.pop()
        while piece and text[piece[0]].isspace():
            piece.pop(0)
        if not piece:
            continue
        boxes = tuple(chars[i] for i in piece)
        box = (min(b[0] for b in boxes), line.box[1], max(b[2] for b in boxes), line.box[3])
        out.append(OcrLine("".join(text[i] for i in piece), line.score, box, boxes))
    return out
