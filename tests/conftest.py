"""Shared fixtures: an isolated home for every test, fakes, generated PDFs, the real models."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from tests.helpers import processes
from tests.pdfgen import make_pdf

# Windows in tests are offscreen, however pytest is started (make test sets it too).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parents[1]
# Beside the repository, or beside the folder of its worktrees (a worktree in wt/NAME).
CORPUS = next(
    (
        c
        for c in (
            (REPO / ".." / "shared" / "corpus").resolve(),
            (REPO / ".." / ".." / "shared" / "corpus").resolve(),
        )
        if c.is_dir()
    ),
    (REPO / ".." / "shared" / "corpus").resolve(),
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--start-method",
        choices=["spawn"],
        default=None,
        help="start worker processes with this method, as Windows and macOS do (spawn), and "
        "read files in reader processes in the tests that follow it (tests/helpers/processes.py)",
    )


def pytest_configure(config: pytest.Config) -> None:
    method = config.getoption("--start-method") or processes.start_method()
    if method:
        # In the environment too, for the command line run as a process by some tests.
        os.environ[processes.ENV] = method
        multiprocessing.set_start_method(method, force=True)


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """No test reads or writes the real user's config, data or logs."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("DESKTOP_RAG_CONFIG_DIR", str(home / "config"))
    monkeypatch.setenv("DESKTOP_RAG_DATA_DIR", str(home / "data"))
    monkeypatch.setenv("DESKTOP_RAG_LOG_DIR", str(home / "logs"))
    monkeypatch.setenv("XDG_DOCUMENTS_DIR", str(home / "Documents"))
    # The assembled GGUF and exported embedders are shared across tests: build them once.
    shared_cache = Path(os.environ.get("DESKTOP_RAG_TEST_CACHE", REPO / ".venv" / "test-cache"))
    monkeypatch.setenv("DESKTOP_RAG_CACHE_DIR", str(shared_cache))
    yield home


@pytest.fixture(autouse=True)
def _real_reranker_with_real_engines(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
):
    """The shipped cross-encoder ranks passages in the tests of real engines (marked slow); a
    fast test's app, over the hash embedder's arbitrary vectors, ranks as it would without one,
    unless it passes a reranker (tests/fakes.FakeReranker) itself."""
    if request.node.get_closest_marker("slow") is None:
        monkeypatch.setattr("desktop_rag.app.default_reranker", lambda: None)


@pytest.fixture
def fake_embedder():
    from tests.fakes import HashEmbedder

    return HashEmbedder()


@pytest.fixture
def fake_tokenizer():
    from tests.fakes import WordTokenizer

    return WordTokenizer()


ANIMALS = {
    "zebra.pdf": [
        "Zebras are African equines with distinctive black-and-white striped coats. "
        "There are three living species: the Grevy's zebra, plains zebra and mountain zebra.",
        "The stripes of a zebra may deter biting flies such as horseflies and tsetse flies. "
        "Experiments with painted horses showed fewer fly landings on striped coats.",
    ],
    "octopus.pdf": [
        "An octopus has eight arms and three hearts. Two hearts pump blood through the gills.",
        "Octopus blood is blue because it uses hemocyanin, a copper-rich protein, to carry "
        "oxygen. The third heart pumps blood to the rest of the body.",
        "Octopuses can change the colour and texture of their skin in a fraction of a second "
        "using chromatophores.",
    ],
    "penguin.pdf": [
        "Emperor penguins breed during the Antarctic winter. The male incubates the single egg "
        "on his feet for about sixty-five days while the female feeds at sea.",
    ],
}


@pytest.fixture
def animal_pdfs(tmp_path: Path) -> Path:
    """A folder of three small, real PDFs with facts on known pages."""
    folder = tmp_path / "library"
    for name, pages in ANIMALS.items():
        make_pdf(folder / name, pages)
    return folder


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not here")
    return CORPUS
