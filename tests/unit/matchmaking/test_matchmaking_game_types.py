"""Matchmaking's game types from the registry: the listing, bot levels and time controls."""

from __future__ import annotations

import secrets
from dataclasses import replace
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest

from parlor.common.v1 import common_pb2
from parlor.core.errors import InvalidArgument
from parlor.gamehost.pipeline.games import games
from parlor.gametypes.timecontrol import TimeControl
from parlor.matching import Match
from parlor.matchmaking.v1 import matchmaking_pb2 as pb
from parlor.services.matchmaking.board import TicketBoard
from parlor.services.matchmaking.games import (
    GAME_TYPES,
    bot_level,
    bot_levels,
    bot_player,
    time_control_from_json,
    time_control_json,
    time_control_of,
)
from parlor.services.matchmaking.rounds import match_formed, seat_match
from parlor.services.matchmaking.servicer import MatchmakingServicer

UNSPECIFIED = common_pb2.TimeControl()


def servicer(game_types: tuple[str, ...] = tuple(GAME_TYPES)) -> MatchmakingServicer:
    # ListGameTypes reads only the registry: no tickets or lobbies are touched.
    return MatchmakingServicer(None, None, game_types, TicketBoard(None))  # type: ignore[arg-type]


async def test_list_game_types_reads_every_declaration() -> None:
    listed = await servicer().ListGameTypes(pb.ListGameTypesRequest(), None)
    registry = games()
    assert [g.name for g in listed.game_types] == sorted(registry)
    assert {"connect4x4", "takefour", "upwords"} <= set(registry)
    for info in listed.game_types:
        game = registry[info.name]
        assert (info.min_players, info.max_players) == (game.min_seats, game.max_seats)
        assert list(info.bot_levels) == list(dict.fromkeys(game.bots))
        assert TimeControl.from_proto(info.default_time_control) == game.default_time_control
        assert info.default_time_control.kind != common_pb2.TimeControl.KIND_UNSPECIFIED
        assert [TimeControl.from_proto(c) for c in info.time_controls] == list(game.time_controls)
        assert info.service == game.service


async def test_list_game_types_names_the_games_and_their_bots() -> None:
    listed = await servicer().ListGameTypes(pb.ListGameTypesRequest(), None)
    by_name: dict[str, Any] = {g.name: g for g in listed.game_types}
    c4 = by_name["connect4x4"]
    assert (c4.min_players, c4.max_players) == (2, 4)
    assert list(c4.bot_levels) == ["random", "greedy", "strong"]
    assert c4.service == "parlor.connect4x4.v1.Connect4x4Service"
    assert list(by_name["upwords"].bot_levels) == ["random", "best"]  # each name once
    assert (by_name["takefour"].min_players, by_name["takefour"].max_players) == (2, 8)
    assert list(by_name["takefour"].bot_levels) == ["easy", "medium", "hard"]


async def test_list_game_types_lists_only_the_game_types_offered() -> None:
    listed = await servicer(("upwords",)).ListGameTypes(pb.ListGameTypesRequest(), None)
    assert [g.name for g in listed.game_types] == ["upwords"]


def test_a_bot_level_is_a_name_of_the_games_bots() -> None:
    c4 = GAME_TYPES["connect4x4"]
    assert [bot_level(c4, n) for n in ("random", "greedy", "strong")] == [1, 2, 3]
    assert bot_level(c4, "bot:strong") == 3
    assert bot_level(c4, "") is None
    assert bot_level(GAME_TYPES["upwords"], "best") == 2
    assert bot_levels(GAME_TYPES["upwords"]) == ("random", "best")


@pytest.mark.parametrize(("game", "name"), [("connect4x4", "hard"), ("takefour", "strong")])
def test_an_unknown_bot_level_is_refused_naming_the_known_ones(game: str, name: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        bot_level(GAME_TYPES[game], name)
    assert refused.value.reason == "UNKNOWN_BOT_LEVEL"
    for known in bot_levels(GAME_TYPES[game]):
        assert known in str(refused.value)


def test_a_named_level_seats_that_bot() -> None:
    for name, game in GAME_TYPES.items():
        for level in bot_levels(game):
            assert bot_player(f"bot:{bot_level(game, level)}", name) == f"bot:{level}"


def test_no_time_control_named_is_the_games_default() -> None:
    for game in GAME_TYPES.values():
        assert time_control_of(game, UNSPECIFIED) == game.default_time_control
    long = TimeControl.fischer(1200, 10)
    assert time_control_of(GAME_TYPES["upwords"], long.to_proto()) == long


def test_every_offered_time_control_the_default_and_none_are_accepted() -> None:
    for game in GAME_TYPES.values():
        assert game.timed
        for control in (*game.time_controls, game.default_time_control, TimeControl.none()):
            assert time_control_of(game, control.to_proto()) == control
        assert set(game.accepted_time_controls) == {
            *game.time_controls,
            game.default_time_control,
            TimeControl.none(),
        }


@pytest.mark.parametrize(
    ("game", "control"),
    [
        ("connect4x4", TimeControl.per_move(45)),
        ("connect4x4", TimeControl.fischer(600, 5)),  # Upwords', not Connect 4x4's
        ("upwords", TimeControl.fischer(300, 3)),
        ("takefour", TimeControl.per_move(1)),
        ("takefour", TimeControl.correspondence(days=14)),
    ],
)
def test_a_valid_time_control_the_game_does_not_offer_is_refused_naming_those_it_does(
    game: str, control: TimeControl
) -> None:
    with pytest.raises(InvalidArgument) as refused:
        time_control_of(GAME_TYPES[game], control.to_proto())
    assert refused.value.reason == "INVALID_TIME_CONTROL"
    assert control.label() in str(refused.value)
    labels = [c.label() for c in GAME_TYPES[game].accepted_time_controls]
    assert refused.value.metadata == {"game_type": game, "time_controls": ", ".join(labels)}
    for label in labels:
        assert label in str(refused.value)


def untimed_game() -> Any:
    """A game declared without clocks (as the tic-tac-toe example: no ``timing``)."""
    c4 = GAME_TYPES["connect4x4"]
    engine = SimpleNamespace(name="untimed", min_seats=2, max_seats=2, decider=c4.engine.decider)
    return replace(
        c4, engine=engine, timing=None, default_time_control=TimeControl(), time_controls=()
    )


def test_a_game_without_clocks_takes_only_none() -> None:
    game = untimed_game()
    assert not game.timed
    assert time_control_of(game, UNSPECIFIED) == TimeControl.none()
    assert time_control_of(game, TimeControl.none().to_proto()) == TimeControl.none()
    for control in (TimeControl.per_move(30), TimeControl.fischer(300, 3)):
        with pytest.raises(InvalidArgument) as refused:
            time_control_of(game, control.to_proto())
        assert refused.value.reason == "INVALID_TIME_CONTROL"
        assert "untimed has no clocks" in str(refused.value)
        assert refused.value.metadata["time_controls"] == "none"


def test_every_declared_default_is_accepted_and_an_untimed_game_offers_no_clock() -> None:
    for game in games().values():
        assert game.default_time_control in game.accepted_time_controls
        if not game.timed:
            assert not game.default_time_control.timed
            assert not game.time_controls


def test_a_malformed_time_control_is_refused() -> None:
    bad = common_pb2.TimeControl(kind=common_pb2.TimeControl.KIND_FISCHER, initial_seconds=0)
    with pytest.raises(InvalidArgument) as refused:
        time_control_of(GAME_TYPES["connect4x4"], bad)
    assert refused.value.reason == "INVALID_TIME_CONTROL"


@pytest.mark.parametrize(
    "control",
    [
        TimeControl.none(),
        TimeControl.per_move(30),
        TimeControl.fischer(300, 3),
        TimeControl.correspondence(2),
    ],
)
def test_a_stored_time_control_reads_back_equal(control: TimeControl) -> None:
    assert time_control_from_json(time_control_json(control), "connect4x4") == control


def test_a_row_from_before_time_controls_gets_the_games_default() -> None:
    default = GAME_TYPES["takefour"].default_time_control
    assert time_control_from_json(None, "takefour") == default


def test_match_formed_carries_the_matchs_time_control() -> None:
    blitz = TimeControl.fischer(180, 2)
    match = Match("connect4x4", ("ann", "bot:1"), ("t1",), 1500.0, time_control=blitz)
    formed = seat_match(match, {"t1": "Ann"}, secrets.SystemRandom(), "m1")
    event = match_formed(formed, datetime(2026, 12, 1, tzinfo=UTC))
    assert TimeControl.from_proto(event.time_control) == blitz
    assert event.time_control.kind == common_pb2.TimeControl.KIND_FISCHER
    assert sorted(s.player_id for s in event.seats) == ["ann", "bot:random"]
