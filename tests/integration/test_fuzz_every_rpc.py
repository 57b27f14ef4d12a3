"""Random and malformed requests to every RPC of every installed service (Hypothesis).

Whatever a client sends, the answer is a clear status code (never UNKNOWN or
INTERNAL), and a call that fails stores nothing. The bounds each field declares
(protos/parlor/options/v1/bounds.proto) are learnt from the descriptors and tried at the
edge and one past it. The services are discovered
from the ``parlor.services`` entry points, so a new service is fuzzed as soon
as it is installed.
"""

from __future__ import annotations

import asyncio
import functools
import random
import threading
from collections.abc import Iterator
from typing import Any

import grpc
import psycopg
import pytest
from google.protobuf import descriptor_pool
from google.protobuf.descriptor import FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leakcheck import NOT_A_BOT

from parlor.kit import bounds
from parlor.kit.auth import AuthSettings, generate_private_key, issue_token
from parlor.kit.main import available
from parlor.kit.ratelimit import RateLimitSettings
from parlor.kit.server import Server, ServerSettings, running
from parlor.kit.status import reason_of

pytestmark = [pytest.mark.integration, pytest.mark.slow]

FORBIDDEN = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL, grpc.StatusCode.UNIMPLEMENTED}
AUTH = AuthSettings(private_key=generate_private_key())
PLAYERS = ["ada", "bob", "bot:random", "bot:strong", "", "x" * 300, "é💥", "../etc"]
TEXT = st.one_of(
    st.sampled_from(["", "af", "df", "cx", "zz", "A1 HELLO", "c?t", "cat", "qu", "0", "-1"]),
    st.sampled_from(PLAYERS),
    st.text(max_size=40),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz?*", max_size=70),
)


class Backend:
    """The platform served on a loop in a thread, so Hypothesis can drive it synchronously."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.server: Server | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._serve())

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        try:
            factories = list(available().values())
            server_settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0)
            no_limit = RateLimitSettings(per_second=0, burst=1)
            async with running(server_settings, factories, AUTH, no_limit) as server:
                self.server = server
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:  # surfaced to the test thread
            self._failure = exc
            self._ready.set()

    def start(self) -> Server:
        self.thread.start()
        self._ready.wait(120)
        if self._failure is not None:
            raise self._failure
        assert self.server is not None
        return self.server

    def stop(self) -> None:
        if self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
        self.thread.join(30)


@pytest.fixture(scope="module")
def fuzz_database(backend_env: None, backends: object) -> Iterator[str]:
    """A database of the module's own, which its platform uses: "a refusal stores nothing"
    counts every event stored, and in the session's database the work other tests left
    going (a tournament's driver pairing an arena another test created and left running)
    would store events during a refused call."""
    from kits.stores import migrated_scratch_database

    with migrated_scratch_database(backends) as url, pytest.MonkeyPatch.context() as patch:
        patch.setenv("PARLOR_DATABASE_URL", url)
        yield url


@pytest.fixture(scope="module")
def served(fuzz_database: str) -> Iterator[Server]:
    backend = Backend()
    try:
        yield backend.start()
    finally:
        backend.stop()


def _methods(server: Server) -> list[MethodDescriptor]:
    pool = descriptor_pool.Default()
    found = []
    for name in server.service_names:
        found.extend(pool.FindServiceByName(name).methods)
    return found


def _value(field: FieldDescriptor, rnd: random.Random, depth: int, draw: Any) -> Any:
    t = field.type
    if t == FieldDescriptor.TYPE_MESSAGE:
        return _message(field.message_type, rnd, depth + 1, draw)
    if t == FieldDescriptor.TYPE_STRING:
        return draw(TEXT)
    if t == FieldDescriptor.TYPE_BYTES:
        return rnd.randbytes(rnd.randint(0, 16))
    if t == FieldDescriptor.TYPE_BOOL:
        return rnd.random() < 0.5
    if t == FieldDescriptor.TYPE_ENUM:
        return rnd.choice([v.number for v in field.enum_type.values] + [99])
    if t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return rnd.choice([0.0, -1.0, 1e300, float("nan"), rnd.random()])
    signed = t in (
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_SINT32,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_SFIXED32,
        FieldDescriptor.TYPE_SFIXED64,
    )
    small = rnd.choice([0, 1, 2, 3, 4, 7, 8, 9, 100])
    if t in (
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_SINT32,
        FieldDescriptor.TYPE_SFIXED32,
        FieldDescriptor.TYPE_UINT32,
        FieldDescriptor.TYPE_FIXED32,
    ):
        big = 2**31 - 1 if signed else 2**32 - 1
    else:
        big = 2**63 - 1 if signed else 2**64 - 1
    return rnd.choice([small, big, -small if signed else small])


def _message(descriptor: Any, rnd: random.Random, depth: int, draw: Any) -> Message:
    message = GetMessageClass(descriptor)()
    if depth > 3:
        return message
    for field in descriptor.fields:
        if rnd.random() < 0.35:
            continue
        if field.is_repeated:
            if field.message_type is not None and field.message_type.GetOptions().map_entry:
                continue
            items = [_value(field, rnd, depth, draw) for _ in range(rnd.randint(0, 4))]
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                getattr(message, field.name).extend(items)
            else:
                getattr(message, field.name).extend(items)
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            getattr(message, field.name).CopyFrom(_value(field, rnd, depth, draw))
        else:
            setattr(message, field.name, _value(field, rnd, depth, draw))
    return message


@functools.cache
def _connection(database_url: str) -> psycopg.Connection[Any]:
    """One connection for the checks: thousands of calls, each checked, share a busy server."""
    return psycopg.connect(database_url, autocommit=True)


def _stored(database_url: str) -> int:
    row = (
        _connection(database_url)
        .execute(f"SELECT coalesce(max(position), 0) FROM events WHERE {NOT_A_BOT}")
        .fetchone()
    )
    return int(row[0]) if row else 0


def _since(database_url: str, position: int) -> list[tuple[str, int, str, str]]:
    rows = (
        _connection(database_url)
        .execute(
            "SELECT stream_id, version, type, coalesce(actor, '') FROM events"
            f" WHERE position > %s AND {NOT_A_BOT}",
            (position,),
        )
        .fetchall()
    )
    return [tuple(r) for r in rows]  # type: ignore[misc]


def _call(channel: grpc.Channel, method: MethodDescriptor, payload: bytes, token: str) -> None:
    path = f"/{method.containing_service.full_name}/{method.name}"
    metadata = (("authorization", f"Bearer {token}"),)
    if method.server_streaming:
        call = channel.unary_stream(path)(payload, metadata=metadata, timeout=1.0)
        for n, _ in enumerate(call):
            if n >= 3:
                call.cancel()
                break
    else:
        channel.unary_unary(path)(payload, metadata=metadata, timeout=5.0)


def test_every_rpc_answers_random_requests_with_a_clear_status(
    served: Server, fuzz_database: str
) -> None:
    database_url = fuzz_database
    methods = _methods(served)
    assert methods, "no services to fuzz"
    tokens = [issue_token(AUTH, p or "nobody") for p in ("ada", "bob", "eve")]
    tokens.append(issue_token(AUTH, "botacct-" + "e0" * 16, roles=("bot",)))  # a bot's calls
    seen_codes: dict[str, set[str]] = {}

    with grpc.insecure_channel(f"127.0.0.1:{served.port}") as channel:

        @settings(
            max_examples=40 * len(methods),
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
        @given(st.data())
        def check(data: st.DataObject) -> None:
            method = data.draw(st.sampled_from(methods))
            rnd = data.draw(st.randoms(use_true_random=False))
            if data.draw(st.integers(0, 9)) == 0:
                payload = rnd.randbytes(rnd.randint(1, 40))  # not a message at all
            else:
                payload = _message(method.input_type, rnd, 0, data.draw).SerializeToString()
            before = _stored(database_url)
            try:
                _call(channel, method, payload, rnd.choice(tokens))
                code = grpc.StatusCode.OK
            except grpc.RpcError as error:
                code = error.code()  # type: ignore[attr-defined]
                assert code not in FORBIDDEN, (
                    f"{method.full_name} answered {code.name}: {error.details()}"  # type: ignore[attr-defined]
                )
                if code != grpc.StatusCode.DEADLINE_EXCEEDED:
                    assert reason_of(error), f"{method.full_name} {code.name} without a reason"  # type: ignore[arg-type]
                assert _stored(database_url) == before, (
                    f"{method.full_name} failed with {code.name} but stored "
                    f"{_since(database_url, before)}"
                )
            seen_codes.setdefault(method.full_name, set()).add(code.name)

        check()
    assert set(seen_codes) == {m.full_name for m in methods}, "some RPCs were never called"


# --- the bounds the protos declare: at the edge of each, and one past it ---------------------


def _sample(field: FieldDescriptor, length: int = 1) -> Any:
    """A plain value of the field's type (a string ``length`` long)."""
    t = field.type
    if t == FieldDescriptor.TYPE_STRING:
        return "a" * length
    if t == FieldDescriptor.TYPE_BYTES:
        return b"a" * length
    if t == FieldDescriptor.TYPE_BOOL:
        return True
    if t == FieldDescriptor.TYPE_ENUM:
        return field.enum_type.values[-1].number
    if t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return 1.0
    if t == FieldDescriptor.TYPE_MESSAGE:
        return GetMessageClass(field.message_type)()
    return 1


def _edges(field: FieldDescriptor) -> list[tuple[str, Any, bool]]:
    """(what, value, allowed) at each bound of one field, as ``bounds_of`` reads it."""
    b = bounds.bounds_of(field)
    if field.is_repeated:
        assert b.max_items is not None
        items = b.max_items
        return [
            (f"{items} items", [_sample(field)] * items, True),
            (f"{items + 1} items", [_sample(field)] * (items + 1), False),
        ]
    t = field.type
    if t in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES):
        assert b.max_len is not None
        return [
            (f"{b.max_len} long", _sample(field, b.max_len), True),
            (f"{b.max_len + 1} long", _sample(field, b.max_len + 1), False),
        ]
    if t == FieldDescriptor.TYPE_ENUM:
        last = max(v.number for v in field.enum_type.values)
        return [(f"enum {last}", last, True), (f"enum {last + 1}", last + 1, False)]
    if t in bounds.INTEGER_TYPES:
        assert b.min is not None
        assert b.max is not None
        low, high = bounds.wire_range(field)
        out = [(f"max {b.max}", b.max, True), (f"min {b.min}", b.min, True)]
        if b.max < high:
            out.append((f"max+1 {b.max + 1}", b.max + 1, False))
        if b.min > low:
            out.append((f"min-1 {b.min - 1}", b.min - 1, False))
        return out
    if t in bounds.FLOAT_TYPES:
        return [("inf", float("inf"), False)]
    return []


def _with(descriptor: Any, chain: list[FieldDescriptor], value: Any) -> Message:
    """A request of ``descriptor`` with only the field at the end of ``chain`` set."""
    message = GetMessageClass(descriptor)()
    holder: Any = message
    for step in chain[:-1]:
        if step.is_repeated:
            holder = getattr(holder, step.name).add()
        else:
            holder = getattr(holder, step.name)
    last = chain[-1]
    if last.is_repeated:
        target = getattr(holder, last.name)
        if last.type == FieldDescriptor.TYPE_MESSAGE:
            for item in value:
                target.add().CopyFrom(item)
        else:
            target.extend(value)
    elif last.type == FieldDescriptor.TYPE_MESSAGE:
        getattr(holder, last.name).CopyFrom(value)
    else:
        setattr(holder, last.name, value)
    return message


def _chains(descriptor: Any, depth: int = 0) -> list[list[FieldDescriptor]]:
    """Every path of fields into a request (map fields left to their own test, depth <= 3)."""
    found: list[list[FieldDescriptor]] = []
    for field in descriptor.fields:
        if field.type == FieldDescriptor.TYPE_MESSAGE and field.message_type.GetOptions().map_entry:
            continue
        found.append([field])
        if field.type == FieldDescriptor.TYPE_MESSAGE and depth < 3:
            found.extend([field, *rest] for rest in _chains(field.message_type, depth + 1))
    return found


def test_every_field_of_every_request_is_bounded_at_its_declared_edge(
    served: Server, fuzz_database: str
) -> None:
    """At each bound the protos declare (or the defaults), a value is served or refused by a
    rule; one past it is INVALID_ARGUMENT with a reason. Never INTERNAL, UNKNOWN or
    RESOURCE_EXHAUSTED (an error echoing a huge value would be), and a refusal stores nothing.
    """
    database_url = fuzz_database
    token = issue_token(AUTH, "ada")
    refused_for_bounds = 0
    tried = 0
    with grpc.insecure_channel(f"127.0.0.1:{served.port}") as channel:
        for method in _methods(served):
            for chain in _chains(method.input_type):
                for what, value, allowed in _edges(chain[-1]):
                    path = ".".join(f.name for f in chain)
                    where = f"{method.full_name} {path} {what}"
                    payload = _with(method.input_type, chain, value).SerializeToString()
                    before = _stored(database_url)
                    tried += 1
                    try:
                        _call(channel, method, payload, token)
                        assert allowed, f"{where}: accepted past its bound"
                        continue
                    except grpc.RpcError as error:
                        code = error.code()  # type: ignore[attr-defined]
                        details = error.details() or ""  # type: ignore[attr-defined]
                        reason = reason_of(error)  # type: ignore[arg-type]
                    assert code not in FORBIDDEN | {grpc.StatusCode.RESOURCE_EXHAUSTED}, (
                        f"{where}: {code.name} {details[:200]}"
                    )
                    assert len(details) <= 600, f"{where}: the error echoes the input"
                    if not allowed:
                        assert code == grpc.StatusCode.INVALID_ARGUMENT, f"{where}: {code.name}"
                        assert reason, f"{where}: no reason"
                        refused_for_bounds += 1
                        assert _stored(database_url) == before, f"{where}: stored"
    assert tried > 300, tried
    assert refused_for_bounds > 100, refused_for_bounds
