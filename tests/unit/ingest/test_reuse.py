"""What a run writes without reading: a removal keeps a file named by its own path out and
forgets the rest; files gone are dropped and said removed, except those the user had removed."""

from __future__ import annotations

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.ingest import reuse
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.ingest.control import RunControl
from desktop_rag.types import IndexReport, Status
from tests.fakes import HashEmbedder, WordTokenizer
from tests.helpers import processes


def _app(tmp_path):
    return build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=processes.isolate(),
    )


def test_a_removal_excludes_a_file_named_and_forgets_what_is_under_a_folder(tmp_path, animal_pdfs):
    app = _app(tmp_path)
    app.index([str(animal_pdfs)])
    zebra = str(animal_pdfs / "zebra.pdf")
    removal = reuse.removal(app.store, [zebra])
    assert [d.path for d in removal.excluded] == [zebra] and removal.forgotten == []
    reuse.remove(app.store, removal)
    assert {d.path: d.status for d in app.store.documents()}[zebra] == Status.EXCLUDED
    assert removal.paths == [zebra]
    folder = reuse.removal(app.store, [str(animal_pdfs)])
    assert folder.excluded == [] and len(folder.forgotten) == 3
    assert sorted(folder.paths) == sorted(
        str(animal_pdfs / n) for n in ("penguin.pdf", "octopus.pdf")
    ), "a file removed before is not removed again"
    reuse.remove(app.store, folder)
    assert app.store.documents() == [] and app.store.count_chunks() == 0


def test_files_gone_are_dropped_and_only_indexed_ones_said_removed(tmp_path, animal_pdfs):
    app = _app(tmp_path)
    app.index([str(animal_pdfs)])
    reuse.remove(app.store, reuse.removal(app.store, [str(animal_pdfs / "zebra.pdf")]))
    report, told = IndexReport(), []
    control = RunControl(on_file=told.append)
    assert not reuse.drop(app.store, [], report, control)
    assert reuse.drop(app.store, app.store.documents(), report, control)
    assert report.removed == 2 and app.store.documents() == []
    assert sorted(e.path.rsplit("/", 1)[1] for e in told) == ["octopus.pdf", "penguin.pdf"]
    assert {e.status for e in told} == {"removed"}
