"""Bots play whole games over gRPC; the stored events replay to the very same game.

Random and best bots (2 and 3 seats, auto and challenge mode) play to the end
inside CreateGame; then every prefix of the stored stream is folded and checked
(all 100 tiles accounted for, racks of at most 7, stacks of at most 5), the
replayed final state is what GetGame shows, and each bot move was its own
idempotent command.
"""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any

import pytest

from parlor.common.v1 import common_pb2
from parlor.core.decider import replay
from parlor.eventstore import PostgresEventStore
from parlor.gamehost.table.seating import GameFinished, SeatsTaken
from parlor.gametypes.ids import system_command_id
from parlor.rules import upwords as uw
from parlor.services.upwords.game import Codec, game_pb, rules
from parlor.upwords.v1 import upwords_pb2 as pb
from parlor.upwords.v1 import upwords_pb2_grpc as pb_grpc

pytestmark = pytest.mark.integration

GAMES = [
    (("bot:random", "bot:best"), pb.WORD_CHECKING_AUTO),
    (("bot:random", "bot:random", "bot:best"), pb.WORD_CHECKING_AUTO),
    (("bot:best", "bot:random"), pb.WORD_CHECKING_CHALLENGE),
]


def check_invariants(state: uw.UpwordsState) -> None:
    assert uw.tile_counts(state) == Counter(uw.DISTRIBUTION)
    assert all(len(rack) <= 7 for rack in state.racks)
    assert all(len(stack) <= uw.MAX_HEIGHT for stack in state.board.stacks)


@pytest.mark.parametrize(("players", "checking"), GAMES)
async def test_bot_playouts_to_the_end_replay_from_stored_events_to_the_same_game(
    upwords: Any, database_url: str, players: tuple[str, ...], checking: int
) -> None:
    game_id = uuid.uuid4().hex
    async with upwords.service_channel() as ch:
        stub = pb_grpc.UpwordsServiceStub(ch)
        created = await stub.CreateGame(
            pb.CreateGameRequest(
                game_id=game_id,
                seats=[common_pb2.Seat(player_id=p) for p in players],
                config=pb.Config(word_checking=checking),  # type: ignore[arg-type]
            )
        )
        assert created.game.status == pb.STATUS_ENDED
        shown = (await stub.GetGame(pb.GetGameRequest(game_id=game_id))).game
        exported = (await stub.ExportGame(pb.ExportGameRequest(game_id=game_id))).text

    stream = f"upwords-{game_id}"
    store = PostgresEventStore(database_url)
    try:
        records = await store.read_stream(stream)
        codec = Codec()
        events = [codec.decode(r.type, r.data) for r in records]
        assert isinstance(events[0], SeatsTaken)
        assert isinstance(events[-1], GameFinished)
        assert isinstance(events[-2], uw.GameEnded)

        decider = rules()
        table = decider.initial_state()
        for event in events:
            table = decider.evolve(table, event)
            if table.seats and table.game.phase is not uw.Phase.NOT_STARTED:
                check_invariants(table.game)
        assert replay(decider, events) == table
        assert table.game.phase is uw.Phase.ENDED
        assert game_pb(game_id, len(events), table, None, reveal=True) == shown
        plays = [e for e in events if isinstance(e, uw.WordPlayed)]
        assert len(plays) >= 5
        assert f"#end {table.game.end_reason}" in exported

        # Each bot move was its own command "parlor:bot-<version it was decided on>" (the
        # platform's namespace, which no client can send).
        version = 2  # SeatsTaken, GameCreated
        while version < len(events):
            result = await store.command_result(stream, str(system_command_id("bot", version)))
            assert result is not None, f"no bot command after version {version}"
            assert result.first_version == version + 1
            version = result.last_version
        assert {r.metadata.actor for r in records[2:]} <= set(players)
    finally:
        await store.close()
