"""Bots play a whole Take Four game over the service; its events replay to the same result."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from parlor.common.v1 import common_pb2
from parlor.core.decider import replay
from parlor.eventstore import PostgresEventStore
from parlor.kit import client
from parlor.services.takefour.codec import Codec, event_of, game_pb
from parlor.services.takefour.component import rules
from parlor.takefour.v1 import takefour_pb2 as pb
from parlor.takefour.v1 import takefour_pb2_grpc as pb_grpc

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(("players", "rounds"), [(2, 1), (4, 2)])
async def test_bots_play_a_whole_game_that_replays_to_the_same_result(
    takefour: Any, database_url: str, players: int, rounds: int
) -> None:
    game_id = uuid.uuid4().hex
    levels = ["easy", "medium", "hard", "medium"][:players]
    bot_seats = [common_pb2.Seat(player_id=f"bot:{level}") for level in levels]
    token = takefour.token("matchmaking", ("service",))
    async with (
        client.channel(takefour.target, token) as s_ch,
        takefour.channel("cy") as c_ch,
    ):
        service = pb_grpc.TakeFourServiceStub(s_ch)
        cy = pb_grpc.TakeFourServiceStub(c_ch)
        created = await service.CreateGame(
            pb.CreateGameRequest(
                game_id=game_id, seats=bot_seats, config=pb.Config(max_rounds=rounds)
            )
        )
        assert created.game.phase == pb.PHASE_PLAYING

        last: pb.WatchGameResponse | None = None

        async def watch() -> None:
            nonlocal last
            async for item in cy.WatchGame(pb.WatchGameRequest(game_id=game_id)):
                last = item

        await asyncio.wait_for(watch(), 240)
        assert last is not None
        assert last.event.WhichOneof("body") == "game_finished"
        final = (await cy.GetGame(pb.GetGameRequest(game_id=game_id))).game
        assert final.phase == pb.PHASE_OVER
        assert final.round == rounds
        assert len(final.results) == rounds

        # Over gRPC: the history, revealed now the game is over, replays to the same game.
        history = (await cy.GetHistory(pb.GetHistoryRequest(game_id=game_id))).events
        from_history = replay(
            rules(), [event_of(getattr(e, e.WhichOneof("body"))) for e in history]
        )
        assert game_pb(game_id, final.version, from_history, None) == final

    # From the store: the same result, and GameFinished ranks the lowest total first.
    store = PostgresEventStore(database_url)
    try:
        stored = await store.read_stream(f"takefour-{game_id}")
    finally:
        await store.close()
    codec = Codec()
    events = [codec.decode(r.type, r.data) for r in stored]
    table = replay(rules(), events)
    assert table == from_history
    totals = table.game.totals
    assert [s.total for s in final.seats] == list(totals)
    finished = last.event.game_finished
    assert [r.score for r in finished.results] == list(totals)
    assert [r.rank for r in finished.results] == [
        1 + sum(other < total for other in totals) for total in totals
    ]
    assert list(final.winners) == [i for i, t in enumerate(totals) if t == min(totals)]
