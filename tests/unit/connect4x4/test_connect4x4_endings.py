"""How games end: a line, a tie, resignation; and players with no legal move are skipped."""

from dataclasses import replace

import pytest

from parlor.core.errors import RuleViolation
from parlor.rules.connect4x4 import (
    CheckerDropped,
    Config,
    DropBlocker,
    DropChecker,
    Ending,
    GameTied,
    GameWon,
    PlayerResigned,
    PlayerSkipped,
    PlayerTimedOut,
    Resign,
    Side,
    Status,
    TimeOut,
    decide,
    evolve,
    is_terminal,
    play,
    result,
)
from parlor.rules.connect4x4.standings import standings

# Found by line-avoiding random play, kept as golden games.
ALL_CHECKERS_GAME = (
    "gb df gf df af cf ef db df gf gb cf db cb eb bb ef bb cf cf gf bb ff db eb cb cb cf ab ff "
    "eb cf ef fb"
)
NO_LEGAL_MOVES_GAME = (
    "gb cx eb fb df eb bb ef dx fx eb bf ff db fb fx df ef cx dx bf fb gx af ff bb fb cb bf bb "
    "eb bb cf gb ef db ff ef db ab gf ab eb cb gf bb gb eb gf af gb df cb bb bf cf bf cb df cf "
    "cf ab af af ax ef gb bf ef af ab gf"
)
SKIP_GAME = (
    "gb af bx gx ab ff fb cf gf ef eb cf db fx ex cf eb db cb bx bf ff eb bf gb ab ef cb bf bf "
    "bb ef gf cb ab ab db cx ef ef ff cf gf ff cf db fb df gb cb bb ff db eb cb af af eb fb df "
    "gb gf db bb df gb ab fb ax df fb bb df df"
)


def test_tie_when_every_player_has_used_all_checkers() -> None:
    state, events = play(ALL_CHECKERS_GAME)
    assert events[-1] == GameTied("ALL_CHECKERS_USED")
    assert state.checkers_left == (0, 0)
    assert result(state) == Ending(None, "ALL_CHECKERS_USED")
    outcome = result(state)
    assert outcome is not None
    assert outcome.tie


def test_all_checkers_tie_ends_the_game_even_with_blockers_left() -> None:
    state, _ = play(ALL_CHECKERS_GAME)
    assert state.blockers_left == (2, 2)
    assert is_terminal(state)
    with pytest.raises(RuleViolation) as refused:
        decide(state, DropBlocker(state.turn, 0))
    assert refused.value.rule == "GAME_OVER"


def test_line_by_the_last_checker_is_a_win_not_a_tie() -> None:
    last_but_one = ALL_CHECKERS_GAME.rsplit(" ", 1)[0]
    state, events = play(last_but_one + " af")
    assert state.checkers_left == (0, 0)
    assert isinstance(events[-1], GameWon)
    assert events[-1].seat == 1
    assert not any(isinstance(e, GameTied) for e in events)
    assert state.status is Status.WON


def test_tie_when_no_player_has_a_legal_move() -> None:
    state, events = play(NO_LEGAL_MOVES_GAME, Config(players=4))
    assert events[-1] == GameTied("NO_LEGAL_MOVES")
    assert any(state.checkers_left)  # checkers remain, but there is nowhere to put them
    assert not any(state.can_move(seat) for seat in range(4))


def test_player_with_no_legal_move_is_skipped() -> None:
    moves = SKIP_GAME.split()
    before, _ = play(moves[:71], Config(players=4))
    assert before.turn == 3
    assert before.checkers_left[0] == 0
    assert before.blockers_left[0] == 1  # only a blocker, and every column has a full side
    state, events = play(moves[:72], Config(players=4))
    assert events[-2] == CheckerDropped(3, 1, Side.BACK, 5)
    assert events[-1] == PlayerSkipped(0, "NO_OPEN_CELL")
    assert state.turn == 1
    assert state.status is Status.IN_PROGRESS


def test_player_with_no_pieces_left_is_skipped() -> None:
    state, _ = play("af", Config(players=3))
    state = replace(state, checkers_left=(16, 17, 0), blockers_left=(2, 2, 0))
    events = decide(state, DropChecker(1, 1, Side.FRONT))
    assert events[-1] == PlayerSkipped(2, "NO_PIECES_LEFT")
    after = state
    for event in events:
        after = evolve(after, event)
    assert after.turn == 0


def test_resign_with_two_players_the_opponent_wins() -> None:
    state, _ = play("af")
    events = decide(state, Resign(0))  # a player may resign out of turn
    assert events == [PlayerResigned(0), GameWon(1, (), "RESIGNATION")]


def test_resign_with_three_players_the_resigner_is_skipped_from_then_on() -> None:
    state, events = play("af", Config(players=3))
    events = decide(state, Resign(1))  # Yellow resigns on its own turn
    assert events == [PlayerResigned(1)]
    state = evolve(state, events[0])
    assert state.turn == 2
    assert [state.departure(seat) for seat in range(3)] == ["", "RESIGNED", ""]
    for command in (DropChecker(1, 0, Side.FRONT), Resign(1), TimeOut(1)):
        with pytest.raises(RuleViolation) as refused:
            decide(state, command)
        assert refused.value.rule == "PLAYER_RESIGNED"
    for event in decide(state, DropChecker(2, 0, Side.FRONT)):
        state = evolve(state, event)
    assert state.turn == 0  # seat 1 is passed over


def test_last_active_player_wins_when_the_others_resign() -> None:
    state, _ = play("af bf cf", Config(players=4))
    for seat in (0, 2):
        for event in decide(state, Resign(seat)):
            state = evolve(state, event)
    assert state.status is Status.IN_PROGRESS
    events = decide(state, Resign(3))
    assert events == [PlayerResigned(3), GameWon(1, (), "RESIGNATION")]


def test_resigned_player_may_not_resign_again() -> None:
    state, _ = play("af", Config(players=3))
    for event in decide(state, Resign(2)):
        state = evolve(state, event)
    with pytest.raises(RuleViolation) as refused:
        decide(state, Resign(2))
    assert refused.value.rule == "PLAYER_RESIGNED"


def test_game_over_refuses_every_command() -> None:
    state, _ = play("af gf bb gb cf gf db")
    for command in (DropChecker(1, 0, Side.FRONT), DropBlocker(1, 0), Resign(1)):
        with pytest.raises(RuleViolation) as refused:
            decide(state, command)
        assert refused.value.rule == "GAME_OVER"


# --- time (docs/rules/connect4x4.md, "Time"): a seat out of time leaves, as a resigner does


def test_a_seat_out_of_time_with_two_players_loses() -> None:
    state, _ = play("af")
    assert decide(state, TimeOut(1)) == [PlayerTimedOut(1), GameWon(0, (), "TIMEOUT")]


def test_a_seat_out_of_time_with_three_players_is_skipped_and_the_game_goes_on() -> None:
    state, _ = play("af", Config(players=3))
    events = decide(state, TimeOut(1))
    assert events == [PlayerTimedOut(1)]
    state = evolve(state, events[0])
    assert (state.turn, state.timed_out) == (2, (False, True, False))
    # Out of time, not resigned: it is told so, whatever it tries (issue 38 item 3).
    assert state.resigned == (False, False, False)
    assert [state.departure(seat) for seat in range(3)] == ["", "TIMED_OUT", ""]
    for command in (DropChecker(1, 0, Side.FRONT), Resign(1), TimeOut(1)):
        with pytest.raises(RuleViolation) as refused:
            decide(state, command)
        assert refused.value.rule == "SEAT_TIMED_OUT"
        assert refused.value.metadata == {"departure": "TIMED_OUT"}
        assert "ran out of time" in str(refused.value)
    for event in decide(state, DropChecker(2, 0, Side.FRONT)):
        state = evolve(state, event)
    assert state.turn == 0
    events = decide(state, TimeOut(0))  # one seat left: it wins on time
    assert events == [PlayerTimedOut(0), GameWon(2, (), "TIMEOUT")]
    assert result(evolve(evolve(state, events[0]), events[1])) == Ending(2, "TIMEOUT")


def test_each_seat_that_left_says_why_in_the_standings() -> None:
    state, _ = play("af", Config(players=3))
    for command in (Resign(2), TimeOut(0)):
        for event in decide(state, command):
            state = evolve(state, event)
    reason, ranked = standings(state)
    assert (reason, [s.rank for s in ranked]) == ("TIMEOUT", [2, 1, 2])
    assert [s.departure for s in ranked] == ["TIMED_OUT", "", "RESIGNED"]
    assert (state.resigned, state.timed_out) == ((False, False, True), (True, False, False))


def test_a_game_over_or_a_seat_gone_takes_no_timeout() -> None:
    state, _ = play("af gf bb gb cf gf db")  # won
    with pytest.raises(RuleViolation) as refused:
        decide(state, TimeOut(1))
    assert refused.value.rule == "GAME_OVER"
    state, _ = play("af", Config(players=3))
    state = evolve(state, decide(state, Resign(2))[0])
    with pytest.raises(RuleViolation) as refused:
        decide(state, TimeOut(2))
    assert refused.value.rule == "PLAYER_RESIGNED"
