"""financebench's Japan case with the real embedder over the real 3M page it cited: near the
question by cosine, so an unbacked answer from it was only flagged; but the answer's one new
word, "yen", is on none of its sources: the model's own, withheld."""

from __future__ import annotations

from pathlib import Path

import pypdf
import pytest

from desktop_rag.query.prompt import NOTHING_RELEVANT
from desktop_rag.types import DoneEvent, SourcesEvent
from tests.claims_case import near_but_unbacked

pytestmark = pytest.mark.slow

JAPAN = "What is the currency of Japan?"


def test_the_yen_over_a_page_naming_japan_and_currency_is_withheld(
    tmp_path: Path, corpus: Path
) -> None:
    # Page 23 of 3M's 2018 10-K: "In Japan, total sales and organic local-currency sales were
    # flat." The whole filing is 160 pages: the one page stands for it.
    filing = pypdf.PdfReader(corpus / "financebench" / "pdfs" / "3M_2018_10K.pdf")
    page = pypdf.PdfWriter()
    page.add_page(filing.pages[22])
    (tmp_path / "library").mkdir()
    with (tmp_path / "library" / "3M_2018_10K-p23.pdf").open("wb") as out:
        page.write(out)
    app, llm = near_but_unbacked(
        tmp_path / "library", tmp_path / "data", "1], the currency of Japan is the yen.", JAPAN
    )
    events = list(app.answer.ask(JAPAN))
    sources, done = events[0], events[-1]
    assert isinstance(sources, SourcesEvent) and isinstance(done, DoneEvent)
    assert llm.prompts, "the gate refused it: this test is of the claim check"
    assert any("Japan" in s.text for s in sources.sources)
    assert not any("yen" in s.text.lower().split() for s in sources.sources)
    assert done.withheld == "According to [1], the currency of Japan is the yen."
    assert "yen" not in done.answer.lower().split()
    if done.refused:
        assert done.answer == NOTHING_RELEVANT and done.cited == ()
    else:
        # The cross-encoder found the page's sentences answering enough to compose from: they
        # are shown, as a composed answer would be, with why the model's is not.
        assert done.mode == "composed" and "their own sentences are shown instead" in done.note
