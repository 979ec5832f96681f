"""A team library on object storage (store/remote.py): where a URI points, how a failure is
told apart (no answer, refused, unknown), the bound on a call, the keys in memory only, and
the store itself on moto's S3 on loopback (tests/helpers/s3.py): created once with its
metadata, refused when built differently or damaged, reads bounded, a read-only desktop
sending no write at all, and the conditional-PUT probe."""

from __future__ import annotations

import json
import sys
import threading
import types

import pytest

from desktop_rag.errors import (
    IndexDamagedError,
    IndexMismatchError,
    ReadOnlyError,
    StoreError,
    UnreachableError,
)
from desktop_rag.store import remote
from desktop_rag.store.remote import (
    Connection,
    Location,
    RemoteStore,
    bounded,
    is_denied,
    is_unknown,
    is_unreachable,
    keyring_keys,
    probe_conditional_put,
)
from desktop_rag.store.schema import SCHEMA_VERSION, IndexMeta
from tests.fakes import HashEmbedder
from tests.helpers.s3 import BUCKET, Moto, client, moto, moto_server, proxy  # noqa: F401
from tests.helpers.team import URI, keys_in

EMB = HashEmbedder()


def _meta(embedder_id: str = EMB.model_id) -> IndexMeta:
    return IndexMeta(SCHEMA_VERSION, embedder_id, EMB.dim, {"max_tokens": 128})


def _client_error(code: str, status: int) -> Exception:
    from botocore.exceptions import ClientError

    return ClientError(
        {"Error": {"Code": code, "Message": code}, "ResponseMetadata": {"HTTPStatusCode": status}},
        "GetObject",
    )


# -- where a URI points -------------------------------------------------------------------------


def test_a_uri_names_the_bucket_the_prefix_and_where_commits_go() -> None:
    plain = Location.parse(" s3://team/shared/library/ ")
    assert (plain.bucket, plain.prefix, plain.commits_in_dynamodb) == (
        "team",
        "shared/library",
        False,
    )
    assert plain.index_uri == "s3://team/shared/library/index"
    assert plain.key("meta.json") == "shared/library/index/meta.json"

    ddb = Location.parse("s3+ddb://team/library?ddbTableName=commits")
    assert ddb.commits_in_dynamodb and ddb.bucket == "team"
    assert ddb.index_uri == "s3+ddb://team/library/index?ddbTableName=commits"
    assert ddb.shown == "s3+ddb://team/library", "messages never show the table's name"

    assert Location.parse("s3://team").key("meta.json") == "index/meta.json"


@pytest.mark.parametrize("uri", ["/home/me/library", "https://team/library", "s3://", "s3:///x"])
def test_what_is_no_object_storage_uri_is_refused(uri: str) -> None:
    with pytest.raises(StoreError, match="not an object-storage library"):
        Location.parse(uri)


# -- failures told apart ------------------------------------------------------------------------


def test_no_answer_is_unreachable_and_a_refusal_is_denied() -> None:
    from botocore.exceptions import EndpointConnectionError

    no_answer = [
        TimeoutError("no answer within 4 s"),
        ConnectionRefusedError(111, "refused"),
        EndpointConnectionError(endpoint_url="http://127.0.0.1:9"),
        _client_error("SlowDown", 503),
        OSError("Generic S3 error: error sending request for url"),
    ]
    for exc in no_answer:
        assert is_unreachable(exc) and not is_denied(exc), exc
    refused = _client_error("AccessDenied", 403)
    assert is_denied(refused) and not is_unreachable(refused)
    missing = _client_error("NoSuchKey", 404)
    assert not is_denied(missing) and not is_unreachable(missing)


def test_an_unknown_commit_result_is_told_from_other_failures() -> None:
    assert is_unknown(OSError("Commit result for version 7 is unknown"))
    assert not is_unknown(OSError("Commit conflict for version 7"))
    assert not is_unknown(TimeoutError("the result is unknown"))


# -- the bound on a call ------------------------------------------------------------------------


def test_a_bounded_call_returns_its_result_or_raises_its_error() -> None:
    assert bounded(5, lambda: 42) == 42

    def fails() -> None:
        raise ValueError("bad answer")

    with pytest.raises(ValueError, match="bad answer"):
        bounded(5, fails)


def test_a_call_that_never_answers_is_given_up() -> None:
    release = threading.Event()
    try:
        with pytest.raises(TimeoutError, match="no answer"):
            bounded(0.2, lambda: release.wait(60))
    finally:
        release.set()


# -- keys in memory only ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stored", "keys"),
    [("AKID:s3cret", ("AKID", "s3cret")), ("no-colon", None), (":s3cret", None), (None, None)],
)
def test_keys_from_the_os_keyring(monkeypatch: pytest.MonkeyPatch, stored, keys) -> None:  # type: ignore[no-untyped-def]
    asked: list[tuple[str, str]] = []

    def get_password(service: str, name: str) -> str | None:
        asked.append((service, name))
        return stored

    monkeypatch.setitem(sys.modules, "keyring", types.SimpleNamespace(get_password=get_password))
    assert keyring_keys(URI) == keys
    assert asked == [(remote.KEYRING_SERVICE, URI)]


def test_a_keyring_that_cannot_be_read_is_no_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def get_password(service: str, name: str) -> str:
        raise RuntimeError("no recommended backend was available")

    monkeypatch.setitem(sys.modules, "keyring", types.SimpleNamespace(get_password=get_password))
    assert keyring_keys(URI) is None


def test_a_connection_hands_its_keys_to_lancedb_and_shows_them_nowhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "the-secret-key")
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")  # never contacted
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    conn = Connection(uri=URI)
    options = conn.storage_options()
    assert options["aws_access_key_id"] == "AKIDEXAMPLE"
    assert options["aws_secret_access_key"] == "the-secret-key"
    assert options["region"] == "eu-west-1" and options["allow_http"] == "true"
    assert "dynamodb_endpoint" not in options
    assert "dynamodb_endpoint" in conn.storage_options(dynamodb=True)
    assert "AKIDEXAMPLE" not in repr(conn) and "the-secret-key" not in repr(conn)


def test_a_profile_that_is_not_there_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "credentials"))
    with pytest.raises(StoreError, match="'team-reader' is not in this computer's AWS files"):
        Connection(remote.Access(profile="team-reader"))


# -- the store on loopback ----------------------------------------------------------------------


def test_the_first_writer_creates_the_library_and_its_metadata(moto: Moto) -> None:  # noqa: F811
    store = RemoteStore(URI, _meta()).open()
    assert store.count_chunks() == 0 and store.documents() == []
    body = moto.s3().get_object(Bucket=BUCKET, Key="library/index/meta.json")["Body"].read()
    assert json.loads(body)["embedder_id"] == EMB.model_id
    assert store.read_meta() == _meta()
    assert not [k for k in keys_in(moto, "library/") if "/_probe/" in k], "the probe is gone"
    # A second writer opens it as it is: the metadata is written once.
    RemoteStore(URI, _meta()).open()
    assert keys_in(moto, "library/index/meta.json") == ["library/index/meta.json"]


def test_a_library_built_with_another_embedder_is_named_not_searched(moto: Moto) -> None:  # noqa: F811
    RemoteStore(URI, _meta("team/other-embedder")).open()
    with pytest.raises(IndexMismatchError, match="set its embedder to team/other-embedder"):
        RemoteStore(URI, _meta()).open()


def test_damaged_or_lost_metadata_is_never_written_over(moto: Moto) -> None:  # noqa: F811
    RemoteStore(URI, _meta()).open()
    s3 = moto.s3()
    s3.put_object(Bucket=BUCKET, Key="library/index/meta.json", Body=b"{not json")
    with pytest.raises(IndexDamagedError, match="damaged"):
        RemoteStore(URI, _meta()).open()
    s3.delete_object(Bucket=BUCKET, Key="library/index/meta.json")
    with pytest.raises(IndexDamagedError, match="lost its metadata"):
        RemoteStore(URI, _meta()).open()
    assert keys_in(moto, "library/index/meta.json") == [], "not made afresh over the tables"


def test_a_read_only_desktop_neither_creates_nor_writes(moto: Moto) -> None:  # noqa: F811
    with pytest.raises(StoreError, match="no team library at s3://team/library yet"):
        RemoteStore(URI, _meta(), read_only=True).open()
    assert keys_in(moto, "library/") == [], "not even a probe"
    RemoteStore(URI, _meta()).open()
    with proxy(moto.endpoint) as p:
        moto.use(endpoint=p.endpoint)
        reader = RemoteStore(URI, _meta(), read_only=True).open()
        before = p.requests
        with pytest.raises(ReadOnlyError, match="searched read-only from this desktop"):
            reader.commit([], [], None)
        assert p.requests == before, "refused before any request"


def test_a_read_is_bounded_by_the_read_deadline_and_the_next_one_tries_again(
    moto: Moto,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    RemoteStore(URI, _meta()).open()
    monkeypatch.setattr(remote, "FRESHNESS_S", 0.0)  # every read asks the store
    with proxy(moto.endpoint) as p:
        moto.use(endpoint=p.endpoint)
        store = RemoteStore(URI, _meta(), query_deadline_s=0.5).open()
        p.mode = "hang"
        with pytest.raises(UnreachableError, match="cannot be reached; your personal library"):
            store.count_chunks()
        p.mode = "pass"
        assert store.count_chunks() == 0


def test_the_probe_passes_where_conditional_puts_are_honoured(moto: Moto) -> None:  # noqa: F811
    probe_conditional_put(moto.s3(), Location.parse(URI))
    assert keys_in(moto, "") == [], "the probe object is deleted"


def test_the_probe_refuses_a_store_that_ignores_them(moto: Moto) -> None:  # noqa: F811
    refused = pytest.raises(StoreError, match=r"s3\+ddb://team/library\?ddbTableName=")
    with proxy(moto.endpoint, "strip") as stripping, refused:
        probe_conditional_put(client(stripping.endpoint), Location.parse(URI))
