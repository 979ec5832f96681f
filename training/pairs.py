"""The training pairs: (question, passage) and (question, sentence with its neighbours), labelled.

From the tune halves only (training/libraries.py says which documents):
- covid-qa's questions on the tune articles: a passage the app retrieves is a positive when it
  holds a gold answer span, a negative when it does not; the sentence holding the span is a
  positive sentence, the other sentences of the retrieved passages negatives.
- the project's own manual questions on the tune manuals (bench/questions: facts, paraphrases,
  titles; gnuplot's left out): the passages the app retrieves on the gold page are positives
  (titles and paraphrases, soft) or those holding the fact's must-words (facts); passages of
  other pages are negatives; the sentences holding the must-words are positive sentences.
- the teacher's questions (training/data/questions-*.jsonl): its passage is a positive with
  the teacher's own P(yes) as the label, the other passages retrieved for it negatives with a
  small weight (a manual may say it twice); the question it wrote as unanswered by the passage
  gives negatives for every passage retrieved for it; its answer sentence, where it matches a
  sentence of the passage, is a positive sentence.

    python -m training.pairs            # writes the pairs to the training cache, prints counts
"""

from __future__ import annotations

import difflib
import json
import random
import re
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from desktop_rag.engines.rerank import passage_text, sentence_text
from desktop_rag.query.quote import split_sentences
from training import libraries
from training.teach import DATA
from training.teacher import CACHE

OUT = CACHE / "pairs.jsonl"
SEED = 7
TOP = 20  # the candidates the app re-ranks
NEGATIVES = 4  # passages per question
SENTENCE_NEGATIVES = 4


@dataclass(frozen=True)
class Pair:
    question: str
    text: str
    label: float
    weight: float
    kind: str  # "passage" or "sentence"
    source: str  # which set it came from
    group: str  # the question's id: pairs of one question stay in one fold


def norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w%.$-]+", " ", text.lower()).split())


def holds(text: str, answers: list[str]) -> bool:
    low = norm(text)
    return any(norm(a) and norm(a) in low for a in answers)


def sentence_pairs(
    question: str,
    passage: str,
    positive: Any,
    source: str,
    group: str,
    rng: random.Random,
    weight: float = 1.0,
) -> list[Pair]:
    """Each sentence of a passage with its neighbours; positive(sentence) says which answer."""
    sentences = split_sentences(passage)
    out = []
    for i, s in enumerate(sentences):
        before = sentences[i - 1] if i else ""
        after = sentences[i + 1] if i + 1 < len(sentences) else ""
        label = positive(s)
        if label is None:
            continue
        out.append(
            Pair(
                question, sentence_text(s, before, after), label, weight, "sentence", source, group
            )
        )
    neg = [p for p in out if p.label == 0.0]
    rng.shuffle(neg)
    return [p for p in out if p.label > 0.0] + neg[:SENTENCE_NEGATIVES]


def covid_pairs(rng: random.Random) -> list[Pair]:
    tune = {Path(p).name for p in libraries.covid_files()}
    rows = [json.loads(line) for line in (libraries.CORPUS / "covid-qa" / "questions.jsonl").open()]
    rows = [r for r in rows if Path(r["pdf"]).name in tune]
    app = libraries.open_library("covid", index=False)
    out: list[Pair] = []
    for r in rows:
        q, answers = r["question"], list(r["answers"])
        group = f"covid:{q}"
        hits = app.retriever.search(q, TOP)
        pos = [h for h in hits if holds(h.text, answers)]
        neg = [h for h in hits if not holds(h.text, answers)]
        for h in pos[:2]:
            out.append(
                Pair(q, passage_text(h.text, h.section), 1.0, 1.0, "passage", "covid", group)
            )
            out += sentence_pairs(
                q, h.text, lambda s, a=answers: 1.0 if holds(s, a) else 0.0, "covid", group, rng
            )
        for h in neg[:NEGATIVES]:
            out.append(
                Pair(q, passage_text(h.text, h.section), 0.0, 1.0, "passage", "covid", group)
            )
    return out


def manual_pairs(rng: random.Random) -> list[Pair]:
    app = libraries.open_library("manuals", index=False)
    out: list[Pair] = []
    for name, soft in (
        ("manuals-facts", 1.0),
        ("manuals-paraphrases", 0.8),
        ("manuals-titles", 0.7),
    ):
        for line in (libraries.QUESTIONS / f"{name}.jsonl").open():
            r = json.loads(line)
            if r.get("split") != "tune" or libraries.excluded(r["pdf"]):
                continue
            q = r["question"]
            must = list(r.get("must") or [])
            group = f"{name}:{q}"
            hits = app.retriever.search(q, TOP)

            def on_gold(h: Any, r: dict[str, Any] = r) -> bool:
                return bool(Path(h.path).name == r["pdf"] and h.page == r["page"])

            for h in hits:
                text = passage_text(h.text, h.section)
                if on_gold(h):
                    # With must-words, only the passage holding them is a positive.
                    label = (1.0 if holds(h.text, must) else None) if must else soft
                    if label is None:
                        continue
                    out.append(Pair(q, text, label, 1.0, "passage", name, group))
                    if must:
                        out += sentence_pairs(
                            q,
                            h.text,
                            lambda s, must=must: 1.0 if holds(s, must) else 0.0,
                            name,
                            group,
                            rng,
                        )
            neg = [h for h in hits if not on_gold(h) and Path(h.path).name != r["pdf"]]
            for h in neg[:NEGATIVES]:
                out.append(
                    Pair(q, passage_text(h.text, h.section), 0.0, 0.7, "passage", name, group)
                )
    return out


def teacher_pairs(rng: random.Random) -> list[Pair]:
    out: list[Pair] = []
    for library in libraries.LIBRARIES:
        path = DATA / f"questions-{library}.jsonl"
        if not path.exists():
            continue
        app = libraries.open_library(library, index=False)
        rows = [json.loads(line) for line in path.open() if line.strip()]
        for r in rows:
            q, u = r.get("question", ""), r.get("unanswered", "")
            source = (
                app.store.chunks_table.search()
                .where(f"chunk_id = '{r['chunk_id']}'")
                .limit(1)
                .to_list()
            )
            if not source:
                continue
            src = source[0]
            src_text = passage_text(src["text"], src.get("section") or "")
            group = f"teacher:{r['key']}"
            if q and r.get("p_question", 1.0) >= 0.5:
                out.append(
                    Pair(
                        q,
                        src_text,
                        float(r.get("p_question", 1.0)),
                        1.0,
                        "passage",
                        "teacher",
                        group,
                    )
                )
                answer = r.get("answer_sentence", "")
                sentences = split_sentences(src["text"])
                match = (
                    difflib.get_close_matches(answer, sentences, n=1, cutoff=0.85) if answer else []
                )
                if match:
                    out += sentence_pairs(
                        q,
                        src["text"],
                        lambda s, m=match[0]: 1.0 if s == m else 0.0,
                        "teacher",
                        group,
                        rng,
                    )
                hits = app.retriever.search(q, TOP)
                others = [h for h in hits if h.chunk_id != r["chunk_id"] and h.page != r["page"]]
                for h in others[:3]:
                    out.append(
                        Pair(
                            q,
                            passage_text(h.text, h.section),
                            0.0,
                            0.4,
                            "passage",
                            "teacher",
                            group,
                        )
                    )
            if u:
                ugroup = group + ":u"
                label = float(r.get("p_unanswered", 0.0))
                out.append(
                    Pair(u, src_text, min(label, 0.5), 1.0, "passage", "teacher-unanswered", ugroup)
                )
                out += sentence_pairs(
                    u, src["text"], lambda s: 0.0, "teacher-unanswered", ugroup, rng
                )
                for h in app.retriever.search(u, 4):
                    if h.chunk_id != r["chunk_id"]:
                        out.append(
                            Pair(
                                u,
                                passage_text(h.text, h.section),
                                0.0,
                                0.6,
                                "passage",
                                "teacher-unanswered",
                                ugroup,
                            )
                        )
    return out


def main() -> None:
    rng = random.Random(SEED)
    pairs = covid_pairs(rng) + manual_pairs(rng) + teacher_pairs(rng)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w") as f:
        for p in pairs:
            f.write(json.dumps(asdict(p), ensure_ascii=False) + "\n")
    counts = Counter((p.source, p.kind, p.label > 0.5) for p in pairs)
    for k, v in sorted(counts.items()):
        print(k, v, file=sys.stderr)
    print(json.dumps({"pairs": len(pairs), "file": str(OUT)}))


if __name__ == "__main__":
    main()
