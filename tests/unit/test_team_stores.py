"""team.BothStores reads the libraries its BothRetriever searches: this desktop's store as the
retriever holds it now (a rebuild swaps it in), summed with the team's when one is attached,
with nothing to re-attach (desktop_rag/team.py)."""

from __future__ import annotations

from typing import Any

from desktop_rag.team import BothRetriever, BothStores
from tests.fakes import HashEmbedder


class Counted:
    """A store that holds `chunks` chunks, each word `df` times, and the words `said`."""

    def __init__(self, chunks: int, df: int, said: set[str]) -> None:
        self.chunks, self.df, self.said = chunks, df, said

    def count_chunks(self, where: str | None = None) -> int:
        return self.chunks

    def term_frequency(self, term: str, cap: int) -> int:
        return min(cap, self.df)

    def mentions(self, words: str, fuzziness: int = 0) -> bool:
        return words in self.said

    def chunks_holding(self, term: str, chunk_ids: Any) -> set[str]:
        return {f"{term}-{c}" for c in chunk_ids} if term in self.said else set()

    def sections(self) -> list[tuple[str, str]]:
        return [("mine.pdf", "Intro")]


class Team:
    """What BothStores asks of a TeamSearch: `call`, None when it did not answer."""

    def __init__(self, store: Counted | None) -> None:
        self.store = store

    def call(self, name: str, *args: Any) -> Any:
        return None if self.store is None else getattr(self.store, name)(*args)


def both(mine: Counted) -> tuple[BothRetriever, BothStores]:
    retriever = BothRetriever(mine, HashEmbedder())  # type: ignore[arg-type]
    return retriever, BothStores(retriever)


def test_without_a_team_library_the_reads_are_this_desktops() -> None:
    _, stores = both(Counted(10, 3, {"boiler"}))
    assert stores.count_chunks() == 10 and stores.term_frequency("boiler", 100) == 3
    assert stores.mentions("boiler") and not stores.mentions("octopus")
    assert stores.sections() == [("mine.pdf", "Intro")]


def test_an_attached_team_library_is_counted_and_searched_for_words() -> None:
    retriever, stores = both(Counted(10, 3, {"boiler"}))
    retriever.team = Team(Counted(5, 4, {"octopus"}))  # type: ignore[assignment]
    assert stores.count_chunks() == 15
    assert stores.term_frequency("boiler", 100) == 7 and stores.term_frequency("x", 5) == 5
    assert stores.mentions("octopus") and stores.mentions("boiler")
    assert stores.chunks_holding("octopus", ["a"]) == {"octopus-a"}
    assert stores.sections() == [("mine.pdf", "Intro")]  # this desktop's alone


def test_a_team_library_that_does_not_answer_counts_for_nothing() -> None:
    retriever, stores = both(Counted(10, 3, {"boiler"}))
    retriever.team = Team(None)  # type: ignore[assignment]
    assert stores.count_chunks() == 10 and not stores.mentions("octopus")


def test_a_rebuilt_index_is_read_as_soon_as_the_retriever_holds_it() -> None:
    retriever, stores = both(Counted(10, 3, set()))
    retriever.store = Counted(20, 1, {"rebuilt"})  # type: ignore[assignment]
    assert stores.count_chunks() == 20 and stores.mentions("rebuilt")
