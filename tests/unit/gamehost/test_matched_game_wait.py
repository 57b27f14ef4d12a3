"""A player asks for their matched game the moment their ticket says matched, often before
the game's service has created it (the match is still on its way over the bus): GetGame and
WatchGame wait for a game the store holds a match of, and answer NOT_FOUND at once for any
other id (or after the wait, for a match whose game never comes)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.core.errors import NotFound
from parlor.eventstore import InMemoryEventStore, NewEvent
from parlor.gamehost import GameHost
from parlor.gamehost.wire.service import GameService
from parlor.kit import auth
from parlor.matchmaking.v1 import events_pb2
from parlor.matchrecords.consent import MATCH_FORMED, match_stream
from parlor.services.connect4x4.game import GAME, Codec
from parlor.services.connect4x4.game import SERVING as C4_SERVING

MATCH = events_pb2.MatchFormed(
    match_id="m1",
    game_type="connect4x4",
    seats=[common_pb2.Seat(index=0, player_id="ada"), common_pb2.Seat(index=1, player_id="bob")],
)


async def served(*matches: events_pb2.MatchFormed) -> GameService[Any, Any]:
    store = InMemoryEventStore()
    for match in matches:
        await store.append(
            match_stream(match.match_id), [NewEvent(MATCH_FORMED, match.SerializeToString())], 0
        )
    host: Any = GameHost("connect4x4", GAME.decider, Codec(), store)
    auth.bind(auth.Identity("ada"))
    return C4_SERVING.servicer(host)


def test_a_watch_of_a_matched_game_waits_for_its_creation() -> None:
    async def run() -> None:
        servicer = await served(MATCH)
        stream = servicer.WatchGame(pb.WatchGameRequest(game_id="m1"), None)
        first = asyncio.create_task(anext(stream))
        got = asyncio.create_task(servicer.GetGame(pb.GetGameRequest(game_id="m1"), None))
        await asyncio.sleep(0.2)
        assert not first.done()
        assert not got.done()
        await servicer.pipeline.create_from_match(MATCH)
        update = await asyncio.wait_for(first, 2)
        assert update.game.game_id == "m1"
        assert [s.player_id for s in (await asyncio.wait_for(got, 2)).game.seats] == ["ada", "bob"]
        await stream.aclose()

    asyncio.run(run())


def test_an_id_no_match_holds_is_not_found_at_once_and_a_match_never_created_after_the_wait() -> (
    None
):
    async def run() -> None:
        other_type = events_pb2.MatchFormed()
        other_type.CopyFrom(MATCH)
        other_type.match_id, other_type.game_type = "m2", "upwords"
        servicer = await served(MATCH, other_type)
        servicer.reads.matched_game_wait = 0.3
        for game_id in ("nope", "m2"):  # no match; another game type's match
            began = time.monotonic()
            with pytest.raises(NotFound):
                await anext(servicer.WatchGame(pb.WatchGameRequest(game_id=game_id), None))
            with pytest.raises(NotFound):
                await servicer.GetGame(pb.GetGameRequest(game_id=game_id), None)
            assert time.monotonic() - began < 0.2
        began = time.monotonic()
        with pytest.raises(NotFound) as missing:
            await anext(servicer.WatchGame(pb.WatchGameRequest(game_id="m1"), None))
        assert missing.value.reason == "GAME_NOT_FOUND"
        assert 0.25 < time.monotonic() - began < 2

    asyncio.run(run())
