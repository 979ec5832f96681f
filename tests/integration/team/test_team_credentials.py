"""Where a desktop's keys for the team library come from (an AWS profile named in Settings, the
usual variables, the OS keyring when one is there) and where they never go (the settings file,
the log). IAM is enforced, so a search that works proves which keys were used."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from desktop_rag import team
from desktop_rag.config import Settings, settings_file
from desktop_rag.query.kind import PASSAGE
from desktop_rag.routing import Questions
from desktop_rag.store import remote
from tests.helpers.s3 import REGION, Moto
from tests.helpers.team import OCTOPUS, URI, personal_app, team_app


@pytest.fixture
def reader_only(moto: Moto, animal_pdfs: Path) -> tuple[str, str]:
    """The team's library written by its writer, IAM enforced, and a reader's keys."""
    writer = moto.user("writer", ["s3:*"])
    reader = moto.user("reader", ["s3:GetObject", "s3:ListBucket"])
    moto.enforce_iam()
    moto.use(writer)
    assert team_app().index([str(animal_pdfs)]).indexed == 3
    return reader


def no_aws_keys(moto: Moto, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Neither AWS variables nor ~/.aws: only what a test writes into tmp files."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "aws-credentials"))


def write_profile(tmp_path: Path, name: str, keys: tuple[str, str]) -> None:
    (tmp_path / "aws-credentials").write_text(
        f"[{name}]\naws_access_key_id = {keys[0]}\naws_secret_access_key = {keys[1]}\n"
    )
    (tmp_path / "aws-config").write_text(f"[profile {name}]\nregion = {REGION}\n")


def searched_team(tmp_path: Path, settings: Settings) -> tuple[list[str], str]:
    """The libraries of a search's passages, and the notice, with these settings."""
    app = personal_app(tmp_path)
    for field in ("team_profile", "team_endpoint", "team_region"):
        setattr(app.settings, field, getattr(settings, field))
    team.attach(app, app.settings, URI)
    events = list(Questions(app).ask(OCTOPUS, kind=PASSAGE))
    sources = events[0]
    return [s.library for s in sources.sources], sources.notice  # type: ignore[attr-defined]


def test_a_profile_named_in_settings_supplies_the_keys(
    moto: Moto,
    reader_only: tuple[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    no_aws_keys(moto, monkeypatch, tmp_path)
    write_profile(tmp_path, "team-reader", reader_only)
    chosen = Settings(team_profile="team-reader", team_endpoint=moto.endpoint)
    libraries, notice = searched_team(tmp_path, chosen)
    assert libraries[0] == team.TEAM and not notice

    # The same profile with keys IAM does not know: the team library is refused.
    write_profile(tmp_path, "team-reader", ("AKIDUNKNOWN00000", "not-a-secret"))
    libraries, notice = searched_team(tmp_path / "again", chosen)
    assert team.TEAM not in libraries
    assert "The team library at s3://team/library refused this desktop's credentials" in notice


def test_a_profile_that_is_not_there_is_named_in_the_notice(
    moto: Moto, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_aws_keys(moto, monkeypatch, tmp_path)
    chosen = Settings(team_profile="nobody", team_endpoint=moto.endpoint)
    libraries, notice = searched_team(tmp_path, chosen)
    assert "The AWS profile 'nobody' is not in this computer's AWS files" in notice
    assert team.TEAM not in libraries


def test_the_os_keyring_supplies_keys_when_the_aws_chain_has_none(
    moto: Moto,
    reader_only: tuple[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    no_aws_keys(moto, monkeypatch, tmp_path)
    asked: list[tuple[str, str]] = []

    def get_password(service: str, user: str) -> str:
        asked.append((service, user))
        return f"{reader_only[0]}:{reader_only[1]}"

    monkeypatch.setitem(sys.modules, "keyring", types.SimpleNamespace(get_password=get_password))
    chosen = Settings(team_endpoint=moto.endpoint)
    libraries, notice = searched_team(tmp_path, chosen)
    assert libraries[0] == team.TEAM and not notice
    assert asked == [(remote.KEYRING_SERVICE, URI)]


def test_a_keyring_without_a_backend_is_no_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_backend(service: str, user: str) -> str:
        raise RuntimeError("No recommended backend was available")

    monkeypatch.setitem(sys.modules, "keyring", types.SimpleNamespace(get_password=no_backend))
    assert remote.keyring_keys(URI) is None
    monkeypatch.setitem(sys.modules, "keyring", None)  # not installed
    assert remote.keyring_keys(URI) is None


def test_keys_reach_neither_the_settings_file_nor_the_log(
    moto: Moto,
    reader_only: tuple[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The window's path (Settings saved with the team library) and the command line's
    (`search --team`, verbose), then both files searched for the keys."""
    from desktop_rag.library_service import LibraryService

    no_aws_keys(moto, monkeypatch, tmp_path)
    write_profile(tmp_path, "team-reader", reader_only)
    app = personal_app(tmp_path)
    service = LibraryService(app.settings, app=app)
    edited = Settings(
        **{
            **{f: getattr(app.settings, f) for f in ("data_dir", "folders")},
            "team_library": URI,
            "team_profile": "team-reader",
            "team_endpoint": moto.endpoint,
        }
    )
    service.apply_settings(edited)
    assert service.answer is not None
    assert any(getattr(e, "sources", None) for e in service.answer.ask(OCTOPUS))

    logs = tmp_path / "logs"
    env = {k: v for k, v in os.environ.items() if k != "DESKTOP_RAG_DATA_DIR"}
    env["DESKTOP_RAG_LOG_DIR"] = str(logs)
    env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"] = reader_only
    env["AWS_ENDPOINT_URL"] = moto.endpoint
    done = subprocess.run(
        [sys.executable, "-m", "desktop_rag", "search", "octopus hearts", "-v",
         "--data-dir", str(tmp_path / "personal"), "--team", URI, "--json"],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    # The reader's keys read the library's metadata: built with the real embedder here, the
    # team's with the tests' hashing one, so this desktop is told it cannot search it.
    assert "s3://team/library was built differently from this desktop" in done.stderr

    saved = settings_file().read_text(encoding="utf-8")
    assert URI in saved and "team-reader" in saved  # what was set is saved...
    written = saved + done.stderr + "".join(p.read_text() for p in logs.rglob("*.log*"))
    assert list(logs.rglob("*.log*")), "the run wrote no log to check"
    for secret in reader_only:  # ...and the keys are not, anywhere
        assert secret not in written
