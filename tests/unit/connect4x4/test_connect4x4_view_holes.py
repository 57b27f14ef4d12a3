"""The view's holes, built in one pass over the bitboards, are each hole as the rules say;
its legal moves and board rows, from kept drops and columns, are as first written."""

from __future__ import annotations

import random
from collections.abc import Iterator

from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.core.decider import replay
from parlor.gamehost.table.seating import OpenTable, Table
from parlor.gametypes.seats import Seat
from parlor.rules import connect4x4 as c4
from parlor.rules.connect4x4.board import bit
from parlor.services.connect4x4.game import game_pb, rules

CONTENT = {
    c4.Content.EMPTY: pb.CONTENT_EMPTY,
    c4.Content.CHECKER: pb.CONTENT_CHECKER,
    c4.Content.BLOCKER: pb.CONTENT_BLOCKER,
    c4.Content.DEAD: pb.CONTENT_DEAD,
}


def random_games(first_seed: int, games: int = 40) -> Iterator[Table[c4.State]]:
    """Every table of ``games`` random 2-4 player games (seeds from ``first_seed``), each
    move a random legal one."""
    decider = rules()
    for seed in range(first_seed, first_seed + games):
        rng = random.Random(seed)
        players = rng.choice([2, 3, 4])
        seats = tuple(Seat(f"p{i}") for i in range(players))
        table = decider.initial_state()
        create = OpenTable(seats, c4.CreateGame(c4.Config(players=players)))
        table = replay(decider, decider.decide(table, create), table)
        while True:
            yield table
            game = table.game
            if game.status is not c4.Status.IN_PROGRESS:
                break
            move = c4.parse_move(rng.choice(c4.view(game).legal_moves), game.turn)
            table = replay(decider, decider.decide(table, move), table)


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
    for table in random_games(0):
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


SYMBOL = {c4.Content.BLOCKER: "#", c4.Content.DEAD: "~", c4.Content.EMPTY: "."}


def reference_legal(state: c4.State) -> list[c4.Move]:
    """The legal drops as the rules first listed them, one new move after another."""
    if state.status is not c4.Status.IN_PROGRESS:
        return []
    seat = state.turn
    moves: list[c4.Move] = []
    if state.checkers_left[seat]:
        for column in range(7):
            for side in (c4.Side.FRONT, c4.Side.BACK):
                if state.height(column, side) < 6:
                    moves.append(c4.DropChecker(seat, column, side))
    if state.blockers_left[seat]:
        for column in range(7):
            if state.blocker_row(column) < 6:
                moves.append(c4.DropBlocker(seat, column))
    return moves


def test_legal_moves_and_board_rows_of_random_games_match_the_reference() -> None:
    for table in random_games(1000):
        game = table.game
        seen = c4.view(game)
        legal = reference_legal(game)
        assert c4.legal_moves(game) == legal
        assert list(seen.legal_moves) == [c4.format_move(m) for m in legal]
        rows = c4.render(game, seen).splitlines()[1:7]
        for line, row in zip(rows, reversed(range(6)), strict=True):
            sides = [
                " ".join(
                    "RYGB"[h.seat]
                    if h.content is c4.Content.CHECKER and h.seat is not None
                    else SYMBOL[h.content]
                    for h in (reference(game, c, row, side) for c in range(7))
                )
                for side in (c4.Side.FRONT, c4.Side.BACK)
            ]
            assert line == f"{row} |{sides[0]}|   |{sides[1]}|"
