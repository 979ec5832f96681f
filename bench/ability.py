"""The rule for who writes the answers (query/ability.py), applied to models: the twenty probes'
figures for each, as Settings shows them, and the time the measurement took.

The bundled 270M model must stay "composed"; a model the user brings (the answers issue's 0.5B
and 1.5B teachers stand in, training/teacher.py) writes only when it states more facts than
the composed answers and the claims check catches at most one answer in twenty.

Usage: python -m bench.ability [--model FILE.gguf ...] (the bundled model when none)
Prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict
from typing import Any


def verdict(model: str) -> dict[str, Any]:
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings
    from desktop_rag.query import ability

    with tempfile.TemporaryDirectory() as tmp:
        app = build_app(Settings(data_dir=tmp, model_path=model))
        t0 = time.perf_counter()
        found = ability.measure(app.answer.llm, app.answer.compose)
        seconds = time.perf_counter() - t0
        app.answer.llm.close()
    return {
        **asdict(found),
        "verdict": "writes" if found.writes else "composed",
        "figures": ability.figures(found),
        "seconds": round(seconds, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", nargs="*", default=[""], help="GGUF files ('' the bundled)")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from bench.perfutil import machine

    result: dict[str, Any] = {"machine": machine()}
    for model in args.model:
        result[os.path.basename(model) or "bundled"] = verdict(model)
        print(json.dumps(result[os.path.basename(model) or "bundled"]), file=sys.stderr)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
