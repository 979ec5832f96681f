"""The library service without Qt: folder edits, the queue, passwords, model swaps, rebuilds,
over a real LanceDB index with a hashing embedder and a fake model."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from desktop_rag.app import App, build_app
from desktop_rag.config import Settings
from desktop_rag.engines.embed import warm_up
from desktop_rag.engines.llm import LlamaCppLlm
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.library import GUIDE_NAME
from desktop_rag.library_service import BUILT_IN_MODEL, MISSING, Edit, LibraryService
from desktop_rag.types import Status
from tests.fakes import FakeLlm, HashEmbedder, WordTokenizer
from tests.helpers import multilingual
from tests.pdfgen import encrypt_pdf, make_pdf


def fast_app(settings: Settings, params: ChunkParams | None = None) -> App:
    return build_app(
        settings,
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=params or ChunkParams(60, 10),
        isolate=False,
        llm=FakeLlm(),
    )


@pytest.fixture
def library_dir(tmp_path: Path) -> Path:
    return tmp_path / "Documents" / "Desktop RAG Library"


@pytest.fixture
def service(library_dir: Path) -> LibraryService:
    service = LibraryService(Settings.load(), library_dir=library_dir, app_factory=fast_app)
    opened = service.open()
    service.adopt(opened)
    return service


def indexed(service: LibraryService) -> set[str]:
    return {d.path for d in service.documents() if d.status == Status.INDEXED}


def test_first_open_creates_the_library_and_asks_to_index_it(library_dir: Path) -> None:
    service = LibraryService(Settings.load(), library_dir=library_dir, app_factory=fast_app)
    opened = service.open()
    assert opened.first and (library_dir / GUIDE_NAME).is_file()
    assert service.app is None, "the front end adopts what open() found"
    assert service.adopt(opened) == [str(library_dir)]
    assert service.app is opened.app and service.answer is opened.app.answer
    assert Settings.load().folders == [str(library_dir)], "the first start is saved"
    again = LibraryService(Settings.load(), library_dir=library_dir, app_factory=fast_app)
    assert not again.open().first


def test_added_folders_are_indexed_and_a_covered_one_is_refused(
    service: LibraryService, animal_pdfs: Path
) -> None:
    edit = service.add_folder(str(animal_pdfs))
    assert edit == Edit(folders_changed=True, index=(str(animal_pdfs),))
    assert str(animal_pdfs) in Settings.load().folders
    again = service.add_folder(str(animal_pdfs / "."))
    assert not again.folders_changed and again.index == ()
    assert again.notices == (f"{animal_pdfs} is already in your library.",)
    service.reindex(edit.index)
    assert {os.path.basename(p) for p in indexed(service)} >= {"zebra.pdf", "octopus.pdf"}


def test_a_removed_folder_leaves_the_index_and_the_queue_but_not_the_disk(
    service: LibraryService, animal_pdfs: Path
) -> None:
    service.add_folder(str(animal_pdfs))
    service.reindex([str(animal_pdfs)])
    service.queue([str(animal_pdfs), str(service.library_dir)])
    edit = service.remove_folder(str(animal_pdfs))
    assert edit.folders_changed and edit.drop == (str(animal_pdfs),)
    assert service.take_pending() == [str(service.library_dir)]
    left = service.drop(str(animal_pdfs))
    assert not any(d.path.startswith(str(animal_pdfs)) for d in left)
    assert (animal_pdfs / "zebra.pdf").is_file()
    assert service.remove_folder(str(animal_pdfs)) == Edit(), "not watched: nothing to do"
    keep = service.add_folder(str(animal_pdfs))
    assert service.remove_folder(keep.index[0], drop_documents=False).drop == ()


def test_the_queue_folds_roots_into_one_sorted_run(service: LibraryService) -> None:
    service.queue(["/b", "/a"])
    service.queue(["/a", "/c"])
    assert service.has_pending
    assert service.take_pending() == ["/a", "/b", "/c"]
    assert not service.has_pending and service.take_pending() == []
    service.queue(["/x"])
    service.clear_pending()
    assert service.take_pending() == []


def test_edited_settings_say_what_was_added_dropped_and_whether_to_reload(
    service: LibraryService, tmp_path: Path
) -> None:
    a, b, c = (tmp_path / n for n in "abc")
    for folder in (a, b, c):
        folder.mkdir()
    service.settings.folders[:] = [str(a), str(b)]
    service.queue([str(b)])
    new = Settings.load()
    new.folders = [str(a), str(c)]
    edit = service.apply_settings(new)
    assert edit.folders_changed and edit.index == (str(c),) and edit.drop == (str(b),)
    assert not edit.reload_model
    assert service.take_pending() == [], "a dropped folder is not indexed after all"
    assert Settings.load().folders == [str(a), str(c)]

    for change in ({"n_ctx": 2048}, {"n_threads": 3}, {"model_path": "/m/other.gguf"}):
        new = Settings.load()
        for name, value in change.items():
            setattr(new, name, value)
        assert service.apply_settings(new).reload_model, change
    new = Settings.load()
    new.top_k = 9
    new.folders = [str(a)]
    edit = service.apply_settings(new, drop_removed=False)
    assert not edit.reload_model and edit.drop == () and service.settings.top_k == 9


def test_settings_that_cannot_be_saved_are_said_so(
    service: LibraryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("DESKTOP_RAG_CONFIG_DIR", str(blocker / "config"))
    edit = service.add_folder(str(tmp_path))
    assert edit.folders_changed and len(edit.notices) == 1
    assert edit.notices[0].startswith("Settings could not be saved")
    unsaved = LibraryService(Settings(), save_settings=False)
    assert unsaved.set_model("/m/x.gguf").notices == ()


def test_a_password_given_later_retries_the_file_and_is_never_saved(
    service: LibraryService, tmp_path: Path
) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    plain = make_pdf(tmp_path / "plain.pdf", ["Otters hold hands while they sleep."])
    encrypt_pdf(plain, folder / "otters.pdf", "hunter2")
    path = str(folder / "otters.pdf")
    service.add_folder(str(folder))
    report = service.reindex([str(folder)])
    assert [f.kind for f in report.failed] == ["password"]
    edit = service.set_password(path, "hunter2")
    assert edit.index == (path,) and not edit.folders_changed
    report = service.reindex(edit.index)
    assert report.indexed == 1 and path in indexed(service)
    assert (
        "hunter2" not in (Path(os.environ["DESKTOP_RAG_CONFIG_DIR"]) / "settings.json").read_text()
    )
    closed = LibraryService(Settings())
    assert closed.set_password(path, "x") == Edit(), "nothing to retry before the library opens"


def test_the_model_swap_replaces_and_frees_the_old_model(service: LibraryService) -> None:
    assert service.app is not None
    old = service.app.answer.llm
    assert isinstance(old, FakeLlm)
    edit = service.set_model("/models/other.gguf")
    assert edit.reload_model and Settings.load().model_path == "/models/other.gguf"
    service.swap_model()
    new = service.app.answer.llm
    assert isinstance(new, LlamaCppLlm) and not new.loaded, "loaded by the warm-up, not here"
    assert new.name == "other.gguf" and service.model_name == "other.gguf"
    assert old.closes == 1


def test_a_swap_can_be_given(library_dir: Path) -> None:
    swaps: list[str] = []
    service = LibraryService(
        Settings.load(),
        library_dir=library_dir,
        app_factory=fast_app,
        model_swap=lambda app, settings: swaps.append(settings.model_path),
    )
    service.adopt(service.open())
    service.set_model("/m/a.gguf")
    service.swap_model()
    assert swaps == ["/m/a.gguf"]


def test_the_model_name_without_a_model_to_ask(library_dir: Path) -> None:
    class Answers:
        def ask(self, question, history=(), k=None, cancel=None, scope=None):
            return iter(())

        def warm_up(self) -> None:
            pass

    service = LibraryService(
        Settings.load(),
        library_dir=library_dir,
        app_factory=fast_app,
        answer_factory=lambda a: Answers(),
    )
    service.adopt(service.open())
    assert service.model_name == BUILT_IN_MODEL
    service.settings.model_path = "/m/mine.gguf"
    assert service.model_name == "mine.gguf"


def test_watching_reports_missing_folders(service: LibraryService, tmp_path: Path) -> None:
    class Watcher:
        def __init__(self) -> None:
            self.errors = {"/denied": "cannot be watched (Permission denied)"}
            self.polled = {"/share": "is on a network drive (nfs4): checked every 5 minutes"}
            self.roots: list[str] = []

        def set_roots(self, roots) -> None:
            self.roots = list(roots)

    here, gone, one = tmp_path / "here", tmp_path / "gone", tmp_path / "one.pdf"
    here.mkdir()
    one.write_bytes(b"%PDF-")
    watcher = Watcher()
    errors = service.watch(watcher, [str(here), str(gone), str(one)])
    assert watcher.roots == [str(here), str(one)], "the CLI watches single files too"
    assert errors == {
        "/denied": "cannot be watched (Permission denied)",
        "/share": "is on a network drive (nfs4): checked every 5 minutes",
        str(gone): MISSING,
    }


def test_importing_watches_the_library_then_indexes_the_copies(
    service: LibraryService, animal_pdfs: Path
) -> None:
    service.settings.folders.clear()
    first = service.before_import()
    assert first.folders_changed and service.folders == [str(service.library_dir)]
    assert service.before_import() == Edit(), "watched already"
    copied = service.copy_in([str(animal_pdfs / "zebra.pdf")])
    edit = service.after_import(copied)
    assert edit.index == (str(service.library_dir), str(service.library_dir / "zebra.pdf"))
    assert edit.notices == (f"Copied 1 file(s) into {service.library_dir}.",)
    again = service.after_import(service.copy_in([str(animal_pdfs / "zebra.pdf")]))
    assert again.notices == ("Those files are already in your library.",)
    service.reindex(edit.index)
    assert str(service.library_dir / "zebra.pdf") in indexed(service)
    assert (animal_pdfs / "zebra.pdf").is_file()


def test_a_stale_index_is_asked_about_then_rebuilt(
    library_dir: Path, animal_pdfs: Path, tmp_path: Path
) -> None:
    settings = Settings.load()
    service = LibraryService(settings, library_dir=library_dir, app_factory=fast_app)
    service.adopt(service.open())
    service.add_folder(str(animal_pdfs))
    service.reindex(service.folders)

    rechunked = LibraryService(
        Settings.load(),
        library_dir=library_dir,
        app_factory=lambda s: fast_app(s, ChunkParams(40, 5)),
    )
    opened = rechunked.open()
    assert rechunked.adopt(opened) == [], "nothing is indexed into a stale index"
    assert rechunked.needs_rebuild and rechunked.notices() == []
    question = rechunked.rebuild_question(opened.estimate_s)
    assert "built differently" in question and "keeps answering" in question
    report = rechunked.rebuild(rechunked.folders)
    assert not report.cancelled and not rechunked.needs_rebuild
    assert {os.path.basename(p) for p in indexed(rechunked)} >= {"zebra.pdf", "penguin.pdf"}


def test_a_damaged_index_is_reset_and_its_roots_come_back(
    library_dir: Path, animal_pdfs: Path
) -> None:
    service = LibraryService(Settings.load(), library_dir=library_dir, app_factory=fast_app)
    service.adopt(service.open())
    service.add_folder(str(animal_pdfs))
    service.reindex([str(animal_pdfs)])
    index = service.settings.index_path
    shutil.rmtree(index / "documents.lance")
    (index / "documents.lance").mkdir()
    (index / "documents.lance" / "garbage").write_text("not lance")

    again = LibraryService(Settings.load(), library_dir=library_dir, app_factory=fast_app)
    opened = again.open()
    assert str(animal_pdfs) in opened.roots
    assert str(animal_pdfs) in again.adopt(opened)
    assert any("moved aside" in n for n in again.notices())


def test_the_embedder_is_prepared_or_loaded_before_the_first_question() -> None:
    calls: list[str] = []

    class Base(HashEmbedder):
        def embed_query(self, text):
            calls.append("query")
            return super().embed_query(text)

    class Exports(Base):
        def prepare(self, on_status=None) -> str:
            calls.append("prepare")
            return "int8"

    class Loads(Base):
        def load(self) -> None:
            calls.append("load")

    for embedder, expected in ((Exports(), "prepare"), (Loads(), "load"), (Base(), None)):
        calls.clear()
        warm_up(embedder)
        assert calls == ([expected, "query"] if expected else ["query"])


def test_read_with_ocr_asks_for_the_file_and_the_setting_reaches_the_indexer(
    service: LibraryService, library_dir: Path
) -> None:
    from dataclasses import replace

    assert service.app is not None and service.app.ingest.ocr
    path = str(library_dir / "scan.pdf")
    edit = service.read_with_ocr(path)
    assert edit.index == (path,)
    assert path in service.app.ingest.ocr_requested
    service.apply_settings(replace(service.settings, ocr=False))
    assert not service.app.ingest.ocr
    assert Settings.load().ocr is False


def test_keep_watching_indexes_then_each_change_until_stopped(
    service: LibraryService, tmp_path: Path
) -> None:
    """The watch loop of `desktop-rag watch`, run by the service without the command line."""
    import queue
    import threading

    folder = tmp_path / "watched"
    make_pdf(folder / "a.pdf", ["Apples grow on trees in orchards."])
    reports: queue.Queue = queue.Queue()
    stop = threading.Event()
    result: list[bool] = []
    loop = threading.Thread(
        target=lambda: result.append(service.keep_watching([str(folder)], stop, reports.put))
    )
    loop.start()
    try:
        first = reports.get(timeout=60)
        assert (first.indexed, first.failed) == (1, [])
        make_pdf(folder / "b.pdf", ["Bananas grow in bunches on large plants."])
        second = reports.get(timeout=60)
        assert (second.indexed, second.unchanged) == (1, 1)
    finally:
        stop.set()
        loop.join(timeout=30)
    assert not loop.is_alive() and result == [False]
    assert indexed(service) >= {str(folder / "a.pdf"), str(folder / "b.pdf")}


def test_switching_the_embedder_reopens_stale_asks_in_plain_words_and_loses_nothing(
    library_dir: Path, animal_pdfs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import replace

    multilingual.install(monkeypatch)
    service = LibraryService(
        Settings.load(), library_dir=library_dir, app_factory=multilingual.either_app
    )
    service.adopt(service.open())
    service.add_folder(str(animal_pdfs))
    service.reindex(service.folders)
    before = indexed(service)
    assert service.apply_settings(replace(service.settings, top_k=3)).reopen is False

    edit = service.apply_settings(replace(service.settings, multilingual=True))
    assert edit.reopen and not edit.reload_model and Settings.load().multilingual
    assert service.app is not None
    model = service.app.answer.llm
    opened = service.reopen()
    assert opened.app.answer.llm is model, "the model already loaded goes on answering"
    assert service.adopt(opened) == [], "nothing is indexed into a stale index"
    assert service.needs_rebuild and opened.app.retriever.text_only
    question = service.rebuild_question(opened.estimate_s)
    assert question.startswith("Your library is now read by the multilingual embedder")
    assert "keeps answering" in question and "minute" in question
    assert indexed(service) == before, "later: the old index keeps every document"

    service.rebuild(service.folders)
    assert not service.needs_rebuild and indexed(service) == before
    assert service.app.store.meta.embedder_id == multilingual.FAKE_ID

    service.apply_settings(replace(service.settings, multilingual=False))
    service.adopt(service.reopen())
    assert service.needs_rebuild
    assert service.rebuild_question(60).startswith(
        "Your library is read by the English embedder again"
    )


def test_a_library_mostly_not_in_english_is_told_of_the_multilingual_setting(
    service: LibraryService, tmp_path: Path
) -> None:
    from dataclasses import replace

    from desktop_rag.library_service import language_notice

    german = tmp_path / "german"
    german.mkdir()
    for i, text in enumerate(
        (
            "Beim Installieren von Paketen lädt apt die Dateien aus dem Archiv herunter.",
            "Wenn der Drucker nicht druckt, prüfen Sie zuerst, ob er mit dem Netz verbunden ist.",
        )
    ):
        (german / f"de{i}.txt").write_text(text, encoding="utf-8")
    assert service.language_check() == "", "nothing indexed yet"
    service.settings.folders.clear()  # not the English guide
    service.add_folder(str(german))
    service.reindex(service.folders)
    assert service.language_check() == "de"
    assert language_notice("de") == (
        "Most of this library is in German: Settings > “My documents are in several "
        "languages” finds its passages better."
    )
    service.apply_settings(replace(service.settings, multilingual=True))
    assert service.language_check() == "", "the multilingual embedder is chosen already"


def test_mostly_means_more_than_half_clearly_another_language() -> None:
    from desktop_rag.library_service import mostly_in
    from desktop_rag.types import LanguageMix

    assert mostly_in(LanguageMix(10, 6, "ja")) == "ja"
    assert mostly_in(LanguageMix(10, 5, "de")) == ""
    assert mostly_in(LanguageMix(0, 0, "")) == ""
