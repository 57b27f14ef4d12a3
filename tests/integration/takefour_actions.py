"""Take Four for load and fault tests: a plausible action from a player's picture of the
game, and the stored game replayed (its invariants checked)."""

from __future__ import annotations

import random
from typing import Any

from kits.takefour import check_invariants

from parlor.common.v1 import common_pb2
from parlor.core.decider import replay
from parlor.eventstore import PostgresEventStore, RecordedEvent
from parlor.services.takefour.game import Codec, rules
from parlor.takefour.v1 import takefour_pb2 as pb
from parlor.takefour.v1 import takefour_pb2_grpc as pb_grpc


async def stored_game(database_url: str, game_id: str) -> tuple[list[RecordedEvent], Any]:
    """The game's stored events and the table they replay to (invariants checked)."""
    store = PostgresEventStore(database_url)
    try:
        stored = await store.read_stream(f"takefour-{game_id}")
    finally:
        await store.close()
    codec = Codec()
    table = replay(rules(), [codec.decode(r.type, r.data) for r in stored])
    check_invariants(table.game)
    return stored, table


async def game_of_ada_and_bob(platform: Any, game_id: str, config: pb.Config) -> None:
    """A game of two people, Ada (seat 0) and Bob: made by a service, as if they had agreed."""
    async with platform.service_channel() as channel:
        await pb_grpc.TakeFourServiceStub(channel).CreateGame(
            pb.CreateGameRequest(
                game_id=game_id,
                seats=[
                    common_pb2.Seat(player_id="ada", display_name="Ada"),
                    common_pb2.Seat(player_id="bob", display_name="Bob"),
                ],
                config=config,
            )
        )


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
