"""Builders for tests of Take Four and of its service: tiny tile sets, dealt games, word lists.

Also the removal rule's slow reference (``best_crossword_brute``), which the search is
tested and benchmarked against.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import combinations

from parlor.core.conformance import Playout, random_playout
from parlor.core.decider import execute
from parlor.core.errors import InvalidArgument, RuleViolation
from parlor.rules.takefour import (
    TAKE_FOUR,
    AgreeToDeal,
    CallDone,
    CallTakeFour,
    CreateGame,
    LetterTiles,
    MoveTile,
    Phase,
    PlaceTile,
    StartRound,
    SwapJoker,
    TakeBackTile,
    TakeFourCommand,
    TakeFourConfig,
    TakeFourEvent,
    TakeFourState,
    TileSet,
    WithdrawAgreement,
)
from parlor.rules.takefour.bot import BotSeat, TakeFourBot
from parlor.rules.takefour.crossword import Cell, WordCheck, is_crossword
from parlor.rules.takefour.removal import Removal
from parlor.rules.takefour.rules import attach_verdicts
from parlor.rules.takefour.state import COORDINATE_LIMIT
from parlor.rules.takefour.tiles import LETTERS, STANDARD_TILES
from parlor.rules.takefour.view import view

_STANDARD_VALUES = {spec.letter: spec.value for spec in STANDARD_TILES.letters}


def tile_set(spec: str, jokers: int = 0, values: dict[str, int] | None = None) -> TileSet:
    """E.g. ``tile_set("C1 A2 T1")``; values default to the standard ones."""
    worth = {**_STANDARD_VALUES, **(values or {})}
    return TileSet(
        letters=tuple(LetterTiles(i[0], int(i[1:]), worth[i[0]]) for i in spec.split()),
        jokers=jokers,
    )


def lexicon(*words: str) -> Callable[[str], bool]:
    known = {w.upper() for w in words}
    return lambda word: word in known


def create(players: int = 2, tiles: TileSet = STANDARD_TILES, **config: object) -> TakeFourState:
    cfg = TakeFourConfig(tiles=tiles, **config)  # type: ignore[arg-type]
    seats = tuple(f"p{i}" for i in range(players))
    return play(TAKE_FOUR.initial_state(), CreateGame(cfg, seats))


def start(state: TakeFourState, order: Iterable[int] | None = None) -> TakeFourState:
    bag = tuple(range(state.config.tiles.size)) if order is None else tuple(order)
    return play(state, StartRound(bag))


def play(
    state: TakeFourState,
    *commands: TakeFourCommand,
    words: Callable[[str], bool] | None = None,
) -> TakeFourState:
    for command in commands:
        if words is not None:
            command = attach_verdicts(state, command, words)
        state, _ = execute(TAKE_FOUR, state, command)
    return state


def events_of(
    state: TakeFourState,
    command: TakeFourCommand,
    words: Callable[[str], bool] | None = None,
) -> list[TakeFourEvent]:
    if words is not None:
        command = attach_verdicts(state, command, words)
    return list(TAKE_FOUR.decide(state, command))


def tile(state: TakeFourState, seat: int, face: str) -> int:
    """The first tile in the seat's hand showing ``face`` (``?`` for a joker)."""
    tiles = state.config.tiles
    return next(t for t in state.players[seat].hand if tiles.face(t) == face)


# --- random play (the conformance kit's chooser) ------------------------------------------


def crc_word(word: str) -> bool:
    """A deterministic pseudo-lexicon: about half of all strings are 'words'."""
    return zlib.crc32(word.encode()) % 2 == 0


def lenient_word(word: str) -> bool:
    """Three strings in four are 'words', so random auto-mode grids are sometimes valid."""
    return zlib.crc32(word.encode()) % 4 != 0


def check_invariants(state: TakeFourState) -> None:
    """Tile conservation (bag + hands + grids + unused = the set) and consistent grids."""
    if state.phase is Phase.NOT_CREATED:
        return
    tiles = state.config.tiles
    if state.round == 0:
        assert all(not p.hand and not p.grid for p in state.players)
        return
    held: list[int] = []
    for p in state.players:
        assert list(p.hand) == sorted(p.hand)
        held.extend(p.hand)
        for (x, y), placed in p.grid.items():
            assert abs(x) <= COORDINATE_LIMIT
            assert abs(y) <= COORDINATE_LIMIT
            assert placed.letter in LETTERS
            assert tiles.is_joker(placed.tile) or tiles.face(placed.tile) == placed.letter
            held.append(placed.tile)
    assert sorted(held + list(state.bag) + list(state.unused)) == list(range(tiles.size))
    assert state.totals == tuple(
        sum(r.scores[seat] for r in state.results) for seat in range(len(state.players))
    )


def _free_neighbours(grid: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """Free cells touching exactly one tile: grids grow like crosswords, not blobs."""
    cells = set()
    for x, y in grid:
        for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            touching = sum(
                m in grid
                for m in ((n[0] + 1, n[1]), (n[0] - 1, n[1]), (n[0], n[1] + 1), (n[0], n[1] - 1))
            )
            if n not in grid and touching == 1:
                cells.add(n)
    return sorted(cells)


def candidates(state: TakeFourState, rng: random.Random) -> list[TakeFourCommand]:
    seat = rng.randrange(len(state.players))
    p = state.players[seat]
    tiles = state.config.tiles
    options: list[TakeFourCommand] = []
    if not p.hand and p.grid:
        options.append(CallTakeFour(seat) if state.bag else CallDone(seat))
    if p.hand:
        t = rng.choice(p.hand)
        letter = rng.choice(LETTERS) if tiles.is_joker(t) else None
        free = _free_neighbours(set(p.grid)) or [(rng.randint(-3, 3), rng.randint(-3, 3))]
        x, y = rng.choice(free)
        options += [PlaceTile(seat, t, x, y, letter)] * 6
    if p.grid:
        (x, y), placed = rng.choice(sorted(p.grid.items()))
        options.append(TakeBackTile(seat, x, y))
        tx, ty = rng.choice(_free_neighbours(set(p.grid) - {(x, y)}) or [(x + 1, y)])
        letter = rng.choice(LETTERS) if tiles.is_joker(placed.tile) else None
        options.append(MoveTile(seat, x, y, tx, ty, letter))
        if tiles.is_joker(placed.tile):
            options += [SwapJoker(seat, t, x, y) for t in p.hand if tiles.face(t) == placed.letter]
    if state.bag:
        options.append(WithdrawAgreement(seat) if p.agrees_to_deal else AgreeToDeal(seat))
    rng.shuffle(options)
    options.sort(key=lambda c: not isinstance(c, CallTakeFour | CallDone))
    return options


Chooser = Callable[[TakeFourState, random.Random], TakeFourCommand | None]


def chooser(is_word: Callable[[str], bool]) -> Chooser:
    return lambda state, rng: choose(state, rng, is_word)


def choose(
    state: TakeFourState, rng: random.Random, is_word: Callable[[str], bool] = crc_word
) -> TakeFourCommand | None:
    """A random command the engine accepts (refused ones are skipped, as a player would)."""
    if state.phase is Phase.BETWEEN_ROUNDS:
        order = list(range(state.config.tiles.size))
        rng.shuffle(order)
        return StartRound(tuple(order))
    for _ in range(50):
        for command in candidates(state, rng):
            command = attach_verdicts(state, command, is_word)
            try:
                TAKE_FOUR.decide(state, command)
            except (RuleViolation, InvalidArgument):
                continue
            return command
    return None


def playout(
    players: int, config: TakeFourConfig, seed: int, is_word: Callable[[str], bool] = crc_word
) -> Playout[TakeFourState, TakeFourEvent]:
    setup: list[TakeFourCommand] = [CreateGame(config, tuple(f"p{i}" for i in range(players)))]
    return random_playout(
        TAKE_FOUR, setup, chooser(is_word), check_invariants, random.Random(seed), 20_000
    )


# --- bots at a table ------------------------------------------------------------------------


def play_bots(
    bots: Sequence[TakeFourBot],
    config: TakeFourConfig,
    seed: int,
    max_commands: int = 100_000,
) -> tuple[TakeFourState, list[TakeFourEvent]]:
    """A whole game of bots taking turns one command at a time, verdicts from their own words.

    The driver plays the service: it shuffles each round's bag (seeded) and fills in verdicts.
    """
    rng = random.Random(seed)
    seats = tuple(f"bot{i}" for i in range(len(bots)))
    state = TAKE_FOUR.initial_state()
    events: list[TakeFourEvent] = []
    is_word = bots[0].index.__contains__
    players = [BotSeat(bot) for bot in bots]

    def apply(command: TakeFourCommand) -> None:
        nonlocal state
        state, new = execute(TAKE_FOUR, state, attach_verdicts(state, command, is_word))
        events.extend(new)

    apply(CreateGame(config, seats))
    idle = 0
    for turn in range(max_commands):
        if TAKE_FOUR.is_terminal(state):
            return state, events
        if state.phase is Phase.BETWEEN_ROUNDS:
            order = list(range(config.tiles.size))
            rng.shuffle(order)
            apply(StartRound(tuple(order)))
            for player in players:
                player.new_round()
            continue
        seat = turn % len(bots)
        command = players[seat].next_command(view(state, seat))
        if command is None:
            idle += 1
            if idle > 2 * len(bots):
                raise AssertionError("every bot is stuck: the round cannot go on")
            continue
        idle = 0
        try:
            apply(command)
        except RuleViolation:
            players[seat].refused()  # e.g. a deal came first: its call now finds tiles in hand
    raise AssertionError("the bots did not finish the game within max_commands")


# --- the removal rule's reference -----------------------------------------------------------


def best_crossword_brute(
    letters: Mapping[Cell, str], values: Mapping[Cell, int], is_word: WordCheck
) -> Removal:
    """Every subset, checked whole: the slow reference the search is tested against."""
    cells = sorted(letters)
    best: Removal | None = None
    for size in range(len(cells), 0, -1):
        for kept_cells in combinations(cells, size):
            kept = {c: letters[c] for c in kept_cells}
            if not is_crossword(kept, is_word):
                continue
            option = Removal(frozenset(kept), tuple(c for c in cells if c not in kept))
            if best is None or option.key(values) < best.key(values):
                best = option
    return best or Removal(frozenset(), ())
