"""Stateful fuzzing: any command in any phase is taken or refused, never a crash.

From states bot play reaches (2 to 4 players, auto and challenge checking, the plural rule
on and off, every rules version, exchanges, challenges, resignations and timeouts), random
commands (seats out of range; squares off the board, huge, negative; tiles unknown,
lowercase, multi-letter, empty, duplicated, not on the rack; verdicts missing or wrong;
exchanges at any position; commands before the creation and after the end) must either be
refused with Parlor's own errors, or make events that evolve and replay exactly, with the
100 tiles all counted (bag + racks + board) and no seat's view showing another's rack or
the bag order while the game goes on.
"""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from kits.fuzz import Game, fuzz_settings
from test_upwords_playouts import BLUFFER, HONEST, chooser, verdicts

from parlor.core.conformance import check_secrets
from parlor.core.errors import ParlorError
from parlor.rules.upwords import (
    DISTRIBUTION,
    UPWORDS,
    AcceptPlay,
    Challenge,
    Command,
    CreateGame,
    Event,
    Exchange,
    Pass,
    Placement,
    Play,
    Resign,
    TimeOut,
    UpwordsConfig,
    UpwordsState,
    WordChecking,
    full_bag,
    tile_counts,
    view,
    words_formed,
)
from parlor.rules.upwords.board import MAX_HEIGHT
from parlor.rules.upwords.contract import ENGINE
from parlor.rules.upwords.state import Phase

SEATS = st.one_of(st.integers(0, 3), st.integers(-2, 6), st.integers(-(2**70), 2**70))
SQUARES = st.one_of(st.integers(3, 6), st.integers(-1, 10), st.integers(-(2**70), 2**70))
BOGUS_TILES = ["", "a", "qu", "QU", "Q", "Qu ", "AB", "?", "*", "É", "1", " "]
WORDS = st.text(alphabet="abcdeiloqrstu", min_size=0, max_size=5)
VERDICTS = st.dictionaries(WORDS, st.booleans(), max_size=4)


def tiles_for(state: UpwordsState, seat: int) -> st.SearchStrategy[str]:
    rack = state.racks[seat] if 0 <= seat < len(state.racks) else ()
    options = [st.sampled_from(sorted(DISTRIBUTION)), st.sampled_from(BOGUS_TILES)]
    if rack:
        options = [st.sampled_from(rack), st.sampled_from(rack), *options]
    return st.one_of(*options)


class UpwordsFuzz(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.game: Game[UpwordsState, Command, Event] = Game(UPWORDS)

    @property
    def state(self) -> UpwordsState:
        return self.game.state

    def seat(self, drawn: int) -> int:
        """Mostly the seat on turn (the moves worth fuzzing), else the drawn one."""
        return self.state.to_move if drawn % 3 == 0 else drawn

    @initialize(
        players=st.integers(2, 4),
        checking=st.sampled_from(WordChecking),
        plural_rule=st.booleans(),
        rules=st.sampled_from([3, 3, 2, 1]),
        seed=st.integers(0, 2**32),
        moves=st.sampled_from([0, 5, 20, 40, 80]),
        created=st.sampled_from([True, True, True, True, False]),
    )
    def start(
        self,
        players: int,
        checking: WordChecking,
        plural_rule: bool,
        rules: int,
        seed: int,
        moves: int,
        created: bool,
    ) -> None:
        """Mostly a game created and played some way in by bots, in one of its configs."""
        if created:
            self.create(players, checking, plural_rule, rules, seed, None)
            self.play_legally(seed, moves)

    @rule(
        players=st.one_of(st.integers(2, 4), st.integers(0, 6)),
        checking=st.sampled_from([*WordChecking, "auto", "bogus"]),
        plural_rule=st.booleans(),
        rules=st.one_of(st.integers(1, 3), st.integers(-1, 5)),
        seed=st.integers(0, 2**32),
        spoil=st.sampled_from([None, None, None, "drop", "lower", "extra", "ten_e"]),
    )
    def create(
        self,
        players: int,
        checking: WordChecking,
        plural_rule: bool,
        rules: int,
        seed: int,
        spoil: str | None,
    ) -> None:
        rng = random.Random(seed)
        draw, bag = list(full_bag()), list(full_bag())
        rng.shuffle(draw)
        rng.shuffle(bag)
        if spoil == "drop":
            bag.pop()
        elif spoil == "lower":
            bag[0] = bag[0].lower()
        elif spoil == "extra":
            bag.append("E")
        elif spoil == "ten_e":
            draw = ["E"] * 100  # every seat draws E for ever: the draw runs out
        config = UpwordsConfig(word_checking=checking, plural_rule=plural_rule, rules=rules)
        seats = tuple(f"p{i}" for i in range(players))
        self.game.apply(CreateGame(config, seats, tuple(draw), tuple(bag)))

    @rule(seed=st.integers(0, 2**32), moves=st.integers(1, 20))
    def play_legally(self, seed: int, moves: int) -> None:
        """Bot moves: plays (phony ones in challenge mode), exchanges, passes, challenges."""
        rng = random.Random(seed)
        for _ in range(moves):
            state = self.state
            if state.phase is not Phase.PLAYING:
                return
            bot = HONEST if state.config.word_checking is WordChecking.AUTO else BLUFFER
            command = chooser(bot)(state, rng)
            if command is None:
                return
            # the bots' chooser may name a seat that dropped out as a challenger: refused
            self.game.apply(command)

    @rule(data=st.data(), seat=SEATS, count=st.integers(0, 8), judge=st.integers(0, 3))
    def play(self, data: st.DataObject, seat: int, count: int, judge: int) -> None:
        """Any placements; verdicts from the dictionary, all yes, all no, or random."""
        seat = self.seat(seat)
        placements = tuple(
            data.draw(st.builds(Placement, SQUARES, SQUARES, tiles_for(self.state, seat)))
            for _ in range(count)
        )
        if self.state.phase is Phase.PLAYING and count and data.draw(st.booleans()):
            # a line from a square the board holds or the centre: deeper into the rules
            row, col = data.draw(st.integers(2, 7)), data.draw(st.integers(2, 7))
            down = data.draw(st.booleans())
            placements = tuple(
                Placement(row + i * down, col + i * (not down), p.tile)
                for i, p in enumerate(placements)
            )
        command = Play(seat, placements, data.draw(VERDICTS))
        if judge < 3:
            try:
                words = words_formed(self.state, command)
            except ParlorError:  # anything else fails the test: words_formed may only refuse
                words = []
            if judge == 0:
                command = replace(command, verdicts=verdicts(words))
            else:
                command = replace(command, verdicts=dict.fromkeys(words, judge == 1))
        self.game.apply(command)

    @rule(seat=SEATS)
    def pass_turn(self, seat: int) -> None:
        self.game.apply(Pass(self.seat(seat)))

    @rule(data=st.data(), seat=SEATS, position=st.one_of(st.integers(-2, 100), st.integers()))
    def exchange(self, data: st.DataObject, seat: int, position: int) -> None:
        seat = self.seat(seat)
        self.game.apply(Exchange(seat, data.draw(tiles_for(self.state, seat)), position))

    @rule(seat=SEATS, judge=st.integers(0, 3), extra=VERDICTS)
    def challenge(self, seat: int, judge: int, extra: dict[str, bool]) -> None:
        pending = self.state.pending
        words = pending.words if pending is not None else ()
        if judge == 0:
            answer = verdicts(words)
        elif judge < 3:
            answer = dict.fromkeys(words, judge == 1)
        else:
            answer = extra
        self.game.apply(Challenge(self.seat(seat), answer))

    @rule(seat=SEATS)
    def accept(self, seat: int) -> None:
        self.game.apply(AcceptPlay(self.seat(seat)))

    @rule(seat=SEATS)
    def resign(self, seat: int) -> None:
        self.game.apply(Resign(seat))

    @rule(seat=SEATS)
    def time_out(self, seat: int) -> None:
        self.game.apply(TimeOut(seat))

    @rule(command=st.sampled_from([object(), None, "pass"]))
    def not_a_command(self, command: Command) -> None:
        self.game.apply(command)

    @invariant()
    def holds(self) -> None:
        state = self.state
        event(f"phase {state.phase.value}, {len(self.game.events) // 20 * 20}+ events")
        self.game.check_replay()
        if state.phase is Phase.NOT_STARTED:
            return
        assert tile_counts(state) == DISTRIBUTION, "a tile was made or lost"
        assert all(len(stack) <= MAX_HEIGHT for stack in state.board.stacks)
        assert all(len(rack) <= 7 for rack in state.racks)
        seats = state.players
        for viewer in (None, *range(seats)):
            seen = view(state, viewer)
            assert ENGINE.view(state, viewer) == seen
            if state.phase is not Phase.ENDED:
                assert seen.racks is None
                assert seen.bag is None
                assert seen == view(disguised(state, viewer), viewer), "hidden tiles show"
        ENGINE.result(state)
        for seat in range(seats):
            ENGINE.legal_moves(state, seat)

    @invariant()
    def events_keep_secrets(self) -> None:
        seats = self.state.players
        for change in self.game.events[-12:]:
            check_secrets(ENGINE, change, seats)


def disguised(state: UpwordsState, viewer: int | None) -> UpwordsState:
    """The state with every tile the viewer may not see dealt again (same counts): the
    other racks and the bag, reversed together."""
    others = [s for s in range(state.players) if s != viewer]
    pool = [t for s in others for t in state.racks[s]] + list(state.bag)
    pool.reverse()
    racks = list(state.racks)
    for s in others:
        racks[s], pool = tuple(pool[: len(racks[s])]), pool[len(racks[s]) :]
    return replace(state, racks=tuple(racks), bag=tuple(pool))


UpwordsFuzz.TestCase.settings = fuzz_settings(examples=25, steps=30)
test_upwords_fuzz = UpwordsFuzz.TestCase
