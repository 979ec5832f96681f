"""Removing a file sticks: it stays out when its folder is indexed again, until named again."""

from __future__ import annotations

import json
import sys

from desktop_rag import cli
from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.ingest.watch import reindex
from tests.fakes import HashEmbedder, WordTokenizer
from tests.helpers import processes


def _app(tmp_path, params=None, embedder=None):
    return build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=embedder or HashEmbedder(),
        tokenizer=WordTokenizer,
        params=params or ChunkParams(60, 10),
        isolate=processes.isolate(),
    )


def _paths(app):
    return {h.path for h in app.retriever.search("zebra stripes flies", k=10)}


def _status_json(app, capsys):
    args = cli.build_parser().parse_args(["status", "--json"])
    args.verbose = False
    code = cli.run_core(
        args, cli.indexing.cmd_status, sys.stdout, sys.stderr, app_factory=lambda: app
    )
    assert code == 0
    return json.loads(capsys.readouterr().out)


def test_a_removed_file_stays_out_until_indexed_by_name(tmp_path, animal_pdfs, capsys):
    app = _app(tmp_path)
    folder, zebra = str(animal_pdfs), str(animal_pdfs / "zebra.pdf")
    app.index([folder])
    assert app.remove([zebra]) == [zebra]
    assert (animal_pdfs / "zebra.pdf").exists()
    assert zebra not in _paths(app)
    # Its folder indexed again, by hand or by the watcher: it stays out.
    report = app.index([folder])
    assert (report.indexed, report.unchanged) == (0, 2)
    assert reindex(app, [folder]).indexed == 0
    assert zebra not in _paths(app)
    status = _status_json(app, capsys)
    assert status["excluded"] == [zebra] and status["documents"] == 2
    # Indexing the file by its own path brings it back.
    assert app.index([zebra]).indexed == 1
    assert zebra in _paths(app)
    assert _status_json(app, capsys)["excluded"] == []
    assert app.index([folder]).unchanged == 3


def test_a_removed_file_stays_out_of_a_rebuild(tmp_path, animal_pdfs):
    app = _app(tmp_path)
    zebra = str(animal_pdfs / "zebra.pdf")
    app.index([str(animal_pdfs)])
    app.remove([zebra])
    stale = _app(tmp_path, params=ChunkParams(80, 10))
    assert stale.stale is not None
    stale.rebuild([str(animal_pdfs)])
    assert stale.store.stats()["excluded"] == [zebra]
    assert zebra not in _paths(stale) and len(_paths(stale)) > 0


def test_removing_a_folder_forgets_what_was_removed_in_it(tmp_path, animal_pdfs):
    app = _app(tmp_path)
    folder, zebra = str(animal_pdfs), str(animal_pdfs / "zebra.pdf")
    app.index([folder])
    app.remove([zebra])
    app.remove([folder])
    assert app.store.documents() == []
    assert app.index([folder]).indexed == 3


def test_a_file_gone_from_the_disk_is_forgotten_not_excluded(tmp_path, animal_pdfs):
    app = _app(tmp_path)
    zebra = animal_pdfs / "zebra.pdf"
    app.index([str(animal_pdfs)])
    data = zebra.read_bytes()
    zebra.unlink()
    assert app.remove([str(zebra)]) == [str(zebra)]
    assert app.store.stats()["excluded"] == []
    zebra.write_bytes(data)  # the same file put back is indexed with its folder
    assert app.index([str(animal_pdfs)]).indexed == 1
