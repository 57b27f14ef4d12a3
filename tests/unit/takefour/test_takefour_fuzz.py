"""Stateful fuzzing: any command in any phase is taken or refused, never a crash.

From states random legal play reaches (2 to 8 players, honor and auto checking, every
rules version, small and standard tile sets, deal sizes, rounds, idle seats and
forfeits), random commands (seats out of range; cells off the grid, huge, negative; tile
ids unknown or not in hand; jokers without a letter; letters lowercase, multi-letter,
empty, not in A-Z; verdicts missing or wrong; bag orders short, duplicated, foreign;
commands before the creation, between rounds and after the end) must either be refused with
Parlor's own errors, or make events that evolve and replay exactly, with every tile of the
set counted (bag + hands + grids + unused) and no seat's view showing another's hand, grid
or the bag while the game goes on.
"""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from kits.fuzz import Game, fuzz_settings
from kits.takefour import check_invariants, choose, crc_word, lenient_word, tile_set

from parlor.core.conformance import check_secrets
from parlor.rules.takefour import (
    TAKE_FOUR,
    AgreeToDeal,
    CallDone,
    CallTakeFour,
    CreateGame,
    Forfeit,
    MarkIdle,
    MoveTile,
    PlaceTile,
    StartRound,
    SwapJoker,
    TakeBackTile,
    TakeFourCommand,
    TakeFourConfig,
    TakeFourEvent,
    TakeFourState,
    WithdrawAgreement,
)
from parlor.rules.takefour.contract import ENGINE
from parlor.rules.takefour.rules import attach_verdicts
from parlor.rules.takefour.state import Phase, Placement
from parlor.rules.takefour.tiles import LETTERS, STANDARD_TILES
from parlor.rules.takefour.view import render, view

SEATS = st.one_of(st.integers(0, 7), st.integers(-2, 9), st.integers(-(2**70), 2**70))
COORDS = st.one_of(
    st.integers(-2, 3), st.sampled_from([-1001, -1000, 1000, 1001]), st.integers(-(2**70), 2**70)
)
LETTER = st.one_of(
    st.none(),
    st.sampled_from(LETTERS),
    st.sampled_from(["", "a", "e", "AB", "?", "É", " ", "1", "QU"]),
)
TILE_SETS = [
    STANDARD_TILES,
    tile_set("E6 A4 T4 S2", jokers=2),
    tile_set("E3 A2 T2", jokers=3),
    tile_set("A1 B1", jokers=1),
]
REASONS = st.sampled_from(["LEFT", "TIMEOUT", "", "left"])


class TakeFourFuzz(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.game: Game[TakeFourState, TakeFourCommand, TakeFourEvent] = Game(TAKE_FOUR)

    @property
    def state(self) -> TakeFourState:
        return self.game.state

    def seat(self, drawn: int) -> int:
        """Mostly a seat of the table (the commands worth fuzzing), else the drawn one."""
        players = len(self.state.players)
        return drawn % players if players and drawn % 3 else drawn

    def judge(self, command: TakeFourCommand, how: int) -> TakeFourCommand:
        """The service's verdicts (from a pseudo-lexicon), all yes, or none at all."""
        if how == 0:
            return attach_verdicts(self.state, command, crc_word)
        if how == 1:
            return attach_verdicts(self.state, command, lambda word: True)
        return command

    @initialize(
        players=st.integers(2, 8),
        tiles=st.sampled_from(range(len(TILE_SETS))),
        auto=st.booleans(),
        rules=st.sampled_from([3, 3, 2, 1]),
        goal=st.sampled_from([5, 30, 100]),
        max_rounds=st.sampled_from([None, 1, 2]),
        deal_size=st.sampled_from([4, 4, 1, 3, 7]),
        seed=st.integers(0, 2**32),
        moves=st.sampled_from([0, 10, 40, 100]),
        created=st.sampled_from([True, True, True, True, False]),
    )
    def start(
        self,
        players: int,
        tiles: int,
        auto: bool,
        rules: int,
        goal: int,
        max_rounds: int | None,
        deal_size: int,
        seed: int,
        moves: int,
        created: bool,
    ) -> None:
        """Mostly a game created and played some way in, in one of its configs."""
        if not created:
            return
        config = TakeFourConfig(
            tiles=TILE_SETS[tiles],
            checking="auto" if auto else "honor",
            target=goal,
            max_rounds=max_rounds,
            deal_size=deal_size,
            rules=rules,
        )
        self.game.apply(CreateGame(config, tuple(f"p{i}" for i in range(players))))
        self.play_legally(seed, moves)

    @rule(
        players=st.integers(0, 10),
        tiles=st.sampled_from(range(len(TILE_SETS))),
        checking=st.sampled_from(["honor", "auto", "Honor", ""]),
        rules=st.integers(-1, 4),
        goal=st.integers(-1, 200),
        deal_size=st.integers(-1, 8),
        twice=st.booleans(),
    )
    def create(
        self,
        players: int,
        tiles: int,
        checking: str,
        rules: int,
        goal: int,
        deal_size: int,
        twice: bool,
    ) -> None:
        config = TakeFourConfig(
            tiles=TILE_SETS[tiles],
            checking=checking,  # type: ignore[arg-type]
            target=goal,
            deal_size=deal_size,
            rules=rules,
        )
        seats = tuple(f"p{i % 3 if twice else i}" for i in range(players))
        self.game.apply(CreateGame(config, seats))

    @rule(seed=st.integers(0, 2**32), moves=st.integers(1, 30))
    def play_legally(self, seed: int, moves: int) -> None:
        """Random legal commands (the kit's chooser), rounds dealt by the service."""
        rng = random.Random(seed)
        is_word = lenient_word if seed % 2 else crc_word
        for _ in range(moves):
            if self.state.phase in (Phase.NOT_CREATED, Phase.OVER):
                return
            command = choose(self.state, rng, is_word)
            if command is None:
                return
            assert self.game.apply(command) is not None, f"a legal command was refused: {command}"

    @rule(seed=st.integers(0, 2**32), spoil=st.sampled_from([None, "short", "twice", "foreign"]))
    def start_round(self, seed: int, spoil: str | None) -> None:
        order = list(range(self.state.config.tiles.size))
        random.Random(seed).shuffle(order)
        if spoil == "short" and order:
            order.pop()
        elif spoil == "twice" and order:
            order[-1] = order[0]
        elif spoil == "foreign":
            order.append(-1 if seed % 2 else len(order))
        self.game.apply(StartRound(tuple(order)))

    def tile(self, data: st.DataObject, seat: int) -> int:
        """A tile of the seat's hand, mostly; else any id, known or not."""
        players = self.state.players
        hand = players[seat].hand if 0 <= seat < len(players) else ()
        size = self.state.config.tiles.size
        options = [st.integers(-2, size + 1), st.integers(-(2**70), 2**70)]
        if hand:
            options = [st.sampled_from(hand)] * 4 + options
        return data.draw(st.one_of(*options))

    def cell(self, data: st.DataObject, seat: int) -> tuple[int, int]:
        """A cell of the seat's grid or beside it, mostly; else anywhere."""
        players = self.state.players
        grid = sorted(players[seat].grid) if 0 <= seat < len(players) else []
        if grid and data.draw(st.integers(0, 3)):
            x, y = data.draw(st.sampled_from(grid))
            dx, dy = data.draw(st.sampled_from([(0, 0), (1, 0), (0, 1), (-1, 0), (0, -1)]))
            return x + dx, y + dy
        return data.draw(COORDS), data.draw(COORDS)

    @rule(data=st.data(), seat=SEATS)
    def place(self, data: st.DataObject, seat: int) -> None:
        seat = self.seat(seat)
        x, y = self.cell(data, seat)
        self.game.apply(PlaceTile(seat, self.tile(data, seat), x, y, data.draw(LETTER)))

    @rule(data=st.data(), seat=SEATS)
    def move(self, data: st.DataObject, seat: int) -> None:
        seat = self.seat(seat)
        (fx, fy), (tx, ty) = self.cell(data, seat), self.cell(data, seat)
        self.game.apply(MoveTile(seat, fx, fy, tx, ty, data.draw(LETTER)))

    @rule(data=st.data(), seat=SEATS)
    def take_back(self, data: st.DataObject, seat: int) -> None:
        seat = self.seat(seat)
        self.game.apply(TakeBackTile(seat, *self.cell(data, seat)))

    @rule(data=st.data(), seat=SEATS)
    def swap_joker(self, data: st.DataObject, seat: int) -> None:
        seat = self.seat(seat)
        x, y = self.cell(data, seat)
        self.game.apply(SwapJoker(seat, self.tile(data, seat), x, y))

    @rule(seat=SEATS, how=st.integers(0, 2))
    def call_take_four(self, seat: int, how: int) -> None:
        self.game.apply(self.judge(CallTakeFour(self.seat(seat)), how))

    @rule(seat=SEATS, how=st.integers(0, 2))
    def call_done(self, seat: int, how: int) -> None:
        self.game.apply(self.judge(CallDone(self.seat(seat)), how))

    @rule(seat=SEATS)
    def agree(self, seat: int) -> None:
        self.game.apply(AgreeToDeal(self.seat(seat)))

    @rule(seat=SEATS)
    def withdraw(self, seat: int) -> None:
        self.game.apply(WithdrawAgreement(self.seat(seat)))

    @rule(seat=SEATS)
    def mark_idle(self, seat: int) -> None:
        self.game.apply(MarkIdle(self.seat(seat)))

    @rule(seat=SEATS, reason=REASONS)
    def forfeit(self, seat: int, reason: str) -> None:
        self.game.apply(Forfeit(self.seat(seat), reason))

    @rule(command=st.sampled_from([object(), None, "done"]))
    def not_a_command(self, command: TakeFourCommand) -> None:
        self.game.apply(command)

    @invariant()
    def holds(self) -> None:
        state = self.state
        event(f"{state.phase.value}, round {min(state.round, 3)}")
        check_invariants(state)
        self.game.check_replay()
        if state.phase is Phase.NOT_CREATED:
            return
        seats = len(state.players)
        for viewer in (None, *range(seats)):
            seen = view(state, viewer)
            assert ENGINE.view(state, viewer) == seen
            render(state, viewer)
            if state.phase is not Phase.OVER:
                hidden = disguised(state, viewer)
                assert seen == view(hidden, viewer), "hidden tiles show"
                assert render(state, viewer) == render(hidden, viewer)
        ENGINE.result(state)
        for seat in range(seats):
            ENGINE.legal_moves(state, seat)

    @invariant()
    def events_keep_secrets(self) -> None:
        seats = len(self.state.players)
        for change in self.game.events[-12:]:
            check_secrets(ENGINE, change, seats)


def disguised(state: TakeFourState, viewer: int | None) -> TakeFourState:
    """The state with what the viewer may not see changed, every count kept: the other
    seats' hands and grids hold other tiles (grids moved, showing other letters), and the
    bag and the unused tiles are reversed."""
    players = list(state.players)
    for seat, p in enumerate(players):
        if seat == viewer:
            continue
        grid = {(x + 1, y - 1): Placement(t.tile + 1, "Z") for (x, y), t in p.grid.items()}
        players[seat] = replace(p, hand=tuple(t + 1 for t in p.hand), grid=grid)
    return replace(state, players=tuple(players), bag=state.bag[::-1], unused=state.unused[::-1])


TakeFourFuzz.TestCase.settings = fuzz_settings(examples=25, steps=30)
test_takefour_fuzz = TakeFourFuzz.TestCase
