"""The welcome offers questions drawn from the user's own documents (issue 41, item 9): two
or three, from their headings, refreshed as documents arrive; the guide's question stays."""

from __future__ import annotations

from urllib.parse import unquote

from desktop_rag.library import GUIDE_QUESTION
from desktop_rag.query.kind import PASSAGE, route
from tests.docgen import make_docx
from tests.helpers.window import WAIT_MS, names


def _offered(window) -> list[str]:
    html = window.chat.view.toHtml()
    return [unquote(part.split('"', 1)[0]) for part in html.split('href="ask:')[1:]]


def test_the_welcome_offers_questions_from_the_documents_headings(
    open_window, qtbot, tmp_path
) -> None:
    folder = tmp_path / "plans"
    folder.mkdir()
    make_docx(
        folder / "budget-plan.docx",
        [
            (1, "Introduction", ["This plan covers the year."]),
            (1, "Approved budget", ["The approved budget is 2.4 million euros."]),
            (1, "Travel rules", ["Travel is limited to two trips per person."]),
        ],
    )
    window = open_window()
    assert _offered(window) == [GUIDE_QUESTION]  # the guide is all there is
    window.session.add_folder(str(folder))
    qtbot.waitUntil(lambda: "budget-plan.docx" in names(window, "indexed"), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: len(_offered(window)) >= 3, timeout=WAIT_MS)
    offered = _offered(window)
    assert "What should I know about the approved budget?" in offered, offered
    assert "What should I know about the travel rules?" in offered, offered
    assert not any("Introduction" in q for q in offered), offered
    assert GUIDE_QUESTION in offered
    for question in offered:
        assert route(question).kind == PASSAGE, question
    # A document that arrives later is offered too.
    make_docx(folder / "kettle.docx", [(1, "Descaling the kettle", ["Use vinegar monthly."])])
    qtbot.waitUntil(
        lambda: "What should I know about descaling the kettle?" in _offered(window),
        timeout=WAIT_MS,
    )
    assert 3 <= len(_offered(window)) <= 4
