"""The plain loop's chunking: 180-word windows with 30 words of overlap, every word kept."""

from bench.baseline import CHUNK_WORDS, OVERLAP_WORDS, chunk_words


def test_windows_overlap_by_30_words_and_cover_every_word() -> None:
    words = [f"w{i}" for i in range(400)]
    chunks = [c.split() for c in chunk_words(words)]
    assert [len(c) for c in chunks] == [180, 180, 100]
    assert chunks[1][:OVERLAP_WORDS] == chunks[0][-OVERLAP_WORDS:]
    assert chunks[-1][-1] == "w399"


def test_short_and_empty_files() -> None:
    assert chunk_words([]) == []
    assert chunk_words(["a", "b"]) == ["a b"]
    exact = [str(i) for i in range(CHUNK_WORDS)]
    assert chunk_words(exact) == [" ".join(exact)]  # no tail of overlap alone
