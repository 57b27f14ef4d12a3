"""Pure parts of the event store: subjects, headers, upcasters, URLs, the in-memory relay."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parlor.core.errors import InvalidArgument
from parlor.eventstore import (
    NO_STREAM,
    InMemoryBus,
    InMemoryEventStore,
    InMemoryRelay,
    Metadata,
    NewEvent,
    RecordedEvent,
    Subjects,
    Upcasters,
    decode_event,
    event_headers,
)
from parlor.eventstore.bus import subject_matches
from parlor.eventstore.events import check_stream_id
from parlor.eventstore.urls import libpq_url, sqlalchemy_url


def recorded(stream_id: str = "upwords-abc-123", kind: str = "TilesPlaced") -> RecordedEvent:
    return RecordedEvent(
        stream_id=stream_id,
        version=4,
        position=99,
        type=kind,
        data=b"\x08\x01",
        schema_version=2,
        metadata=Metadata(
            command_id="c1", actor="p2", causation_id="x", correlation_id="m", extra={"trace": "t1"}
        ),
        recorded_at=datetime(2026, 11, 30, 3, 0, tzinfo=UTC),
    )


def test_subject_is_prefix_category_id_and_short_event_type() -> None:
    subjects = Subjects()
    assert subjects.for_event(recorded()) == "parlor.events.upwords.abc-123.TilesPlaced"
    dotted = recorded(kind="parlor.upwords.v1.TilesPlaced")
    assert subjects.for_event(dotted) == "parlor.events.upwords.abc-123.TilesPlaced"
    assert subjects.category("upwords") == "parlor.events.upwords.>"
    assert subjects.stream_of("upwords-abc-123") == "parlor.events.upwords.abc-123.*"


def test_headers_carry_everything_and_decode_back_to_the_same_event() -> None:
    event = recorded()
    headers = event_headers(event)
    assert headers["Nats-Msg-Id"] == "upwords-abc-123:4"
    assert headers["Parlor-Stream"] == "upwords-abc-123"
    assert headers["Parlor-Position"] == "99"
    assert headers["Parlor-Event-Type"] == "TilesPlaced"
    assert headers["Parlor-Correlation-Id"] == "m"
    assert decode_event(headers, event.data) == event


def test_messages_without_event_headers_decode_to_none() -> None:
    assert decode_event({"Nats-Msg-Id": "x"}, b"") is None


@pytest.mark.parametrize(
    "changes",
    [
        {"Parlor-Version": "three"},
        {"Parlor-Version": "0"},
        {"Parlor-Version": "9" * 40},  # past a bigint (and Python's digit limit, at 4,301)
        {"Parlor-Version": "\u0661"},  # a digit, but not ASCII
        {"Parlor-Position": "-5"},
        {"Parlor-Schema-Version": ""},
        {"Parlor-Recorded-At": "yesterday"},
        {"Parlor-Extra": "[1, 2]"},
        {"Parlor-Extra": '{"a": 1}'},
        {"Parlor-Extra": "{"},
        {"Parlor-Stream": "no such.stream"},
        {"Parlor-Stream": "upwords-" + "x" * 5000},
        {"Parlor-Event-Type": "a>b"},
        {"Parlor-Position": None},
    ],
)
def test_a_message_whose_headers_no_store_could_have_written_is_malformed(
    changes: dict[str, str | None],
) -> None:
    """Anyone who can publish writes these headers: each is checked to what a store holds,
    and a bad one is one error a consumer can set aside (not a ValueError, KeyError or
    TypeError from deep inside, which it would retry forever)."""
    headers = {**event_headers(recorded()), **changes}
    claimed = {k: v for k, v in headers.items() if v is not None}
    with pytest.raises(InvalidArgument) as refused:
        decode_event(claimed, b"")
    assert refused.value.reason == "MALFORMED_EVENT"
    assert len(refused.value.message) < 300


@pytest.mark.parametrize(
    ("pattern", "subject", "matches"),
    [
        ("a.b.c", "a.b.c", True),
        ("a.*.c", "a.x.c", True),
        ("a.*", "a.x.c", False),
        ("a.>", "a.x.c", True),
        ("a.>", "a", False),
        ("a.b", "a.b.c", False),
        ("*.*.*.Done", "p.g.1.x.Done", False),
        ("p.*.*.Done", "p.g.1.Done", True),
    ],
)
def test_subject_wildcards_follow_nats(pattern: str, subject: str, matches: bool) -> None:
    assert subject_matches(pattern, subject) is matches


@given(st.from_regex(r"[a-z][a-z0-9_]{0,10}-[A-Za-z0-9_\-]{1,20}", fullmatch=True))
def test_every_valid_stream_id_becomes_a_subject_of_exactly_four_tokens(stream_id: str) -> None:
    check_stream_id(stream_id)
    subject = Subjects().for_event(recorded(stream_id=stream_id))
    tokens = subject.split(".")
    assert len(tokens) == 5  # parlor, events, category, id, type
    assert all(tokens)
    assert not any(c in subject for c in " *>")


@pytest.mark.parametrize("bad", ["x", "game.1-a", "game-a b", "game->", "-abc", "Game-1"])
def test_stream_ids_that_cannot_be_subjects_are_refused(bad: str) -> None:
    with pytest.raises(InvalidArgument):
        check_stream_id(bad)


def test_upcasters_chain_steps_until_the_newest_version() -> None:
    upcasters = Upcasters()

    @upcasters.step("TilesPlaced", 2)
    def add_suffix(data: bytes) -> bytes:
        return data + b"!"

    upcasters.register("TilesPlaced", 3, lambda data: data * 2)
    up = upcasters.upcast(recorded())
    assert (up.schema_version, up.data) == (4, b"\x08\x01!\x08\x01!")
    untouched = recorded(kind="Other")
    assert upcasters.upcast(untouched) is untouched


def test_an_upcaster_step_is_registered_once() -> None:
    upcasters = Upcasters()
    upcasters.register("A", 1, bytes)
    with pytest.raises(ValueError, match="already registered"):
        upcasters.register("A", 1, bytes)


def test_plain_postgres_urls_become_psycopg_urls_and_back() -> None:
    url = "postgresql://postgres@127.0.0.1:5432/parlor?sslmode=disable"
    assert (
        sqlalchemy_url(url) == "postgresql+psycopg://postgres@127.0.0.1:5432/parlor?sslmode=disable"
    )
    assert libpq_url(sqlalchemy_url(url)) == url
    with pytest.raises(ValueError, match="not a PostgreSQL URL"):
        sqlalchemy_url("mysql://x")


async def test_in_memory_relay_publishes_what_the_store_records_once() -> None:
    store, bus = InMemoryEventStore(), InMemoryBus()
    relay = InMemoryRelay(store, bus)
    await store.append("takefour-1", [NewEvent("GameCreated", b"")], NO_STREAM)
    await store.append("takefour-1", [NewEvent("CardTaken", b"")], 1)
    assert await relay.publish_pending() == 2
    assert await relay.publish_pending() == 0
    assert [e.message_id for e in bus.events()] == ["takefour-1:1", "takefour-1:2"]
