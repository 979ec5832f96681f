"""What only the teacher can make: user-style questions for passages, and its judgement of pairs.

The teacher (training/teacher.py: Qwen2.5-Coder Instruct, run by llama.cpp on the CPU) reads a
passage of a training library and writes the question a user with a problem would ask, with
the passage's sentence that answers it, and a question on the same subject the passage does not
answer. It then judges whether each passage the app retrieves for a question answers it: the
probability of "yes" against "no" after its chat template's assistant turn is a soft label.

Every result is appended to a JSON-lines file in training/data/ as soon as it is made, so the
job stops at any point and resumes where it stopped (jobs end with a session). The files are
committed: training from them needs no teacher.

    python -m training.teach questions --library manuals --count 600
    python -m training.teach judge --library manuals
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from training import libraries
from training.teacher import TEACHERS, fetch

DATA = Path(__file__).resolve().parent / "data"
SEED = 20261205
# A passage worth a question: enough words, mostly prose.
MIN_WORDS = 40

_SYSTEM = "You help build training data for a search engine over software manuals."
_ASK = """Here is a passage from the manual "{title}":
<<<
{passage}
>>>
A user who has never read this manual has a problem that this passage solves. Write the \
question they would type to a helpful colleague: describe their situation or goal in everyday \
words; do not copy the passage's section titles, and use its technical terms only where such a \
user would know them. Then copy, word for word, the one sentence of the passage that best \
answers the question.
Reply in exactly this form:
Question: <the question>
Answer sentence: <the sentence>"""
_UNANSWERED = """Here is a passage from the manual "{title}":
<<<
{passage}
>>>
Write a question that a user of the same software might ask, on the same subject, but which \
this passage does NOT answer: answering it would need facts the passage does not contain. \
Phrase it the way a user with a problem asks.
Reply in exactly this form:
Question: <the question>"""
_JUDGE = """Question: {question}

Passage:
<<<
{passage}
>>>
Does the passage contain the answer to the question? Reply with yes or no."""
_JUDGE_SYSTEM = "You judge search results."


def chat(system: str, user: str) -> str:
    """Qwen2.5's chat template (the one stored in the teacher's GGUF), up to the assistant."""
    return (
        f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


class Teacher:
    """The teacher model, reusing its cached prompt prefix between calls."""

    def __init__(self, size: str, threads: int = 2, n_ctx: int = 2048) -> None:
        from llama_cpp import Llama

        from desktop_rag.engines.llm import load_backends, quiet_llama_logs

        load_backends()
        quiet_llama_logs(False)
        self.size = size
        self.model = Llama(
            model_path=str(fetch(TEACHERS[size])),
            n_ctx=n_ctx,
            n_threads=threads,
            n_threads_batch=threads,
            n_batch=256,
            verbose=False,
        )
        self.yes = self._ids(["yes", "Yes", " yes", " Yes"])
        self.no = self._ids(["no", "No", " no", " No"])

    def _ids(self, words: list[str]) -> list[int]:
        out = set()
        for w in words:
            ids = self.model.tokenize(w.encode(), add_bos=False, special=False)
            if len(ids) == 1:
                out.add(ids[0])
        return sorted(out)

    def write(self, prompt: str, max_tokens: int = 120) -> str:
        out: Any = self.model.create_completion(
            prompt, max_tokens=max_tokens, temperature=0.0, stop=["<|im_end|>"]
        )
        return str(out["choices"][0]["text"]).strip()

    def p_yes(self, prompt: str) -> float:
        """P(yes) / (P(yes) + P(no)) for the first token of the reply."""
        tokens = self.model.tokenize(prompt.encode(), add_bos=False, special=True)
        model = self.model
        keep = model.longest_token_prefix(model._input_ids[: model.n_tokens].tolist(), tokens)
        keep = min(keep, len(tokens) - 1)
        model.n_tokens = keep
        model.eval(tokens[keep:])
        # Without logits_all llama-cpp-python keeps no scores: the last token's logits are
        # read from the context itself.
        import numpy as np

        logits = np.ctypeslib.as_array(model._ctx.get_logits(), shape=(model.n_vocab(),))
        top = float(max(logits))
        yes = sum(math.exp(float(logits[i]) - top) for i in self.yes)
        no = sum(math.exp(float(logits[i]) - top) for i in self.no)
        return yes / (yes + no) if yes + no > 0 else 0.5


def key(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode()).hexdigest()[:16]


def done_keys(path: Path) -> set[str]:
    if not path.exists():
        return set()
    return {json.loads(line)["key"] for line in path.open() if line.strip()}


def append(path: Path, row: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        f.write(json.dumps(row, ensure_ascii=False) + "\n")


def prose(text: str) -> bool:
    words = text.split()
    if len(words) < MIN_WORDS:
        return False
    letters = sum(c.isalpha() for c in text)
    return letters / max(1, len(text)) > 0.6 and text.count(".") >= 2


def passages(app: Any) -> list[dict[str, Any]]:
    """The library's passages worth a question, in a fixed random order."""
    table = app.store.chunks_table.to_arrow().select(["chunk_id", "path", "page", "text"])
    rows = [r for r in table.to_pylist() if prose(r["text"])]
    rows.sort(key=lambda r: r["chunk_id"])
    random.Random(SEED).shuffle(rows)
    return rows


def interleaved(rows: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """One passage of each document in turn, so a short run covers every document."""
    by_doc: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_doc.setdefault(r["path"], []).append(r)
    queues = [by_doc[d] for d in sorted(by_doc)]
    while any(queues):
        for q in queues:
            if q:
                yield q.pop(0)


_Q = re.compile(r"Question:\s*(.+?)\s*(?:\n|$)", re.S)
_A = re.compile(r"Answer sentence:\s*(.+)", re.S)


def questions(library: str, count: int, size: str) -> None:
    out = DATA / f"questions-{library}.jsonl"
    done = done_keys(out)
    app = libraries.open_library(library, index=False)
    teacher = Teacher(size)
    made = 0
    t0 = time.perf_counter()
    for row in interleaved(passages(app)):
        if len(done) >= count:
            break
        k = key(library, row["chunk_id"])
        if k in done:
            continue
        title = Path(row["path"]).name
        passage = row["text"]
        reply = teacher.write(chat(_SYSTEM, _ASK.format(title=title, passage=passage)), 140)
        q = _Q.search(reply)
        a = _A.search(reply)
        other = teacher.write(chat(_SYSTEM, _UNANSWERED.format(title=title, passage=passage)), 70)
        u = _Q.search(other)
        asked = q.group(1).strip() if q else ""
        unanswered = u.group(1).strip() if u else ""
        # The teacher's own judgement of its questions against their passage: a question it
        # wrote badly (one its passage does not answer after all) is left out of training.
        judged = {
            name: round(
                teacher.p_yes(chat(_JUDGE_SYSTEM, _JUDGE.format(question=text, passage=passage))), 4
            )
            for name, text in (("p_question", asked), ("p_unanswered", unanswered))
            if text
        }
        append(
            out,
            {
                "key": k,
                "library": library,
                "chunk_id": row["chunk_id"],
                "path": title,
                "page": row["page"],
                "question": asked,
                "answer_sentence": a.group(1).strip() if a else "",
                "unanswered": unanswered,
                **judged,
                "teacher": TEACHERS[size].name,
            },
        )
        done.add(k)
        made += 1
        rate = (time.perf_counter() - t0) / made
        print(f"{library}: {len(done)}/{count} ({rate:.1f} s each)", file=sys.stderr, flush=True)


def judge(library: str, size: str, top: int, limit: int | None) -> None:
    """The teacher's P(yes) for each question against the passages the app retrieves for it
    (its own passage among them or not), and for the unanswered questions alike."""
    src = DATA / f"questions-{library}.jsonl"
    out = DATA / f"labels-{library}.jsonl"
    done = done_keys(out)
    app = libraries.open_library(library, index=False)
    teacher = Teacher(size)
    rows = [json.loads(line) for line in src.open() if line.strip()]
    t0 = time.perf_counter()
    judged = 0
    for row in rows[:limit]:
        for kind in ("question", "unanswered"):
            question = row[kind]
            if not question:
                continue
            hits = app.retriever.search(question, top)
            for rank, hit in enumerate(hits):
                k = key(library, question, hit.chunk_id)
                if k in done:
                    continue
                prompt = chat(_JUDGE_SYSTEM, _JUDGE.format(question=question, passage=hit.text))
                p = teacher.p_yes(prompt)
                append(
                    out,
                    {
                        "key": k,
                        "library": library,
                        "question": question,
                        "kind": kind,
                        "chunk_id": hit.chunk_id,
                        "source": hit.chunk_id == row["chunk_id"],
                        "rank": rank,
                        "p_yes": round(p, 4),
                        "teacher": TEACHERS[size].name,
                    },
                )
                done.add(k)
                judged += 1
        rate = (time.perf_counter() - t0) / max(1, judged)
        print(f"{library}: {judged} pairs judged ({rate:.2f} s each)", file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("job", choices=("questions", "judge"))
    parser.add_argument("--library", choices=sorted(libraries.LIBRARIES), default="manuals")
    parser.add_argument("--count", type=int, default=600)
    parser.add_argument("--teacher", choices=sorted(TEACHERS), default="1.5b")
    parser.add_argument("--top", type=int, default=4)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    if args.job == "questions":
        questions(args.library, args.count, args.teacher)
    else:
        judge(args.library, args.teacher, args.top, args.limit)


if __name__ == "__main__":
    main()
