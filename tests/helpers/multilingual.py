"""The multilingual embedder's module as the app imports it (engines/multilingual.py), with a
hashing embedder of another id behind its class: the tests of the switch between the English
and the multilingual embedder never load a model, and change nothing but the id."""

from __future__ import annotations

import sys
import types
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import pytest

from desktop_rag.config import Settings
from tests.fakes import FakeLlm, HashEmbedder, WordTokenizer
from tests.helpers import processes

if TYPE_CHECKING:
    from desktop_rag.app import App

MODULE = "desktop_rag.engines.multilingual"
FAKE_ID = "test/multilingual-hash-embedder"


class FakeE5Embedder(HashEmbedder):
    """E5Embedder's constructor over the hashing embedder; what it was given is kept."""

    model_id = FAKE_ID
    made: ClassVar[list[FakeE5Embedder]] = []

    def __init__(
        self,
        cache: object | None,
        *,
        threads: int = 0,
        low_priority: bool = True,
        prebuilt: Mapping[str, Path] | None = None,
        variant: str = "int8",
    ) -> None:
        super().__init__()
        self.variant = variant
        self.cache, self.threads, self.low_priority, self.prebuilt = (
            cache,
            threads,
            low_priority,
            prebuilt,
        )
        FakeE5Embedder.made.append(self)


def install(monkeypatch: pytest.MonkeyPatch) -> type[FakeE5Embedder]:
    """The app's lazy import of the multilingual embedder finds the fake."""
    module = types.ModuleType(MODULE)
    module.E5Embedder = FakeE5Embedder  # type: ignore[attr-defined]
    module.MULTILINGUAL_EMBEDDER_ID = FAKE_ID  # type: ignore[attr-defined]
    module.MULTILINGUAL_EMBEDDER_DIM = 64  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, MODULE, module)
    FakeE5Embedder.made.clear()
    return FakeE5Embedder


def either_app(settings: Settings) -> App:
    """The real store, pipeline and answer service with the English library's hashing embedder,
    or the multilingual one `default_embedder` gives when the settings ask for it (the fake,
    once `install`ed), and a fake model."""
    from desktop_rag.app import build_app
    from desktop_rag.ingest.chunk import ChunkParams

    return build_app(
        settings,
        embedder=None if settings.multilingual else HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=processes.isolate(),
        llm=FakeLlm(),
    )
