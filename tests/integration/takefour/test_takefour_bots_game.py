"""Bots play a whole Take Four game over the service; its events replay to the same result."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import grpc
import pytest
from kits.takefour import tile_set

from parlor.common.v1 import common_pb2
from parlor.core.decider import replay
from parlor.eventstore import PostgresEventStore
from parlor.kit import client
from parlor.kit.status import reason_of
from parlor.services.takefour.game import Codec, event_of, game_pb, rules, tiles_pb
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
                game_id=game_id,
                seats=bot_seats,
                # a target no round reaches, so the game plays every round
                config=pb.Config(max_rounds=rounds, target=1_000_000),
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


async def test_a_bot_plays_beside_a_human_without_holding_the_round_up(takefour: Any) -> None:
    """The bot plays on its own while the human places tiles and calls Done."""
    game_id = uuid.uuid4().hex
    # Every hand of A and M makes words (AA, AM, MA, MM): with C A T S D O G E, a deal that
    # gave Ada every vowel left the bot nothing to build, and it rightly waited.
    tiles = tiles_pb(tile_set("A4 M4"))
    async with takefour.channel("ada") as a_ch:
        ada = pb_grpc.TakeFourServiceStub(a_ch)
        created = await ada.CreateGame(
            pb.CreateGameRequest(
                game_id=game_id,
                seats=[common_pb2.Seat(player_id="ada"), common_pb2.Seat(player_id="bot:easy")],
                config=pb.Config(tiles=tiles, max_rounds=1),
            )
        )
        hand = [t.id for t in created.game.seats[0].hand]
        refusals: list[str | None] = []
        for x, tile in enumerate(hand):
            try:
                await ada.PlaceTile(
                    pb.PlaceTileRequest(game_id=game_id, tile=tile, x=x, y=0, command_id=f"a{x}")
                )
            except grpc.aio.AioRpcError as error:  # the bot may finish the round first
                refusals.append(reason_of(error))
                break

        async def seen() -> pb.Game:
            return (await ada.GetGame(pb.GetGameRequest(game_id=game_id))).game

        game = await seen()
        for _ in range(600):  # the bot builds its own grid (slowly on a loaded machine)
            if game.seats[1].on_grid or game.phase == pb.PHASE_OVER:
                break
            await asyncio.sleep(0.1)
            game = await seen()
        (component,) = [c for c in takefour.server.components if c.name == "takefour"]
        runner = component.extra["bots"]
        assert game.seats[1].on_grid or game.phase == pb.PHASE_OVER, (
            f"the bot runner tracks {len(runner.games)} games, {runner.steps} steps so far",
            game_id in runner.games,
        )
        try:
            await ada.CallDone(pb.CallDoneRequest(game_id=game_id, command_id="done"))
        except grpc.aio.AioRpcError as error:  # the bot may call Done first
            refusals.append(reason_of(error))
        assert set(refusals) <= {"ROUND_NOT_IN_PLAY", "GAME_OVER"}
        final = await seen()
        assert final.phase == pb.PHASE_OVER
        assert final.seats[1].on_grid > 0, "the bot built a grid of its own"
