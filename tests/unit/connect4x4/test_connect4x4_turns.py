"""Turns pass in seat order from the configured first seat; out-of-turn moves are refused."""

from collections.abc import Sequence

import pytest

from parlor.core.errors import InvalidArgument, PermissionDenied, RuleViolation
from parlor.rules.connect4x4 import (
    CheckerDropped,
    Config,
    CreateGame,
    DropBlocker,
    DropChecker,
    GameCreated,
    GameWon,
    Position,
    Resign,
    Side,
    decide,
    initial_state,
    play,
)


def _seats(events: Sequence[object]) -> list[int]:
    return [e.seat for e in events if isinstance(e, CheckerDropped)]


def test_game_created_by_the_first_command() -> None:
    config = Config(players=3, first_seat=1)
    assert decide(initial_state(), CreateGame(config)) == [GameCreated(config)]


def test_first_seat_is_zero_by_default() -> None:
    state, _ = play("")
    assert state.turn == 0


def test_turns_pass_in_seat_order_from_the_first_seat() -> None:
    state, events = play("af bf cf df ef", Config(players=3, first_seat=2))
    assert _seats(events) == [2, 0, 1, 2, 0]
    assert state.turn == 1


def test_not_your_turn_is_refused() -> None:
    state, _ = play("af")
    with pytest.raises(PermissionDenied) as refused:
        decide(state, DropChecker(0, 1, Side.FRONT))
    assert refused.value.reason == "NOT_YOUR_TURN"
    with pytest.raises(PermissionDenied):
        decide(state, DropBlocker(0, 1))


def test_three_player_game_plays_to_a_win() -> None:
    # Red a0-d0 across both sides; Yellow and Green play elsewhere.
    _state, events = play("af gf gb bb ef eb cf fb fb db", Config(players=3))
    assert _seats(events) == [0, 1, 2, 0, 1, 2, 0, 1, 2, 0]
    assert events[-1] == GameWon(0, tuple(Position(c, 0) for c in range(4)))


def test_four_player_game_plays_to_a_win() -> None:
    # Blue (seat 3) makes d0..d3 on the front while the others scatter.
    moves = "af bf cf df ab bb cb df ef fb gf df ab fb cb df"
    _state, events = play(moves, Config(players=4))
    assert _seats(events) == [0, 1, 2, 3] * 4
    assert events[-1] == GameWon(3, tuple(Position(3, r) for r in range(4)))


def test_game_not_started_refuses_moves() -> None:
    with pytest.raises(RuleViolation) as refused:
        decide(initial_state(), DropChecker(0, 0, Side.FRONT))
    assert refused.value.rule == "GAME_NOT_STARTED"


def test_game_already_created_refuses_a_second_creation() -> None:
    state, _ = play("")
    with pytest.raises(RuleViolation) as refused:
        decide(state, CreateGame(Config()))
    assert refused.value.rule == "GAME_ALREADY_CREATED"


@pytest.mark.parametrize("players", [0, 1, 5])
def test_two_to_four_players(players: int) -> None:
    with pytest.raises(InvalidArgument):
        decide(initial_state(), CreateGame(Config(players=players)))


def test_first_seat_must_be_a_seat_of_the_game() -> None:
    with pytest.raises(InvalidArgument) as refused:
        decide(initial_state(), CreateGame(Config(players=2, first_seat=2)))
    assert refused.value.reason == "INVALID_SEAT"


@pytest.mark.parametrize(
    "command",
    [DropChecker(2, 0, Side.FRONT), DropChecker(-1, 0, Side.FRONT), DropBlocker(5, 0), Resign(7)],
)
def test_bad_seat_is_invalid_argument(command: object) -> None:
    state, _ = play("")
    with pytest.raises(InvalidArgument) as refused:
        decide(state, command)  # type: ignore[arg-type]
    assert refused.value.reason == "INVALID_SEAT"


@pytest.mark.parametrize(
    "command", [DropChecker(0, 7, Side.FRONT), DropChecker(0, -1, Side.BACK), DropBlocker(0, 9)]
)
def test_bad_column_is_invalid_argument(command: object) -> None:
    state, _ = play("")
    with pytest.raises(InvalidArgument) as refused:
        decide(state, command)  # type: ignore[arg-type]
    assert refused.value.reason == "INVALID_COLUMN"


def test_bad_side_is_invalid_argument() -> None:
    state, _ = play("")
    with pytest.raises(InvalidArgument) as refused:
        decide(state, DropChecker(0, 0, "front"))  # type: ignore[arg-type]
    assert refused.value.reason == "INVALID_SIDE"


@pytest.mark.parametrize(
    "config",
    [Config(players=1), Config(players=5), Config(blockers_count_toward_lines=1)],  # type: ignore[arg-type]
    ids=["1", "5", "blockers flag"],
)
def test_a_config_the_rules_cannot_play_is_invalid_config(config: Config) -> None:
    with pytest.raises(InvalidArgument) as refused:
        decide(initial_state(), CreateGame(config))
    assert refused.value.reason == "INVALID_CONFIG"


def test_a_command_the_rules_do_not_know_is_invalid_command() -> None:
    state, _ = play("")
    with pytest.raises(InvalidArgument) as refused:
        decide(state, object())  # type: ignore[arg-type]
    assert refused.value.reason == "INVALID_COMMAND"
