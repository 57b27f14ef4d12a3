"""A challenge's match made unrated by its challenger is agreed by its seats, and not rated."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from parlor.common.v1 import common_pb2
from parlor.eventstore import NO_STREAM, InMemoryEventStore, Metadata, NewEvent, RecordedEvent
from parlor.matchmaking.v1 import events_pb2
from parlor.matchrecords.consent import match_consent, match_stream
from parlor.services.scoring.sheet import seats_agreed

SEATS = [common_pb2.Seat(index=0, player_id="ann"), common_pb2.Seat(index=1, player_id="bob")]


def seats_taken(match_id: str) -> RecordedEvent:
    return RecordedEvent(
        f"connect4x4-{match_id}",
        1,
        1,
        common_pb2.SeatsTaken.DESCRIPTOR.full_name,
        common_pb2.SeatsTaken(seats=SEATS).SerializeToString(),
        1,
        Metadata(actor="matchmaking", extra=match_consent(match_id)),
        datetime.now(UTC),
    )


@pytest.mark.parametrize(("unrated", "scored"), [(False, True), (True, False)])
async def test_an_unrated_challenge_is_not_scored(unrated: bool, scored: bool) -> None:
    store = InMemoryEventStore()
    match_id = "ab12" * 8
    formed = events_pb2.MatchFormed(
        match_id=match_id, game_type="connect4x4", seats=SEATS, unrated=unrated
    )
    await store.append(
        match_stream(match_id),
        [NewEvent(events_pb2.MatchFormed.DESCRIPTOR.full_name, formed.SerializeToString())],
        NO_STREAM,
    )
    assert await seats_agreed(store, seats_taken(match_id)) is scored
