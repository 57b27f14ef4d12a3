"""Load: 8 players act as fast as they can on one game for 10 s; nothing is lost or doubled.

The tile set is small (42 tiles for 8 players: a start deal, a last deal of one
each), so rounds are scored and new ones dealt many times within the 10 s. Then
the stored events, replayed, give exactly the game the service reports to every
viewer, and every acknowledged command's events are in the store exactly once
(refused commands not at all).
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections import defaultdict
from typing import Any

import grpc
import pytest
from kits.takefour import tile_set
from takefour_actions import next_action, stored_game

from parlor.common.v1 import common_pb2
from parlor.services.takefour.game import game_pb, tiles_pb
from parlor.takefour.v1 import takefour_pb2 as pb
from parlor.takefour.v1 import takefour_pb2_grpc as pb_grpc

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PLAYERS = [f"p{i}" for i in range(8)]
SECONDS = 10.0
TILES = tile_set("A8 E8 I4 O4 S4 T4 R4 N4", jokers=2)


async def test_eight_players_at_full_speed_lose_and_double_nothing(
    takefour: Any, database_url: str
) -> None:
    game_id = uuid.uuid4().hex
    acked: dict[str, list[int]] = {}
    refused: list[str] = []
    codes: dict[str, int] = defaultdict(int)
    views: dict[str, pb.Game] = {}

    async def player(seat: int, channel: Any, start: pb.Game) -> None:
        stub = pb_grpc.TakeFourServiceStub(channel)
        rng = random.Random(seat)
        game = start
        n = 0
        deadline = time.monotonic() + SECONDS
        while time.monotonic() < deadline and game.phase != pb.PHASE_OVER:
            n += 1
            cid = f"{PLAYERS[seat]}-{n}"
            try:
                response = await next_action(stub, game, seat, rng, cid)
            except grpc.aio.AioRpcError as error:
                codes[error.code().name] += 1
                refused.append(cid)
                game = (await stub.GetGame(pb.GetGameRequest(game_id=game_id))).game
                continue
            codes["OK"] += 1
            game = response.game
            if hasattr(response, "events"):
                acked[cid] = [e.info.version for e in response.events]
        views[PLAYERS[seat]] = game

    channels = [takefour.channel(p) for p in PLAYERS]
    try:
        async with takefour.service_channel() as s_ch:  # the players agreed elsewhere
            created = await pb_grpc.TakeFourServiceStub(s_ch).CreateGame(
                pb.CreateGameRequest(
                    game_id=game_id,
                    seats=[common_pb2.Seat(player_id=p) for p in PLAYERS],
                    config=pb.Config(tiles=tiles_pb(TILES), target=100_000, max_rounds=1_000),
                    # untimed: the pictures compared below are the codec's, without clocks
                    time_control=common_pb2.TimeControl(kind=common_pb2.TimeControl.KIND_NONE),
                )
            )
        starts = [
            (await pb_grpc.TakeFourServiceStub(ch).GetGame(pb.GetGameRequest(game_id=game_id))).game
            for ch in channels
        ]
        assert created.game.phase == pb.PHASE_PLAYING
        await asyncio.gather(*(player(i, ch, starts[i]) for i, ch in enumerate(channels)))

        # What the service reports now, to each player and to a spectator.
        reported = {
            p: (
                await pb_grpc.TakeFourServiceStub(ch).GetGame(pb.GetGameRequest(game_id=game_id))
            ).game
            for p, ch in zip(PLAYERS, channels, strict=True)
        }
        async with takefour.channel("spectator") as s_ch:
            spectator = (
                await pb_grpc.TakeFourServiceStub(s_ch).GetGame(pb.GetGameRequest(game_id=game_id))
            ).game
    finally:
        for ch in channels:
            await ch.close()

    stored, table = await stored_game(database_url, game_id)
    version = stored[-1].version

    # The replayed events give exactly the game the service reports, for every viewer.
    for seat, p in enumerate(PLAYERS):
        assert reported[p] == game_pb(game_id, version, table, seat)
    assert spectator == game_pb(game_id, version, table, None)

    # Every acknowledged command's events are stored exactly once, under its command id.
    by_command: dict[str, list[int]] = defaultdict(list)
    for record in stored:
        by_command[record.metadata.command_id or ""].append(record.version)
    for cid, versions in acked.items():
        own = by_command.get(cid, [])
        assert own, f"acknowledged command {cid} has no stored events"
        assert own == sorted(set(own))
        rest = set(versions) - set(own)
        assert set(own) <= set(versions), cid
        assert all(
            (stored[v - 1].metadata.command_id or "").startswith("parlor:round-") for v in rest
        ), cid
    for cid in refused:
        assert cid not in by_command, f"refused command {cid} was stored"
    played = [c for c in by_command if c.startswith("p") and not c.startswith("parlor:")]
    assert sorted(played) == sorted(c for c in acked if by_command.get(c))
    rounds = table.game.round

    extra = next(c for c in takefour.server.components if c.name == "takefour").extra
    store_counts = extra["store"]
    print(
        f"\nload: {sum(codes.values())} calls in {SECONDS:.0f} s by 8 players ({dict(codes)}), "
        f"{len(stored)} events, {rounds} rounds, {store_counts.appends} appends, "
        f"{store_counts.conflicts} conflicts retried"
    )
    assert table.game.results, "at least one round was scored (and the next one dealt)"
    assert acked
