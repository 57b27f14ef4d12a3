"""Stateful fuzzing: any command in any phase is taken or refused, never a crash.

From states random legal play reaches (2 to 4 players, blockers counting toward lines or
not, resignations and timeouts), random commands (seats and columns out of range, huge,
negative; sides that are not sides; moves after the end, before the creation) must either
be refused with Parlor's own errors or make events that evolve, replay exactly and keep
every checker and blocker counted on the board (``check_invariants`` of the playouts).
"""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from kits.fuzz import Game, fuzz_settings
from test_connect4x4_playouts import avoiding_lines, check_invariants, uniform

from parlor.rules.connect4x4 import (
    Command,
    Config,
    CreateGame,
    DropBlocker,
    DropChecker,
    Event,
    Resign,
    Side,
    State,
    TimeOut,
    decider,
    render,
    view,
)
from parlor.rules.connect4x4.contract import ENGINE

SEATS = st.one_of(st.integers(-2, 5), st.integers(-(2**70), 2**70))
COLUMNS = st.one_of(st.integers(-2, 8), st.integers(-(2**70), 2**70))
SIDES = st.sampled_from([Side.FRONT, Side.BACK, Side.FRONT, Side.BACK, "front", "b", None, 0])
CONFIGS = st.builds(
    Config,
    players=st.one_of(st.integers(2, 4), st.integers(-1, 6)),
    first_seat=st.one_of(st.integers(0, 3), st.integers(-2, 6)),
    blockers_count_toward_lines=st.one_of(st.booleans(), st.sampled_from([0, 1, None])),
)


class Connect4x4Fuzz(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.game: Game[State, Command, Event] = Game(decider)

    @initialize(
        players=st.integers(2, 4),
        first_seat=st.integers(0, 3),
        blockers_count=st.booleans(),
        seed=st.integers(0, 2**32),
        moves=st.sampled_from([0, 10, 30, 50, 80]),
        created=st.sampled_from([True, True, True, True, False]),
    )
    def start(
        self,
        players: int,
        first_seat: int,
        blockers_count: bool,
        seed: int,
        moves: int,
        created: bool,
    ) -> None:
        """Mostly a game created and played some way in, in one of its configs."""
        if created:
            self.create(Config(players, first_seat % players, blockers_count))
            self.play_legally(seed, moves, careful=seed % 2 == 0)

    @rule(config=CONFIGS)
    def create(self, config: Config) -> None:
        self.game.apply(CreateGame(config))

    @rule(seed=st.integers(0, 2**32), moves=st.integers(1, 20), careful=st.booleans())
    def play_legally(self, seed: int, moves: int, careful: bool) -> None:
        """Random legal drops (``careful``: avoiding lines, to fill the board)."""
        rng = random.Random(seed)
        choose = avoiding_lines if careful else uniform(0.0)
        for _ in range(moves):
            if self.game.state.over or self.game.state.players == 0:
                return
            command = choose(self.game.state, rng)
            if command is None:
                return
            assert self.game.apply(command) is not None, f"a legal move was refused: {command}"

    @rule(seat=SEATS, column=COLUMNS, side=SIDES)
    def drop_checker(self, seat: int, column: int, side: Side) -> None:
        self.game.apply(DropChecker(seat, column, side))

    @rule(seat=SEATS, column=COLUMNS)
    def drop_blocker(self, seat: int, column: int) -> None:
        self.game.apply(DropBlocker(seat, column))

    @rule(seat=SEATS, column=st.integers(0, 6), side=st.sampled_from(Side))
    def drop_on_turn(self, seat: int, column: int, side: Side) -> None:
        """A well-formed drop by the seat on turn (or any), checker or blocker."""
        state = self.game.state
        mover = state.turn if seat % 2 == 0 else seat
        self.game.apply(DropChecker(mover, column, side))
        self.game.apply(DropBlocker(mover, column))

    @rule(seat=SEATS)
    def resign(self, seat: int) -> None:
        self.game.apply(Resign(seat))

    @rule(seat=SEATS)
    def time_out(self, seat: int) -> None:
        self.game.apply(TimeOut(seat))

    @rule(command=st.sampled_from([object(), None, "df", 3]))
    def not_a_command(self, command: Command) -> None:
        self.game.apply(command)

    @invariant()
    def holds(self) -> None:
        state = self.game.state
        event(f"{state.status.value}, {state.moves // 20 * 20}+ moves")
        check_invariants(state)
        self.game.check_replay()
        for viewer in (None, *range(state.players)):
            # nothing is hidden: every viewer sees what a spectator sees
            assert replace(view(state, viewer), viewer=None) == view(state, None)
            ENGINE.view(state, viewer)
        render(state)
        ENGINE.result(state)
        for seat in range(state.players):
            ENGINE.legal_moves(state, seat)


Connect4x4Fuzz.TestCase.settings = fuzz_settings(examples=60, steps=40)
test_connect4x4_fuzz = Connect4x4Fuzz.TestCase
