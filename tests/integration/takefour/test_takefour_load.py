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

from parlor.common.v1 import common_pb2
from parlor.core.decider import replay
from parlor.eventstore import PostgresEventStore
from parlor.rules.takefour.testing import check_invariants, tile_set
from parlor.services.takefour.codec import Codec, game_pb, tiles_pb
from parlor.services.takefour.component import rules
from parlor.takefour.v1 import takefour_pb2 as pb
from parlor.takefour.v1 import takefour_pb2_grpc as pb_grpc

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PLAYERS = [f"p{i}" for i in range(8)]
SECONDS = 10.0
TILES = tile_set("A8 E8 I4 O4 S4 T4 R4 N4", jokers=2)


def free_cells(game: pb.Game, seat: int) -> list[tuple[int, int]]:
    taken = {(g.x, g.y) for g in game.seats[seat].grid}
    if not taken:
        return [(0, 0)]
    return sorted(
        {
            (x + dx, y + dy)
            for x, y in taken
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
            if (x + dx, y + dy) not in taken
        }
    )


def next_action(stub: Any, game: pb.Game, seat: int, rng: random.Random, cid: str) -> Any:
    """A plausible action from the player's own (possibly stale) picture of the game."""
    me = game.seats[seat]
    grid = list(me.grid)
    roll = rng.random()
    if grid and roll < 0.08:
        cell = rng.choice(grid)
        return stub.TakeBackTile(
            pb.TakeBackTileRequest(
                game_id=game.game_id, command_id=cid, cell=pb.Cell(x=cell.x, y=cell.y)
            )
        )
    if grid and roll < 0.14:
        cell = rng.choice(grid)
        to = rng.choice(free_cells(game, seat))
        request = pb.MoveTileRequest(game_id=game.game_id, command_id=cid, letter="")
        getattr(request, "from").CopyFrom(pb.Cell(x=cell.x, y=cell.y))
        request.to.CopyFrom(pb.Cell(x=to[0], y=to[1]))
        return stub.MoveTile(request)
    if game.bag_count and roll < 0.18:
        if me.agrees_to_deal:
            return stub.WithdrawAgreement(
                pb.WithdrawAgreementRequest(game_id=game.game_id, command_id=cid)
            )
        return stub.AgreeToDeal(pb.AgreeToDealRequest(game_id=game.game_id, command_id=cid))
    if me.hand:
        tile = rng.choice(list(me.hand))
        x, y = rng.choice(free_cells(game, seat))
        letter = rng.choice("AEST") if tile.face == "?" else ""
        return stub.PlaceTile(
            pb.PlaceTileRequest(
                game_id=game.game_id, command_id=cid, tile=tile.id, x=x, y=y, letter=letter
            )
        )
    if grid and game.bag_count:
        return stub.CallTakeFour(pb.CallTakeFourRequest(game_id=game.game_id, command_id=cid))
    if grid:
        return stub.CallDone(pb.CallDoneRequest(game_id=game.game_id, command_id=cid))
    return stub.GetGame(pb.GetGameRequest(game_id=game.game_id))


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
        first = pb_grpc.TakeFourServiceStub(channels[0])
        created = await first.CreateGame(
            pb.CreateGameRequest(
                game_id=game_id,
                seats=[common_pb2.Seat(player_id=p) for p in PLAYERS],
                config=pb.Config(tiles=tiles_pb(TILES), target=100_000),
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

    store = PostgresEventStore(database_url)
    try:
        stored = await store.read_stream(f"takefour-{game_id}")
    finally:
        await store.close()
    codec = Codec()
    table = replay(rules(), [codec.decode(r.type, r.data) for r in stored])
    check_invariants(table.game)
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
