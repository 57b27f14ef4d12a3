"""Builders for tests of Take Four and of its service: tiny tile sets, dealt games, word lists."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from parlor.core.decider import execute
from parlor.rules.takefour import (
    TAKE_FOUR,
    CreateGame,
    LetterTiles,
    StartRound,
    TakeFourCommand,
    TakeFourConfig,
    TakeFourEvent,
    TakeFourState,
    TileSet,
)
from parlor.rules.takefour.rules import attach_verdicts
from parlor.rules.takefour.tiles import STANDARD_TILES

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
