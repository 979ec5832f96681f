"""The RapidOCR adapter without its models: each character's box with the spaces the
recogniser keeps, a line split where it jumps a column gutter, and an empty page."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from desktop_rag.engines.ocr import OcrLine, RapidOcr, _char_boxes, split_gutters


def _letters(text: str, x0: float = 0.0, step: float = 10.0, gutter_at: int = -1) -> list[Any]:
    """rapidocr's single-character results for `text`: one (letter, score, quad) per letter,
    none for a space; the letters `step` apart, a space one step, a gutter six."""
    out, x = [], x0
    for i, ch in enumerate(text):
        if i == gutter_at:
            x += 6 * step
        if not ch.isspace():
            out.append((ch, 0.99, [[x, 5], [x + 8, 5], [x + 8, 20], [x, 20]]))
        x += step
    return out


def test_each_character_has_a_box_and_a_space_the_gap_between_its_letters() -> None:
    boxes = _char_boxes("ab cd", _letters("ab cd"))
    assert len(boxes) == 5
    assert boxes[1] == (10.0, 5.0, 18.0, 20.0)
    assert boxes[2] == (18.0, 5.0, 30.0, 20.0)  # from b's right edge to c's left
    assert boxes[3][0] == 30.0


def test_no_boxes_when_the_letters_do_not_match_the_text() -> None:
    assert _char_boxes("abc", _letters("abd")) == ()
    assert _char_boxes("abc", _letters("ab")) == ()
    assert _char_boxes("abc", ()) == ()


def test_a_line_across_a_column_gutter_is_split_and_word_spaces_are_not() -> None:
    text = "the left column right one"
    chars = _char_boxes(text, _letters(text, gutter_at=16))
    line = OcrLine(text, 0.9, (0.0, 5.0, 400.0, 20.0), chars)
    left, right = split_gutters(line)
    assert (left.text, right.text) == ("the left column", "right one")
    assert len(left.chars) == len(left.text) and len(right.chars) == len(right.text)
    assert left.box[2] < right.box[0]
    plain = OcrLine("the left column", 0.9, left.box, chars[:15])
    assert split_gutters(plain) == [plain]


def test_the_adapter_reads_rapidocrs_result_and_an_empty_one() -> None:
    text = "Brücke über"
    result = SimpleNamespace(
        boxes=np.array([[[0, 5], [110, 5], [110, 20], [0, 20]]]),
        txts=(text,),
        scores=(0.97,),
        word_results=(tuple(_letters(text)),),
    )
    engine = RapidOcr()
    engine._engine = lambda image, **options: result
    image = np.zeros((30, 120, 3), dtype=np.uint8)
    (line,) = engine.read(image)
    assert line.text == text and line.score == 0.97
    assert line.box == (0.0, 5.0, 110.0, 20.0) and len(line.chars) == len(text)
    engine._engine = lambda image, **options: SimpleNamespace(boxes=None, txts=None)
    assert engine.read(image) == []
