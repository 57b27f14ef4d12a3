"""What tests and benchmarks make on shared PostgreSQL and NATS: named, recorded, removed.

Every scratch database, JetStream stream, KV bucket or durable consumer a run makes is
named ``parlor_<kind>_<UTC time the run began>_<run>_<n>`` (``PARLOR_<KIND>_...`` for
NATS), with ``kind`` ``test`` or ``bench``. Processes of one run (a pytest session, a
``make bench``) share the run through ``PARLOR_SCRATCH_RUN`` and write every name they
give out to the file ``PARLOR_SCRATCH_LEDGER`` names, so the process that began the run
can list at its end what the run made and check that none of it is left (``finish``).

A run that was killed cannot clean up; the next run's ``sweep`` removes what such runs
left, but only names of these patterns (and the ones Parlor used before, whose age the
server tells) that are older than a few hours, and never a database someone is connected
to or a stream that took a message recently: runs going on beside it are never touched.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import re
import secrets
import signal
import types
from collections.abc import Callable, Coroutine, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal, TypeVar

import psycopg

Kind = Literal["test", "bench"]
Resource = Literal["database", "stream", "consumer"]
T = TypeVar("T")

RUN_ENV = "PARLOR_SCRATCH_RUN"
LEDGER_ENV = "PARLOR_SCRATCH_LEDGER"
SWEEP_HOURS_ENV = "PARLOR_SCRATCH_SWEEP_HOURS"
DEFAULT_SWEEP_HOURS = 3.0
"""Left-overs younger than this are never swept: no test or benchmark run takes that long."""

_STAMP = "%Y%m%d%H%M%S"
_NAMED = re.compile(
    r"^(?:KV_|OBJ_)?(?:parlor|PARLOR)_(?:test|bench|TEST|BENCH)"
    r"_(?P<when>\d{14})_(?P<run>[0-9a-f]{6})_[0-9a-f]{6}$"
)
# Names Parlor's tests and benchmarks gave before they carried the time: their age is the
# server's (a stream's creation time, a database folder's), never a guess.
_OLD_DATABASES = re.compile(
    r"^parlor_(?:(?:test|es)_[0-9a-f]{10}|(?:bench|load)_[0-9a-f]{8}(?:[0-9a-f]{2})?"
    r"|deploy_[a-z0-9-]+_[0-9a-f]{8})$"
)
_OLD_STREAMS = re.compile(
    r"^(?:PARLOR_TEST_[0-9a-f]{10}|PARLOR_LOAD_[0-9a-f]{8}|T[0-9a-f]{12}|IDLE_[0-9A-F]{12}"
    r"|BENCH_[0-9A-F]{6})$"
)


@dataclass(frozen=True)
class Run:
    """One test session or benchmark run: when it began and a token of its own."""

    began: datetime
    token: str

    @property
    def stamp(self) -> str:
        return f"{self.began.strftime(_STAMP)}_{self.token}"

    @classmethod
    def parse(cls, stamp: str) -> Run:
        when, token = stamp.split("_")
        return cls(datetime.strptime(when, _STAMP).replace(tzinfo=UTC), token)

    @classmethod
    def new(cls, now: datetime | None = None) -> Run:
        began = (now or datetime.now(UTC)).replace(microsecond=0)
        return cls(began, secrets.token_hex(3))

    def name(self, kind: Kind, resource: Resource = "database") -> str:
        """A new name of this run's: lower case for a database, upper-case prefix on NATS."""
        prefix = f"parlor_{kind}" if resource == "database" else f"PARLOR_{kind.upper()}"
        return f"{prefix}_{self.stamp}_{secrets.token_hex(3)}"

    def owns(self, name: str) -> bool:
        found = _NAMED.match(name)
        return found is not None and f"{found['when']}_{found['run']}" == self.stamp


def current_run() -> Run:
    """This process's run: inherited from the process that began it, else a new one."""
    stamp = os.environ.get(RUN_ENV)
    if stamp:
        return Run.parse(stamp)
    run = Run.new()
    os.environ[RUN_ENV] = run.stamp
    return run


def begin_run(ledger_dir: Path, now: datetime | None = None) -> Run:
    """Begin a run here (a test session, ``make bench``); this process's children join it."""
    run = Run.new(now)
    ledger_dir.mkdir(parents=True, exist_ok=True)
    ledger = ledger_dir / f"scratch-{run.stamp}.txt"
    ledger.touch()
    os.environ[RUN_ENV] = run.stamp
    os.environ[LEDGER_ENV] = str(ledger)
    return run


def end_run() -> None:
    """Forget the ledger of the run begun here (after ``finish`` has read it)."""
    ledger = os.environ.pop(LEDGER_ENV, None)
    if ledger:
        Path(ledger).unlink(missing_ok=True)


def scratch_name(kind: Kind, resource: Resource = "database") -> str:
    """A name of this process's run, recorded in the run's ledger for its end-of-run check."""
    name = current_run().name(kind, resource)
    record(resource, name)
    return name


def record(resource: Resource, name: str) -> None:
    """Write a name of this run's in the run's ledger (one made from a scratch name)."""
    ledger = os.environ.get(LEDGER_ENV)
    if ledger:
        with open(ledger, "a") as file:  # one short line per write: appends never interleave
            file.write(f"{resource} {name}\n")


def recorded(run: Run) -> list[tuple[str, str]]:
    """Every (resource, name) the processes of this run gave out, in order."""
    ledger = os.environ.get(LEDGER_ENV)
    if not ledger or not Path(ledger).exists():
        return []
    pairs = [line.split(" ", 1) for line in Path(ledger).read_text().splitlines() if line]
    return [(r, n) for r, n in pairs if run.owns(_bare(n))]


# -- what is on the servers -------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """A database, stream or consumer on a server, and what tells how old and how live it is."""

    resource: Resource
    name: str
    created: datetime | None = None
    last_active: datetime | None = None
    connections: int = 0
    stream: str | None = None  # a consumer's stream

    def __str__(self) -> str:
        where = f" on stream {self.stream}" if self.stream else ""
        return f"{self.resource} {self.name}{where}"


def databases(server_url: str) -> list[Found]:
    """Every non-template database, with its connections and (if readable) its age."""
    with psycopg.connect(server_url, autocommit=True, connect_timeout=5) as conn:
        rows = conn.execute(
            "SELECT d.datname, (SELECT count(*) FROM pg_stat_activity a"
            " WHERE a.datname = d.datname), d.oid FROM pg_database d WHERE NOT d.datistemplate"
        ).fetchall()
        found = []
        for name, connections, oid in rows:
            created = None
            if _OLD_DATABASES.match(name):  # only those need the server's word on their age
                with contextlib.suppress(psycopg.Error):
                    row = conn.execute(
                        "SELECT (pg_stat_file(%s)).modification", (f"base/{oid}/PG_VERSION",)
                    ).fetchone()
                    created = row[0] if row else None
            found.append(Found("database", name, created, connections=int(connections)))
        return found


def _parse_time(text: str | None) -> datetime | None:
    if not text or text.startswith("0001-"):
        return None
    text = re.sub(r"(\.\d{6})\d*", r"\1", text.replace("Z", "+00:00"))
    return datetime.fromisoformat(text)


async def _streams(nats_url: str) -> list[Found]:
    import nats

    nc = await nats.connect(nats_url, connect_timeout=3, max_reconnect_attempts=0)
    try:
        found: list[Found] = []
        offset = 0
        while True:
            reply = await nc.request(
                "$JS.API.STREAM.LIST", json.dumps({"offset": offset}).encode(), timeout=5
            )
            page = json.loads(reply.data)
            for info in page.get("streams") or []:
                name = info["config"]["name"]
                found.append(
                    Found(
                        "stream",
                        name,
                        _parse_time(info.get("created")),
                        _parse_time(info.get("state", {}).get("last_ts")),
                    )
                )
                if info.get("state", {}).get("consumer_count"):
                    found += await _consumers(nc, name)
            offset += len(page.get("streams") or [])
            if not page.get("streams") or offset >= page.get("total", 0):
                return found
    finally:
        await nc.close()


async def _consumers(nc: Any, stream: str) -> list[Found]:
    found, offset = [], 0
    while True:
        reply = await nc.request(
            f"$JS.API.CONSUMER.LIST.{stream}", json.dumps({"offset": offset}).encode(), timeout=5
        )
        page = json.loads(reply.data)
        for info in page.get("consumers") or []:
            name = info.get("config", {}).get("durable_name") or info["name"]
            found.append(Found("consumer", name, _parse_time(info.get("created")), stream=stream))
        offset += len(page.get("consumers") or [])
        if not page.get("consumers") or offset >= page.get("total", 0):
            return found


def streams(nats_url: str) -> list[Found]:
    """Every JetStream stream (KV buckets are streams ``KV_<bucket>``) and durable consumer."""
    return _blocking(lambda: _streams(nats_url))


def _blocking(coroutine: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run NATS calls from synchronous code, whether or not an event loop runs here."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(coroutine())).result()


# -- removing ---------------------------------------------------------------------------------


def _safe(name: str) -> str:
    if not (_NAMED.match(_bare(name)) or _OLD_DATABASES.match(name) or _OLD_STREAMS.match(name)):
        raise ValueError(f"{name!r} is not a name of Parlor's tests or benchmarks")
    return name


def remove(server_url: str, nats_url: str, found: Iterable[Found], *, force: bool) -> None:
    """Drop these databases, delete these streams and consumers (only names of ours).

    ``force`` ends sessions still connected to a database (a run's own left-overs).
    """
    found = [item for item in found if _safe(item.name)]
    with psycopg.connect(server_url, autocommit=True, connect_timeout=5) as conn:
        for item in found:
            if item.resource != "database":
                continue
            if force:
                conn.execute(f'DROP DATABASE IF EXISTS "{_safe(item.name)}" WITH (FORCE)')
            else:  # someone connected since it was listed: not a left-over after all
                with contextlib.suppress(psycopg.errors.ObjectInUse):
                    conn.execute(f'DROP DATABASE IF EXISTS "{_safe(item.name)}"')
    others = [f for f in found if f.resource != "database"]
    if others:
        _blocking(lambda: _delete(nats_url, others))


async def _delete(nats_url: str, found: list[Found]) -> None:
    found = [item for item in found if _safe(item.name)]
    import nats
    import nats.js.errors

    nc = await nats.connect(nats_url, connect_timeout=3, max_reconnect_attempts=0)
    try:
        js = nc.jetstream()
        gone = {f.name for f in found if f.resource == "stream"}
        for item in found:
            with contextlib.suppress(nats.js.errors.NotFoundError):
                if item.resource == "stream":
                    await js.delete_stream(item.name)
                elif item.stream not in gone and item.stream is not None:
                    await js.delete_consumer(item.stream, item.name)
    finally:
        await nc.close()


def delete_streams(nats_url: str, names: Iterable[str]) -> None:
    """Delete these streams of ours if they exist (and with them their consumers)."""
    found = [Found("stream", name) for name in names]
    if found:
        _blocking(lambda: _delete(nats_url, found))


@contextlib.contextmanager
def scratch_stream(nats_url: str, kind: Kind) -> Iterator[tuple[str, str]]:
    """A stream name and subject prefix of this run's own; the stream is deleted afterwards.

    The code under test makes the stream; this only names it and removes it.
    """
    stream = scratch_name(kind, "stream")
    try:
        yield stream, f"{stream.lower()}.events"
    finally:
        delete_streams(nats_url, [stream])


# -- the end of a run, and the next run's sweep -----------------------------------------------


def on_servers(run: Run, server_url: str, nats_url: str) -> list[Found]:
    """What of this run's is still on the servers."""
    everything = databases(server_url) + streams(nats_url)
    return [f for f in everything if run.owns(_bare(f.name))]


# The stream and subjects parlor-platform names after its database (PARLOR_<DB>_EVENTS):
# for a scratch database they are that database's, and as much the run's.
_PLATFORM_STREAM = re.compile(
    r"^PARLOR_(?P<database>PARLOR_(?:TEST|BENCH)_\d{14}_[0-9A-F]{6}_[0-9A-F]{6})_EVENTS$"
)


def _bare(name: str) -> str:
    """The scratch name inside a KV bucket's or object store's stream, or a platform's."""
    name = name.removeprefix("KV_").removeprefix("OBJ_")
    platform = _PLATFORM_STREAM.match(name)
    return platform["database"].lower() if platform else name


@dataclass
class Finish:
    """The end-of-run check: what the run made, and what of it was still there."""

    run: Run
    made: list[tuple[str, str]]
    left: list[Found] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.left

    def lines(self, every_name: bool = False) -> list[str]:
        """The report: counts of what the run made (``every_name``: each), then what was left."""
        counts: dict[str, int] = {}
        for resource, _ in self.made:
            counts[resource] = counts.get(resource, 0) + 1
        made = ", ".join(f"{n} {r}{'s' if n > 1 else ''}" for r, n in counts.items())
        head = f"scratch run {self.run.stamp}: made {made or 'nothing'} on PostgreSQL and NATS"
        names = [f"  made {resource} {name}" for resource, name in self.made] if every_name else []
        if self.clean:
            return [f"{head}; none of it is left", *names]
        return [
            f"{head}; LEFT BEHIND (now removed) {len(self.left)}:",
            *(f"  {item}" for item in self.left),
            *names,
        ]


def finish(run: Run, server_url: str, nats_url: str) -> Finish:
    """List what the run made and what of it is still there; remove that too, and say so."""
    result = Finish(run, recorded(run), on_servers(run, server_url, nats_url))
    if result.left:
        remove(server_url, nats_url, result.left, force=True)
    return result


def sweep_age() -> timedelta:
    return timedelta(hours=float(os.environ.get(SWEEP_HOURS_ENV, DEFAULT_SWEEP_HOURS)))


def stale(found: Found, now: datetime, older_than: timedelta) -> bool:
    """A left-over of an earlier run of ours that nobody uses any more."""
    named = _NAMED.match(_bare(found.name))
    if named:
        created: datetime | None = datetime.strptime(named["when"], _STAMP).replace(tzinfo=UTC)
    elif (found.resource == "database" and _OLD_DATABASES.match(found.name)) or (
        found.resource == "stream" and _OLD_STREAMS.match(found.name)
    ):
        created = found.created
    else:
        return False  # not ours: never touched
    if created is None or now - created < older_than:
        return False
    if found.last_active is not None and now - found.last_active < older_than:
        return False  # a stream that took a message recently belongs to a live run
    return found.connections == 0


def sweep(
    server_url: str, nats_url: str, older_than: timedelta | None = None, now: datetime | None = None
) -> list[Found]:
    """Remove what earlier, killed runs left (only stale names of ours); returns what went."""
    now = now or datetime.now(UTC)
    older_than = sweep_age() if older_than is None else older_than
    run = os.environ.get(RUN_ENV)
    gone = [
        f
        for f in databases(server_url) + streams(nats_url)
        if stale(f, now, older_than) and not (run and Run.parse(run).owns(_bare(f.name)))
    ]
    if gone:
        remove(server_url, nats_url, gone, force=False)
    return gone


def interrupt_on_sigterm() -> None:
    """Make SIGTERM unwind like Ctrl-C, so ``finally`` blocks and finalisers still clean up."""

    def interrupt(signum: int, frame: types.FrameType | None) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    with contextlib.suppress(ValueError):  # only the main thread may set handlers
        signal.signal(signal.SIGTERM, interrupt)


@contextlib.contextmanager
def scratch_settings(
    database_server_url: str, nats_url: str, kind: Kind
) -> Iterator[dict[str, str]]:
    """A database and a stream of this run's, as the settings that point Parlor at them.

    Yields ``PARLOR_DATABASE_URL``, ``PARLOR_NATS_URL``, ``PARLOR_NATS_STREAM`` and
    ``PARLOR_NATS_SUBJECT_PREFIX``; the database is dropped and the stream deleted afterwards.
    """
    from parlor.devinfra.backends import scratch_database

    with (
        scratch_database(database_server_url, scratch_name(kind)) as url,
        scratch_stream(nats_url, kind) as (stream, prefix),
    ):
        yield {
            "PARLOR_DATABASE_URL": url,
            "PARLOR_NATS_URL": nats_url,
            "PARLOR_NATS_STREAM": stream,
            "PARLOR_NATS_SUBJECT_PREFIX": prefix,
        }
