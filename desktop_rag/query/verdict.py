"""The verdict on a written answer its cited sources do not back: withheld, or only flagged.

One pure rule, applied by the answer service and scored by bench/answer_quality.py on cached
answers, so the benchmark measures the rule the app runs.
"""

from __future__ import annotations

from collections.abc import Callable

from desktop_rag.query.claims import OWN_WORDS, WEAK_MATCH


def withheld(
    refused: bool,
    best: float,
    own_words: Callable[[], float],
    *,
    words_only: bool = False,
    weak_match: float = WEAK_MATCH,
    own_limit: float = OWN_WORDS,
) -> bool:
    """Whether an answer the claims check refuses (`refused`: mostly not in the sources it
    cites) is withheld. Sources this near the question (best cosine at least `weak_match`) are
    about it: such an answer is flagged (a wrong figure, a word of the source next to the one
    cited), not withheld. From sources only somewhat near it, or with no cosine at all
    (searching by words only), it is the model's own knowledge under a citation; and so it is
    when at least `own_limit` of the words it adds are in none of the sources it read
    (`own_words`, the claims check's words_lacking over all of them, computed only when it
    decides)."""
    if not refused:
        return False
    if best < weak_match or words_only:
        return True
    return own_words() >= own_limit
