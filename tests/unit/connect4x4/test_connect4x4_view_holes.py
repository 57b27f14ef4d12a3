"""The view's holes, built in one pass over the bitboards, are each hole as the rules say."""

from __future__ import annotations

import random

from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.core.decider import replay
from parlor.gamehost.seating import OpenTable, Seat
from parlor.rules import connect4x4 as c4
from parlor.rules.connect4x4.board import bit
from parlor.services.connect4x4.codec import CONTENT, game_pb
from parlor.services.connect4x4.component import rules


def reference(state: c4.State, column: int, row: int, side: c4.Side) -> c4.Hole:
    """A hole as the view first built it: seat by seat, checker then blocker, then dead."""
    b = bit(column, row)
    for seat in range(state.players):
        if state.checkers(seat, side) & b:
            return c4.Hole(c4.Content.CHECKER, seat)
        if state.blockers[seat] & b:
            return c4.Hole(c4.Content.BLOCKER, seat)
    if state.dead(side) & b:
        return c4.Hole(c4.Content.DEAD)
    return c4.Hole(c4.Content.EMPTY)


def test_every_hole_of_random_games_matches_the_reference_in_view_and_message() -> None:
    decider = rules()
    for seed in range(40):
        rng = random.Random(seed)
        players = rng.choice([2, 3, 4])
        seats = tuple(Seat(f"p{i}") for i in range(players))
        table = decider.initial_state()
        create = OpenTable(seats, c4.CreateGame(c4.Config(players=players)))
        table = replay(decider, decider.decide(table, create), table)
        while True:
            game = table.game
            seen = c4.view(game)
            message = game_pb("g", 1, table, None)
            for side, holes, field in (
                (c4.Side.FRONT, seen.front, message.front),
                (c4.Side.BACK, seen.back, message.back),
            ):
                expected = [reference(game, c, r, side) for c in range(7) for r in range(6)]
                assert [h for column in holes for h in column] == expected
                assert list(field) == [
                    pb.Hole(content=CONTENT[h.content], seat=h.seat or 0) for h in expected
                ]
            if game.status is not c4.Status.IN_PROGRESS:
                break
            move = c4.parse_move(rng.choice(seen.legal_moves), game.turn)
            table = replay(decider, decider.decide(table, move), table)
