"""Team-library steps several test files take: an app over the loopback store (a team's
library, or this desktop's own with a contract the team lacks), the questions each answers,
and the keys the store holds."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.app import App, build_app
from desktop_rag.config import Settings
from desktop_rag.ingest.chunk import ChunkParams
from tests.fakes import FakeLlm, HashEmbedder, WordTokenizer
from tests.helpers.s3 import BUCKET, Moto
from tests.pdfgen import make_pdf

URI = "s3://team/library"
OCTOPUS = "How many hearts does an octopus have?"  # the team's animal PDFs answer it
NOTICE = "How long is the notice period of the tenancy?"  # only the personal contract does


def team_app(uri: str = URI, llm: FakeLlm | None = None) -> App:
    """An app over the team library at `uri`, with the fake embedder and model."""
    return build_app(
        Settings(data_dir=uri),
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(sections=0),
        isolate=False,
        llm=llm or FakeLlm(),
    )


def personal_app(tmp_path: Path, with_contract: bool = True) -> App:
    """This desktop's own library (a folder), with a tenancy contract the team does not hold."""
    app = build_app(
        Settings(data_dir=str(tmp_path / "personal")),
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(sections=0),
        isolate=False,
        llm=FakeLlm(),
    )
    app.answer.mode = "composed"
    if with_contract:
        folder = tmp_path / "mine"
        make_pdf(
            folder / "contract.pdf",
            [
                "Tenancy agreement between the landlord and the tenant of the flat.",
                "The notice period of the tenancy is three months, given in writing.",
            ],
        )
        assert app.index([str(folder)]).indexed == 1
    return app


def keys_in(moto: Moto, prefix: str) -> list[str]:
    """The keys of the loopback bucket under `prefix`."""
    pages = moto.s3().get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix)
    return [o["Key"] for page in pages for o in page.get("Contents", [])]
