"""A team library on object storage (s3://bucket/path): opened with the environment's AWS
credentials, every wait bounded, writes checked for conditional PUTs, read-only users told so.

The tables are LanceDB's own on the bucket (`<uri>/index/chunks.lance`, `documents.lance`) and
the index metadata sits beside them (`<uri>/index/meta.json`). What is this desktop's own
(conversations, the roots it indexed, the writer lock) stays on its disk, in
config.team_local_dir(uri). Credentials are resolved by boto3 (AWS_* variables, AWS_PROFILE and
~/.aws files, AWS_ENDPOINT_URL; a profile, endpoint and region a desktop's settings name), or
read from the OS keyring when those find none and the `keyring` package is there, and handed
to LanceDB in memory only: never to the settings file, never to a log.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from desktop_rag.config import team_local_dir
from desktop_rag.errors import (
    IndexDamagedError,
    IndexMismatchError,
    ReadOnlyError,
    StoreError,
    UnreachableError,
)
from desktop_rag.store.base import READS
from desktop_rag.store.lance import ANN_EF, METADATA_CACHE_BYTES, LanceStore, _sql_list
from desktop_rag.store.schema import (
    CHUNKS,
    DOCUMENTS,
    HIT_EXTRAS,
    META_FILE,
    IndexMeta,
    chunks_schema,
    documents_schema,
    hit_from_row,
)
from desktop_rag.types import Chunk, DocumentRecord, Hit

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

log = logging.getLogger(__name__)

T = TypeVar("T")

# Every search and ask fails within 10 s when the store is down, hung or refusing (issue 34):
# opening the tables has its deadline, each read its own, and no socket waits longer than
# IO_TIMEOUT_S or retries past RETRY_TIMEOUT_S (LanceDB's defaults wait minutes). The read
# deadline is one socket timeout (3 s) plus a second: a read that got its answer in time
# finishes. Opening is a few reads in a row (the metadata, the table list, each table's
# manifest). Both are settable (Settings.team_read_deadline_s, team_open_deadline_s) for a
# store slower than that, at the price of a longer wait when it is down.
OPEN_DEADLINE_S = 6.0
QUERY_DEADLINE_S = 4.0
IO_TIMEOUT_S = 3
CONNECT_TIMEOUT_S = 2
RETRY_TIMEOUT_S = 3
# New commits by the team's writer are seen by desktops within this long; each look is a
# request to the store, so not at every read as for a library on this disk.
FRESHNESS_S = 10.0
PROBE_DIR = "_probe"
# A vector search over a team library's approximate index re-ranks REMOTE_REFINE x k
# candidates by their exact distance (a local library re-ranks ANN_REFINE x k). Each candidate
# re-ranked has its vector read from the store: with the local factor (10) the Retriever's 40
# candidates cost 400 vectors, and the indexed search was slower than an exact one. With 1
# the k results still get their exact distance (the similarity the relevance gate and the
# blend read), and HNSW still explores ANN_EF candidates (in the cached index, no reads):
# on 30,000 chunks on moto, 298 ms p50 instead of 1,151, recall@5 against exact search 0.975
# instead of 0.985; without refining 118 ms but 0.895 (bench/team.py, docs/performance.md).
# 0 here means no refine at all.
REMOTE_REFINE = 1
# The OS keyring entry a desktop reads keys from when the AWS chain finds none: service
# KEYRING_SERVICE, user the library's URI, password "ACCESS_KEY_ID:SECRET_ACCESS_KEY".
KEYRING_SERVICE = "desktop-rag"
# What object stores and their clients say when they cannot be reached or do not answer.
_UNREACHABLE_MARKS = (
    "timed out",
    "timeout",
    "connect",
    "connection",
    "dns error",
    "error sending request",
    "503",
    "service unavailable",
    "slowdown",
    "slow down",
    "reset by peer",
    "broken pipe",
    "endpoint",
    "io error",
    "dispatch failure",
    "unexpected eof",
    "incomplete",
)
_DENIED_MARKS = ("accessdenied", "access denied", "forbidden", "403")


@dataclass(frozen=True, slots=True)
class Location:
    """Where a team library lives: its URI, the bucket and the key prefix inside it."""

    uri: str
    bucket: str
    prefix: str
    commits_in_dynamodb: bool  # s3+ddb://: commits go through a DynamoDB table

    @classmethod
    def parse(cls, uri: str) -> Location:
        uri = uri.strip().rstrip("/")
        parts = urlsplit(uri)
        scheme = parts.scheme.lower()
        if scheme not in ("s3", "s3+ddb") or not parts.netloc:
            raise StoreError(f"{uri} is not an object-storage library (s3://bucket/path).")
        return cls(uri, parts.netloc, parts.path.strip("/"), scheme == "s3+ddb")

    @property
    def index_uri(self) -> str:
        base, _, query = self.uri.partition("?")
        return f"{base}/index" + (f"?{query}" if query else "")

    def key(self, name: str) -> str:
        return "/".join(p for p in (self.prefix, "index", name) if p)

    @property
    def shown(self) -> str:
        """The URI as messages show it: without its query (a DynamoDB table's name)."""
        return self.uri.partition("?")[0]


@dataclass(frozen=True, slots=True)
class Access:
    """Where and as whom a desktop reaches the store, beyond what the environment says: a
    named profile, an endpoint (MinIO, Ceph) and a region. Never a secret: these may be saved
    in the settings file."""

    endpoint: str = ""
    region: str = ""
    profile: str = ""


def keyring_keys(uri: str) -> tuple[str, str] | None:
    """An access key and secret from the OS keyring for this library, when the `keyring`
    package is installed, has a usable backend and holds an entry; else None (never an error:
    the keyring is optional)."""
    try:
        import keyring
    except ImportError:
        return None
    try:
        stored = keyring.get_password(KEYRING_SERVICE, uri)
    except Exception as exc:  # no backend (a headless Linux without a secret service), locked
        log.info("the OS keyring could not be read (%s)", type(exc).__name__)
        return None
    if not stored or ":" not in stored:
        return None
    key_id, _, secret = stored.strip().partition(":")
    return (key_id, secret) if key_id and secret else None


class Connection:
    """Credentials, region and endpoint as the AWS tools resolve them, held in memory only."""

    def __init__(self, access: Access | None = None, uri: str = "") -> None:
        access = access or Access()
        try:
            import boto3
            import botocore.config
        except ImportError as exc:
            raise StoreError(
                "A team library on object storage needs the team extra: "
                "pip install 'desktop-rag[team]'."
            ) from exc
        # botocore's debug log prints each request's headers, the access key's id among them.
        for name in ("botocore", "boto3", "s3transfer"):
            logging.getLogger(name).setLevel(logging.WARNING)
        try:
            session = boto3.Session(
                profile_name=access.profile or None, region_name=access.region or None
            )
        except Exception as exc:  # botocore's ProfileNotFound: says the name, nothing more
            raise StoreError(
                f"The AWS profile {access.profile!r} is not in this computer's AWS files "
                "(~/.aws/config, ~/.aws/credentials, or AWS_CONFIG_FILE)."
            ) from exc
        self.region = session.region_name or "us-east-1"
        config = botocore.config.Config(
            connect_timeout=CONNECT_TIMEOUT_S,
            read_timeout=IO_TIMEOUT_S,
            retries={"max_attempts": 1},
            s3={"addressing_style": "path"},
        )
        creds = session.get_credentials()
        frozen = creds.get_frozen_credentials() if creds is not None else None
        keys = None if frozen is not None or not uri else keyring_keys(uri)
        if keys is not None:  # the keyring's keys for every client of this connection
            session = boto3.Session(
                aws_access_key_id=keys[0],
                aws_secret_access_key=keys[1],
                region_name=self.region,
            )
            frozen = session.get_credentials().get_frozen_credentials()
        self._frozen = frozen
        endpoint = access.endpoint or None
        self.client: Any = session.client(
            "s3", region_name=self.region, config=config, endpoint_url=endpoint
        )
        self.endpoint: str = self.client.meta.endpoint_url
        # s3+ddb:// commits through DynamoDB: its endpoint resolved the same way (a local
        # DynamoDB for an on-premises store is named by AWS_ENDPOINT_URL_DYNAMODB).
        ddb = session.client("dynamodb", region_name=self.region, config=config)
        self.dynamodb_endpoint: str = ddb.meta.endpoint_url

    def __repr__(self) -> str:  # never the keys
        return f"Connection(endpoint={self.endpoint!r}, region={self.region!r})"

    def storage_options(self, dynamodb: bool = False) -> dict[str, str]:
        """LanceDB's options for this store (secrets included: keep them out of logs)."""
        options = {
            "region": self.region,
            "endpoint": self.endpoint,
            "timeout": f"{IO_TIMEOUT_S}s",
            "connect_timeout": f"{CONNECT_TIMEOUT_S}s",
            "client_max_retries": "1",
            "client_retry_timeout": str(RETRY_TIMEOUT_S),
        }
        if self.endpoint.startswith("http://"):
            options["allow_http"] = "true"
        if dynamodb:
            options["dynamodb_endpoint"] = self.dynamodb_endpoint
        if self._frozen is not None:
            options["aws_access_key_id"] = self._frozen.access_key
            options["aws_secret_access_key"] = self._frozen.secret_key
            if self._frozen.token:
                options["aws_session_token"] = self._frozen.token
        return options


def _code(exc: BaseException) -> str:
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        error = response.get("Error", {})
        status = response.get("ResponseMetadata", {}).get("HTTPStatusCode", "")
        return f"{error.get('Code', '')} {status}"
    return ""


def is_denied(exc: BaseException) -> bool:
    text = f"{_code(exc)} {exc}".lower()
    return any(mark in text for mark in _DENIED_MARKS)


def is_unknown(exc: BaseException) -> bool:
    """LanceDB's "Commit result ... is unknown" (its answer lost, and not verifiable then)."""
    return "is unknown" in str(exc) and "ommit" in str(exc)


def is_unreachable(exc: BaseException) -> bool:
    if isinstance(exc, TimeoutError | ConnectionError):
        return True
    if type(exc).__module__.startswith(("botocore", "urllib3")) and not _code(exc).strip():
        return True  # botocore's own errors (no answer at all) carry no response
    text = f"{_code(exc)} {exc}".lower()
    return any(mark in text for mark in _UNREACHABLE_MARKS)


def unreachable_message(location: Location) -> str:
    return (
        f"The team library at {location.shown} cannot be reached; your personal library still "
        "answers. Check the network or ask whoever runs the store; the next search tries again."
    )


def unknown_message(location: Location) -> str:
    return (
        f"Writing the team library at {location.shown} was interrupted and its result is "
        "unknown; nothing was written twice. Index again when the store answers: the documents "
        "not stored are indexed then."
    )


def read_only_message(location: Location) -> str:
    return (
        f"The team library at {location.shown} is read-only for you: searching and asking "
        "work, but indexing or removing documents needs the credentials of the team's writer."
    )


def refused_message(location: Location) -> str:
    return (
        f"The store behind {location.shown} does not honour conditional writes (If-None-Match), "
        "so two writers could silently lose each other's documents: writing to it is refused. "
        f"Use s3+ddb://{location.bucket}/{location.prefix}?ddbTableName=TABLE instead, which "
        "commits through a DynamoDB table."
    )


def bounded(seconds: float, what: Callable[[], T]) -> T:
    """`what()` in a worker thread, given up after `seconds` (the thread ends on its own when
    its socket times out): a hung store never holds the caller longer."""
    result: list[T] = []
    error: list[BaseException] = []

    def run() -> None:
        try:
            result.append(what())
        except BaseException as exc:
            error.append(exc)

    worker = threading.Thread(target=run, name="team-store", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise TimeoutError(f"no answer within {seconds:.0f} s")
    if error:
        raise error[0]
    return result[0]


class RemoteStore(LanceStore):
    """A LanceStore whose tables are on object storage: reads bounded, writes checked."""

    def __init__(
        self,
        uri: str,
        meta: IndexMeta,
        *,
        freshness_s: float | None = None,
        query_deadline_s: float | None = None,
        open_deadline_s: float | None = None,
        access: Access | None = None,
        read_only: bool = False,
    ) -> None:
        self.location = Location.parse(uri)
        self.access = access or Access()
        # A desktop searching the team library beside its own never writes it, nor creates
        # it, nor probes it with a PUT: whatever its credentials would allow.
        self.read_only = read_only
        self.refine = REMOTE_REFINE
        self.ef = ANN_EF
        # The local folder: the writer lock and bookkeeping of this desktop (never the tables).
        super().__init__(team_local_dir(self.location.uri) / "index", meta)
        # Unset, the module's values as they are now (tests change them).
        self.freshness_s = FRESHNESS_S if freshness_s is None else freshness_s
        self.query_deadline_s = QUERY_DEADLINE_S if query_deadline_s is None else query_deadline_s
        self.open_deadline_s = OPEN_DEADLINE_S if open_deadline_s is None else open_deadline_s
        self._conn: Connection | None = None
        self._writable = False
        self._inside = threading.local()

    def __repr__(self) -> str:
        return f"RemoteStore({self.location.shown!r})"

    # -- opening -----------------------------------------------------------------------------

    def open(self, verify: bool = True) -> RemoteStore:
        """Open the team's tables, or fail within the open deadline.

        Raises UnreachableError, IndexMismatchError (built with another embedder: this desktop
        cannot search it), IndexDamagedError (never moved aside: the index is the team's)."""
        import lancedb  # noqa: F401  (imported before the deadline: loading it is not waiting)

        self.path.parent.mkdir(parents=True, exist_ok=True)
        # No request yet: credentials are resolved.
        self._conn = self._conn or Connection(self.access, self.location.shown)
        self._guard(self.open_deadline_s, lambda: self._open_remote(verify))
        return self

    def _open_remote(self, verify: bool) -> None:
        import lancedb

        assert self._conn is not None
        on_store = self.read_meta()
        self._session = lancedb.Session(metadata_cache_size_bytes=METADATA_CACHE_BYTES)
        self._db = lancedb.connect(
            self.location.index_uri,
            storage_options=self._conn.storage_options(self.location.commits_in_dynamodb),
            read_consistency_interval=timedelta(seconds=self.freshness_s),
            session=self._session,
        )
        existing = set(self._db.list_tables().tables)
        if on_store is None and existing & {DOCUMENTS, CHUNKS}:
            raise IndexDamagedError(
                f"The team library at {self.location.shown} has lost its metadata "
                f"({self.location.key(META_FILE)}); whoever writes it must rebuild it."
            )
        if on_store is not None:
            changes = "; ".join(self.meta.differences(on_store))
            if changes:
                raise IndexMismatchError(
                    f"The team library at {self.location.shown} was built differently from "
                    f"this desktop ({changes}), so this desktop cannot search it: set its "
                    f"embedder to {on_store.embedder_id}, or ask whoever writes the library "
                    "to rebuild it. Your personal library is not affected.",
                    found=on_store,
                )
        if on_store is None and self.read_only:
            raise StoreError(
                f"There is no team library at {self.location.shown} yet: ask whoever writes "
                "the team's library to index it first."
            )
        if on_store is None:  # a new library: only a writer may create it
            try:
                self.ensure_writable()
            except ReadOnlyError as exc:
                raise StoreError(
                    f"There is no team library at {self.location.shown} yet, and these "
                    "credentials may only read: ask whoever writes the team's library to "
                    "index it first."
                ) from exc
        if DOCUMENTS in existing:
            self._docs = self._db.open_table(DOCUMENTS)
        else:
            self._docs = self._db.create_table(DOCUMENTS, schema=documents_schema(), exist_ok=True)
        if CHUNKS in existing:
            self._chunks = self._db.open_table(CHUNKS)
        else:
            self._chunks = self._db.create_table(
                CHUNKS, schema=chunks_schema(self.meta.dim), exist_ok=True
            )
        if on_store is None:
            self.write_meta(self.meta)
        if verify:
            LanceStore.documents(self)
            LanceStore.count_chunks(self)

    @classmethod
    def open_as_built(cls, path: Path) -> LanceStore:
        raise StoreError("A team library is opened with this desktop's embedder only.")

    # -- the metadata object -----------------------------------------------------------------

    def read_meta(self) -> IndexMeta | None:
        assert self._conn is not None
        key = self.location.key(META_FILE)
        try:
            body = self._conn.client.get_object(Bucket=self.location.bucket, Key=key)["Body"]
            raw = json.loads(body.read().decode("utf-8"))
        except Exception as exc:
            if "NoSuchKey" in _code(exc) or " 404" in _code(exc):
                return None
            if isinstance(exc, ValueError):
                raise IndexDamagedError(
                    f"The team library's metadata ({key}) is damaged ({exc})."
                ) from exc
            raise
        try:
            return IndexMeta(
                int(raw["schema_version"]),
                str(raw["embedder_id"]),
                int(raw["dim"]),
                {str(k): int(v) for k, v in raw["chunking"].items()},
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise IndexDamagedError(
                f"The team library's metadata ({key}) is damaged ({exc})."
            ) from exc

    def write_meta(self, meta: IndexMeta) -> None:
        """Written once, by the first writer: a second one finds it there and keeps it."""
        assert self._conn is not None
        body = json.dumps(asdict(meta), indent=2).encode("utf-8")
        try:
            self._conn.client.put_object(
                Bucket=self.location.bucket,
                Key=self.location.key(META_FILE),
                Body=body,
                IfNoneMatch="*",
            )
        except Exception as exc:
            if "412" not in _code(exc) and "PreconditionFailed" not in _code(exc):
                raise

    # -- writes: safe or refused -------------------------------------------------------------

    def ensure_writable(self) -> None:
        """Check, once, that these credentials may write and that the store honours
        conditional PUTs (LanceDB's commits rely on them); else ReadOnlyError or StoreError."""
        if self.read_only:
            raise ReadOnlyError(
                f"The team library at {self.location.shown} is searched read-only from this "
                "desktop: its documents are indexed by the team's writer, not here."
            )
        if self._writable:
            return
        assert self._conn is not None
        if not self.location.commits_in_dynamodb:
            probe_conditional_put(self._conn.client, self.location)
        self._writable = True

    def commit(
        self,
        documents: Sequence[DocumentRecord],
        chunks: Sequence[Chunk],
        vectors: NDArray[np.float32] | None,
        replace_doc_ids: Iterable[str] = (),
        remove_doc_ids: Iterable[str] = (),
        *,
        new: bool = False,
        pending: bool = False,
    ) -> None:
        self._guard(None, self.ensure_writable)
        replace, remove = sorted(set(replace_doc_ids)), sorted(set(remove_doc_ids))
        try:
            super().commit(
                documents,
                chunks,
                vectors,
                replace_doc_ids=replace,
                remove_doc_ids=remove,
                new=new,
                # Passed only when set: a commit of text before vectors (issue 32 item 4).
                **({"pending": True} if pending else {}),
            )
        except StoreError as exc:
            if is_denied(exc):
                raise ReadOnlyError(read_only_message(self.location)) from exc
            if not is_unknown(exc):
                raise
            # LanceDB could not tell whether its commit was applied: the table says, and
            # only what is missing is written (never the same rows twice).
            log.warning("team library %s: a commit's result was unknown", self.location.shown)
            if not self._read(lambda: self._chunks_landed(chunks, replace, remove)):
                raise StoreError(unknown_message(self.location)) from exc
            if not self._read(lambda: self._documents_landed(documents, remove)):
                super().commit(documents, [], None, remove_doc_ids=remove)

    def fill_vectors(self, chunks: Sequence[Chunk], vectors: NDArray[np.float32]) -> int:
        self._guard(None, self.ensure_writable)
        try:
            return super().fill_vectors(chunks, vectors)
        except StoreError as exc:
            if is_denied(exc):
                raise ReadOnlyError(read_only_message(self.location)) from exc
            if not is_unknown(exc):
                raise
            # A fill changes only rows still waiting for their vectors: applied twice, the
            # second changes nothing, so it is simply tried again.
            log.warning("team library %s: a fill's result was unknown", self.location.shown)
            return super().fill_vectors(chunks, vectors)

    def _chunks_landed(
        self, chunks: Sequence[Chunk], replace: list[str], remove: list[str]
    ) -> bool:
        """Whether the chunk step of a commit is in the table: its chunks there, and no
        other chunk of the documents it replaced or removed."""
        ids = [c.chunk_id for c in chunks]
        if ids and LanceStore.count_chunks(self, f"chunk_id IN ({_sql_list(ids)})") != len(ids):
            return False
        doomed = sorted(set(replace) | set(remove))
        if not doomed:
            return True
        where = f"doc_id IN ({_sql_list(doomed)})"
        if ids:
            where += f" AND chunk_id NOT IN ({_sql_list(ids)})"
        return LanceStore.count_chunks(self, where) == 0

    def _documents_landed(self, documents: Sequence[DocumentRecord], remove: list[str]) -> bool:
        """Whether the documents step of a commit is in the table, row for row."""
        rows = {d.doc_id: d for d in LanceStore.documents(self)}
        return all(rows.get(d.doc_id) == d for d in documents) and not (set(remove) & set(rows))

    def table_target(self, name: str) -> tuple[str, dict[str, str]]:
        """A table's URI and storage options, for a writer outside LanceDB (the Ray job's
        lance-ray, ingest/ray_engine.py). The options hold the secrets: never log them."""
        assert self._conn is not None
        base, _, query = self.location.index_uri.partition("?")
        uri = f"{base}/{name}.lance" + (f"?{query}" if query else "")
        return uri, self._conn.storage_options(self.location.commits_in_dynamodb)

    # -- reads, each with its deadline --------------------------------------------------------

    def _guard(self, seconds: float | None, what: Callable[[], T]) -> T:
        """Run a request to the store, turning no answer (or too late a one) into
        UnreachableError and a refusal of these credentials into ReadOnlyError."""
        if getattr(self._inside, "active", False):
            return what()  # already bounded by the call that made this one

        def inside() -> T:
            self._inside.active = True
            try:
                return what()
            finally:
                self._inside.active = False

        started = time.monotonic()
        try:
            return bounded(seconds, inside) if seconds is not None else inside()
        except (UnreachableError, ReadOnlyError, IndexMismatchError, IndexDamagedError):
            raise
        except Exception as exc:
            if is_unreachable(exc):
                log.warning(
                    "team library %s: no answer after %.1f s (%s)",
                    self.location.shown,
                    time.monotonic() - started,
                    type(exc).__name__,
                )
                raise UnreachableError(unreachable_message(self.location)) from exc
            if is_denied(exc):
                raise ReadOnlyError(read_only_message(self.location)) from exc
            raise

    def _read(self, what: Callable[[], T]) -> T:
        return self._guard(self.query_deadline_s, what)

    # Every other read of the Store Protocol is bounded below, by _bounded.

    def vector_search(
        self,
        vector: NDArray[np.float32],
        k: int,
        *,
        exact: bool = False,
        where: str | None = None,
    ) -> list[Hit]:
        """As LanceStore.vector_search, re-ranking `refine` x k candidates (REMOTE_REFINE)."""
        return self._read(lambda: self._vector_search(vector, k, exact, where))

    def _vector_search(
        self, vector: NDArray[np.float32], k: int, exact: bool, where: str | None
    ) -> list[Hit]:
        import numpy as np

        if k <= 0:
            return []
        query = (
            self._chunks.search(np.asarray(vector, dtype=np.float32), vector_column_name="vector")
            .distance_type("cosine")
            .select([*self._columns(HIT_EXTRAS), "_distance"])
            .limit(k)
        )
        if where:
            query = query.where(where, prefilter=True)
        if exact:
            query = query.bypass_vector_index()
        elif self.refine > 0:  # ignored while there is no vector index
            query = query.ef(max(self.ef, k * self.refine)).refine_factor(self.refine)
        else:  # the index's own (quantised) distances, nothing re-read
            query = query.ef(max(self.ef, k))
        return [
            hit_from_row(row, 1.0 - float(row["_distance"]), 1.0 - float(row["_distance"]))
            for row in query.to_arrow().to_pylist()
        ]


def _bounded(name: str) -> Callable[..., Any]:
    """LanceStore's read `name`, within the team library's read deadline."""
    read = getattr(LanceStore, name)

    @functools.wraps(read)
    def bounded_read(self: RemoteStore, *args: Any, **kwargs: Any) -> Any:
        return self._read(lambda: read(self, *args, **kwargs))

    return bounded_read


# Each read of the Store Protocol (store/base.py) waits at most the read deadline: a read added
# there is bounded here with no more code. vector_search has a body of its own, bounded inside.
for _name in READS:
    if _name not in RemoteStore.__dict__:
        setattr(RemoteStore, _name, _bounded(_name))


def open_team(
    uri: str,
    meta: IndexMeta,
    *,
    read_deadline_s: float | None = None,
    open_deadline_s: float | None = None,
) -> RemoteStore:
    """The team library at `uri`, opened for this desktop's embedder and chunking (deadlines
    unset: QUERY_DEADLINE_S and OPEN_DEADLINE_S)."""
    return RemoteStore(
        uri, meta, query_deadline_s=read_deadline_s, open_deadline_s=open_deadline_s
    ).open()


def probe_conditional_put(client: Any, location: Location) -> None:
    """PUT a probe object twice with `If-None-Match: *`: the second must fail with 412.

    Raises ReadOnlyError when the first PUT is refused for these credentials, StoreError
    naming s3+ddb:// when the store accepts the second (it ignores the header)."""
    key = location.key(f"{PROBE_DIR}/{uuid.uuid4().hex}")
    bucket = location.bucket
    try:
        client.put_object(Bucket=bucket, Key=key, Body=b"probe", IfNoneMatch="*")
    except Exception as exc:
        if is_denied(exc):
            raise ReadOnlyError(read_only_message(location)) from exc
        raise
    try:
        try:
            client.put_object(Bucket=bucket, Key=key, Body=b"probe", IfNoneMatch="*")
        except Exception as exc:
            code = _code(exc)
            if "412" in code or "PreconditionFailed" in code:
                return  # honoured
            if "501" in code or "NotImplemented" in code:
                raise StoreError(refused_message(location)) from exc
            raise
        raise StoreError(refused_message(location))
    finally:
        try:
            client.delete_object(Bucket=bucket, Key=key)
        except Exception:  # a probe left behind costs a few bytes
            log.debug("could not delete the probe object %s", key)
