"""A match formed for Take Four becomes a game, dealt at once, its bot seat playing."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import grpc
import nats
import pytest

from parlor.common.v1 import common_pb2
from parlor.eventstore import NO_STREAM, NewEvent, PostgresEventStore
from parlor.matchmaking.v1 import events_pb2
from parlor.takefour.v1 import takefour_pb2 as pb
from parlor.takefour.v1 import takefour_pb2_grpc as pb_grpc

pytestmark = pytest.mark.integration


@pytest.fixture
def bot_pause_seconds() -> str:
    """The bot waits 2 s before each step: at full speed it could play the game out before
    the first look at it (seen once in a full run: over at version 171)."""
    return "2"


async def test_a_match_formed_for_takefour_starts_a_game_with_its_seats(
    takefour: Any, nats_url: str, subject_prefix: str, database_url: str
) -> None:
    match_id = uuid.uuid4().hex
    match = events_pb2.MatchFormed(
        match_id=match_id,
        game_type="takefour",
        seats=[
            common_pb2.Seat(index=0, player_id="ada", display_name="Ada"),
            common_pb2.Seat(index=1, player_id="bot:medium"),
        ],
    )
    # As matchmaking records it (the game service believes the store, not the bus) ...
    async with PostgresEventStore(database_url) as store:
        await store.append(
            f"matchmaking-{match_id}",
            [NewEvent(match.DESCRIPTOR.full_name, match.SerializeToString())],
            NO_STREAM,
        )
    # ... and as its relay publishes it.
    nc = await nats.connect(nats_url)
    try:
        await nc.jetstream().publish(
            f"{subject_prefix}.matchmaking.{match_id}.MatchFormed", match.SerializeToString()
        )
    finally:
        await nc.close()

    async with takefour.channel("ada") as channel:
        ada = pb_grpc.TakeFourServiceStub(channel)
        game: pb.Game | None = None
        for _ in range(100):
            try:
                game = (await ada.GetGame(pb.GetGameRequest(game_id=match_id))).game
                if game.phase == pb.PHASE_PLAYING:  # created, then dealt: two appends
                    break
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.NOT_FOUND:
                    raise
            await asyncio.sleep(0.2)
        assert game is not None
        assert [s.seat.player_id for s in game.seats] == ["ada", "bot:medium"]
        assert game.seats[0].seat.display_name == "Ada"
        assert game.phase == pb.PHASE_PLAYING
        assert game.round == 1
        assert game.config.lexicon.startswith("enable1")
        assert len(game.seats[0].hand) >= 4  # more once the bot calls Take Four
