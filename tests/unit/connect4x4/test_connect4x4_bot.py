"""Bots: legal, deterministic for a given rng, and the strong one beats random play."""

import random

import pytest

from parlor.core.errors import InvalidArgument, RuleViolation
from parlor.rules.connect4x4 import (
    Config,
    CreateGame,
    DropBlocker,
    GameWon,
    State,
    decide,
    evolve,
    initial_state,
    is_terminal,
    legal_moves,
    play,
    result,
)
from parlor.rules.connect4x4.bot import Level, choose_move

# Yellow holds a0, b0 and c0 across both sides; d0 is open on both: only a blocker in d stops it.
WEAVING_THREAT = "gf af gb bb eb cf"


def _play_bots(levels: list[Level], first_seat: int, rng: random.Random, budget: int) -> State:
    state = initial_state()
    for event in decide(state, CreateGame(Config(players=len(levels), first_seat=first_seat))):
        state = evolve(state, event)
    while not is_terminal(state):
        move = choose_move(state, levels[state.turn], rng, budget=budget)
        assert move in legal_moves(state)
        for event in decide(state, move):
            state = evolve(state, event)
    return state


@pytest.mark.parametrize("level", [Level.GREEDY, Level.STRONG])
def test_greedy_and_strong_bots_take_a_win_at_once(level: Level) -> None:
    state, _ = play("af gf bb gb cf gf")  # Red wins with df or db
    move = choose_move(state, level, random.Random(0))
    assert any(isinstance(e, GameWon) for e in decide(state, move))


@pytest.mark.parametrize("level", [Level.GREEDY, Level.STRONG])
def test_bot_blocks_a_weaving_threat_with_a_blocker(level: Level) -> None:
    state, _ = play(WEAVING_THREAT)
    assert choose_move(state, level, random.Random(1)) == DropBlocker(0, 3)


@pytest.mark.parametrize("level", list(Level))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_bots_play_legal_moves_to_the_end(level: Level, players: int) -> None:
    state = _play_bots([level] * players, 0, random.Random(players), budget=200)
    assert result(state) is not None


@pytest.mark.parametrize("level", list(Level))
def test_bot_is_deterministic_for_a_given_rng(level: Level) -> None:
    state, _ = play("df db cf", Config(players=3))
    first = choose_move(state, level, random.Random(42), budget=500)
    again = choose_move(state, level, random.Random(42), budget=500)
    assert first == again


def test_bot_accepts_a_level_by_name() -> None:
    state, _ = play("df")
    assert choose_move(state, "greedy", random.Random(0)) in legal_moves(state)
    with pytest.raises(InvalidArgument):
        choose_move(state, "grandmaster", random.Random(0))


def test_bot_refuses_a_finished_game() -> None:
    state, _ = play("af gf bb gb cf gf db")
    with pytest.raises(RuleViolation):
        choose_move(state, Level.STRONG, random.Random(0))


def test_strong_bot_beats_random_bot() -> None:
    rng = random.Random(2026)
    strong_wins = 0
    for game in range(100):
        strong_seat = game % 2
        levels = [Level.RANDOM, Level.RANDOM]
        levels[strong_seat] = Level.STRONG
        # Alternate who starts too, independently of the seat the strong bot holds.
        state = _play_bots(levels, first_seat=(game // 2) % 2, rng=rng, budget=300)
        strong_wins += state.winner == strong_seat
    assert strong_wins >= 95


def test_strong_bot_holds_its_own_in_four_player_games() -> None:
    rng = random.Random(4)
    strong_wins = 0
    for game in range(12):
        levels = [Level.RANDOM] * 4
        levels[game % 4] = Level.STRONG
        state = _play_bots(levels, 0, rng, budget=200)
        strong_wins += state.winner == game % 4
    assert strong_wins >= 9  # a random seat would win about 3 of 12


def test_strong_bot_beats_greedy_bot() -> None:
    rng = random.Random(77)
    strong_wins = 0
    for game in range(20):
        levels = [Level.GREEDY, Level.GREEDY]
        levels[game % 2] = Level.STRONG
        state = _play_bots(levels, first_seat=(game // 2) % 2, rng=rng, budget=300)
        strong_wins += state.winner == game % 2
    assert strong_wins >= 15


def test_bot_search_board_agrees_with_the_rules() -> None:
    """The bot's mutable board must see the same moves, wins and positions as the decider."""
    from parlor.rules.connect4x4.bot import _Board, _command

    rng = random.Random(5)
    for game in range(24):
        config = Config(players=2 + game % 3, blockers_count_toward_lines=game % 4 == 0)
        state = initial_state()
        for event in decide(state, CreateGame(config)):
            state = evolve(state, event)
        while not is_terminal(state):
            board = _Board.of(state)
            seat = state.turn
            moves = board.moves(seat)
            assert sorted(map(repr, (_command(seat, m) for m in moves))) == sorted(
                map(repr, legal_moves(state))
            )
            for move in moves:
                events = decide(state, _command(seat, move))
                assert board.wins(seat, move) == any(isinstance(e, GameWon) for e in events)
                saved = board.play(seat, move)
                after = state
                for event in events:
                    after = evolve(after, event)
                expected = _Board.of(after)
                assert (board.pieces, board.blockers, board.filled, board.heights) == (
                    expected.pieces,
                    expected.blockers,
                    expected.filled,
                    expected.heights,
                )
                assert (board.checkers_left, board.blockers_left) == (
                    expected.checkers_left,
                    expected.blockers_left,
                )
                board.undo(saved)
                assert board == _Board.of(state)
            for event in decide(state, rng.choice(legal_moves(state))):
                state = evolve(state, event)
