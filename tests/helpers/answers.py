"""Answer factories for window tests: the app's own answer service (query/answer.py) with a
fake model (tests/fakes.FakeLlm), composing from the sources' sentences or writing, so every
decision on what is shown is the real service's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop_rag.query.answer import WRITTEN
from tests.fakes import FakeLlm

if TYPE_CHECKING:
    from desktop_rag.app import App
    from desktop_rag.library_service import AnswerFactory
    from desktop_rag.routing import Answerer

# A written answer its first source (octopus.pdf's page 2, for "Why is octopus blood blue?")
# backs word for word: the service shows it as written.
BACKED = "According to [1], octopus blood is blue because it uses hemocyanin."


def composed(app: App) -> Answerer:
    """The app's answer service with a fake model in place of the bundled one: its answers are
    composed from the sources' sentences, as the bundled model's are, and no model file loads."""
    app.answer.use_llm(FakeLlm()).close()
    return app.answer


def written(answer: str = BACKED, *, delay_s: float = 0.01, name: str = "fake") -> AnswerFactory:
    """The app's answer service, told that its model writes, the model a fake that streams
    `answer` word by word, `delay_s` apart, whatever it is asked. What is shown of it
    (withheld, cited to another source, replaced by the sources' sentences) is the service's
    decision, as for a real model."""

    def factory(app: App) -> Answerer:
        llm = FakeLlm(answer, chat=True, delay_s=delay_s)
        llm.name = name
        app.answer.use_llm(llm).close()
        app.answer.mode = WRITTEN
        return app.answer

    return factory
