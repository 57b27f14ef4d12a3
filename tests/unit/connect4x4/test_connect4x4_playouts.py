"""Random playouts through the conformance kit: invariants hold at every step, replay is exact."""

import random
from collections.abc import Callable

import pytest

from parlor.core.conformance import random_playout
from parlor.core.errors import RuleViolation
from parlor.rules.connect4x4 import (
    BLOCKERS_PER_PLAYER,
    CHECKERS_PER_PLAYER,
    COLUMNS,
    ROWS,
    Command,
    Config,
    CreateGame,
    DropBlocker,
    DropChecker,
    Event,
    GameTied,
    GameWon,
    PlayerSkipped,
    Resign,
    Side,
    State,
    Status,
    decide,
    decider,
    legal_moves,
)
from parlor.rules.connect4x4.board import any_line, bit, column_mask, positions


def check_invariants(state: State) -> None:
    """What must hold after every event of every game."""
    if state.status is Status.NOT_STARTED:
        return
    n = state.players
    placed = 0
    for seat in range(n):
        checkers = state.front[seat].bit_count() + state.back[seat].bit_count()
        assert checkers + state.checkers_left[seat] == CHECKERS_PER_PLAYER
        assert state.blockers[seat].bit_count() + state.blockers_left[seat] == BLOCKERS_PER_PLAYER
        assert state.checkers_left[seat] >= 0
        assert state.blockers_left[seat] >= 0
        placed += checkers + state.blockers[seat].bit_count()
    assert placed == state.moves
    blockers = state.all_blockers()
    for side in (Side.FRONT, Side.BACK):
        layers = [state.front[s] if side is Side.FRONT else state.back[s] for s in range(n)]
        layers += [state.blockers[s] for s in range(n)] + [state.dead(side)]
        union = 0
        for layer in layers:
            assert union & layer == 0, "a cell is filled twice"
            union |= layer
        for column in range(COLUMNS):
            height = state.height(column, side)
            assert 0 <= height <= ROWS
            # Gravity: a channel is filled from the bottom with no gap, up to its height.
            assert union & column_mask(column) == ((1 << height) - 1) << (column * (ROWS + 1))
        # Dead cells lie beneath a blocker of the same column.
        for p in positions(state.dead(side)):
            above = blockers & column_mask(p.column) & ~((1 << (p.row + 1 + p.column * 7)) - 1)
            assert above, f"dead cell {p} has no blocker above it"
    for seat in range(n):
        # Positions a seat's lines may use never include dead cells of both sides.
        assert state.line_pieces(seat) & state.dead_front & state.dead_back == 0
    if state.status is Status.IN_PROGRESS:
        assert not state.resigned[state.turn]
        assert state.can_move(state.turn), "the seat on turn must have a legal move"
        assert legal_moves(state)
        for seat in range(n):
            assert not any_line(state.line_pieces(seat)), "a line was left unclaimed"
    elif state.status is Status.WON:
        assert state.winner is not None
        if state.line:
            assert all(state.line_pieces(state.winner) & bit(p.column, p.row) for p in state.line)
    else:
        assert state.end_reason in ("ALL_CHECKERS_USED", "NO_LEGAL_MOVES")


def _setup(config: Config) -> list[Command]:
    return [CreateGame(config)]


Chooser = Callable[[State, random.Random], Command | None]


def uniform(resign_rate: float) -> Chooser:
    def choose(state: State, rng: random.Random) -> Command | None:
        if rng.random() < resign_rate:
            active = state.active_seats()
            return Resign(rng.choice(active))
        moves = legal_moves(state)
        return rng.choice(moves) if moves else None

    return choose


def avoiding_lines(state: State, rng: random.Random) -> Command | None:
    """Random, but never completing a line while another move exists: long games, full boards."""
    moves = legal_moves(state)
    rng.shuffle(moves)
    for move in moves:
        if not any(isinstance(e, GameWon) for e in decide(state, move)):
            return move
    return moves[0] if moves else None


def blockers_early_or_late(state: State, rng: random.Random) -> Command | None:
    """Even seats drop blockers at once over uneven channels, odd seats keep theirs to the end.

    Dead cells fill the board early, so the hoarders end up holding only blockers with no column
    to take them: the case where a player must be skipped.
    """
    moves = legal_moves(state)
    rng.shuffle(moves)
    eager = state.turn % 2 == 0

    def rank(move: Command) -> int:
        if isinstance(move, DropBlocker):
            front, back = (
                state.height(move.column, Side.FRONT),
                state.height(move.column, Side.BACK),
            )
            return -abs(front - back) if eager else 100
        return 0

    moves.sort(key=rank)
    for move in moves:
        if not any(isinstance(e, GameWon) for e in decide(state, move)):
            return move
    return moves[0] if moves else None


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_playouts_keep_invariants_and_replay_exactly(players: int) -> None:
    rng = random.Random(1000 + players)
    endings: set[str | None] = set()
    for game in range(150):
        config = Config(
            players=players,
            first_seat=rng.randrange(players),
            blockers_count_toward_lines=game % 5 == 0,
        )
        playout = random_playout(
            decider,
            _setup(config),
            uniform(0.01 if game % 3 == 0 else 0.0),
            check_invariants,
            rng,
        )
        assert playout.final_state.over
        endings.add(playout.final_state.end_reason)
    assert "FOUR_IN_A_LINE" in endings
    assert "RESIGNATION" in endings


@pytest.mark.parametrize("players", [2, 3, 4])
def test_line_avoiding_playouts_fill_the_board_and_replay_exactly(players: int) -> None:
    rng = random.Random(2000 + players)
    events: list[Event] = []
    for _ in range(12):
        playout = random_playout(
            decider, _setup(Config(players=players)), avoiding_lines, check_invariants, rng
        )
        assert playout.final_state.over
        events.extend(playout.events)
    assert any(isinstance(e, GameTied) for e in events)
    if players == 4:
        assert any(isinstance(e, GameTied) and e.reason == "NO_LEGAL_MOVES" for e in events)


def test_skipped_players_in_playouts_have_no_legal_move() -> None:
    rng = random.Random(7)
    skips = 0
    for _ in range(20):
        playout = random_playout(
            decider, _setup(Config(players=4)), blockers_early_or_late, check_invariants, rng
        )
        state = decider.initial_state()
        for event in playout.events:
            if isinstance(event, PlayerSkipped):
                assert state.turn == event.seat
                assert not state.can_move(event.seat)
                skips += 1
            state = decider.evolve(state, event)
    assert skips > 0


def test_legal_moves_are_exactly_the_drops_decide_accepts() -> None:
    rng = random.Random(11)
    for players in (2, 3, 4):
        for _ in range(5):
            playout = random_playout(
                decider, _setup(Config(players=players)), avoiding_lines, check_invariants, rng
            )
            state = decider.initial_state()
            for event in playout.events:
                state = decider.evolve(state, event)
                if state.status is not Status.IN_PROGRESS:
                    continue
                seat = state.turn
                drops: list[Command] = [
                    DropChecker(seat, column, side)
                    for column in range(COLUMNS)
                    for side in (Side.FRONT, Side.BACK)
                ]
                drops += [DropBlocker(seat, column) for column in range(COLUMNS)]
                legal = legal_moves(state)
                for drop in drops:
                    try:
                        decide(state, drop)
                    except RuleViolation:
                        assert drop not in legal
                    else:
                        assert drop in legal
