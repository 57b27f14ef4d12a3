"""The example game's codec, on the generic mapping, writes and reads events as before."""

from __future__ import annotations

import importlib
import random
from collections.abc import Iterator
from typing import Any

import pytest
from kits.codecs import assert_same
from kits.example import tictactoe_on_path

from parlor.core.decider import execute
from parlor.gamehost.table.codec import table_event_of, table_event_pb
from parlor.gamehost.table.seating import GameFinished, SeatsTaken, Standing
from parlor.gametypes.seats import Seat


@pytest.fixture(scope="module")
def modules(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any, Any]]:
    """The example's rules, codec and protobuf module."""
    with tictactoe_on_path(tmp_path_factory.mktemp("tictactoe-codec")):
        yield tuple(  # type: ignore[misc]
            importlib.import_module(f"parlor.{name}")
            for name in (
                "examples.tictactoe.rules",
                "examples.tictactoe.game",
                "tictactoe.v1.tictactoe_pb2",
            )
        )


def old_codec(ttt: Any, pb: Any) -> tuple[Any, Any]:
    """The hand-written ``event_pb`` and ``event_of`` the generic mapping replaced."""

    def event_pb(event: Any) -> Any:
        common = table_event_pb(event, ttt.ENGINE.name)
        if common is not None:
            return common
        match event:
            case ttt.GameCreated():
                return pb.GameCreated()
            case ttt.MarkPlaced(seat, square):
                return pb.MarkPlaced(seat=seat, square=square)
            case ttt.GameWon(seat):
                return pb.GameWon(seat=seat)
            case ttt.GameDrawn():
                return pb.GameDrawn()
        raise TypeError(f"not a tic-tac-toe event: {event!r}")

    def event_of(message: Any) -> Any:
        common = table_event_of(message)
        if common is not None:
            return common
        match message:
            case pb.GameCreated():
                return ttt.GameCreated()
            case pb.MarkPlaced():
                return ttt.MarkPlaced(message.seat, message.square)
            case pb.GameWon():
                return ttt.GameWon(message.seat)
            case pb.GameDrawn():
                return ttt.GameDrawn()
        raise TypeError(f"not a tic-tac-toe event message: {type(message).__name__}")

    return event_pb, event_of


def test_every_event_of_random_games_is_written_and_read_as_before(
    modules: tuple[Any, Any, Any],
) -> None:
    ttt, codec, pb = modules
    old, new = old_codec(ttt, pb), (codec.event_pb, codec.event_of)
    decider = ttt.ENGINE.decider
    seen: set[type] = set()
    for seed in range(30):
        rng = random.Random(seed)
        state, events = execute(decider, decider.initial_state(), ttt.CreateGame())
        while not decider.is_terminal(state):
            seat = ttt.ENGINE.to_move(state)[0]
            move = rng.choice(ttt.ENGINE.legal_moves(state, seat))
            state, more = execute(decider, state, move)
            events += more
        for event in events:
            seen.add(type(event))
            assert_same(event, old, new)
    assert seen == set(ttt.Event.__args__)
    for event in (
        SeatsTaken((Seat("a", "Ada"), Seat("b", "Bo"))),
        GameFinished("LINE", (Standing(1, 0), Standing(2, 0))),
    ):
        assert_same(event, old, new)
