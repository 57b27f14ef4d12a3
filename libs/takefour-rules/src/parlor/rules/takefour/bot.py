"""A deterministic Take Four player: it sees only its own view and plans its next commands.

Each plan is a pure function of the view. The bot first swaps any joker whose
letter it holds (a joker in hand is worth more), then extends its crossword with
its new tiles, or rebuilds everything from scratch (rearranging is allowed); when
every tile fits it calls "Take Four" (or "Done" once the bag is empty). When
stuck, it keeps the largest valid crossword it found and agrees to a stalemate
deal. It never makes a false call: "Done" only on a valid crossword (by its own
words) that uses every tile, even in ``honor`` mode, where a Done with tiles in hand
or an invalid crossword would stand. With the bag empty and no way to use every
tile, it keeps its best crossword and waits for another player's Done.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from parlor.rules.takefour.commands import (
    AgreeToDeal,
    CallDone,
    CallTakeFour,
    PlaceTile,
    SwapJoker,
    TakeBackTile,
    TakeFourCommand,
)
from parlor.rules.takefour.crossword import Cell, is_crossword
from parlor.rules.takefour.crossword_search import Layout, WordIndex, build_crossword
from parlor.rules.takefour.state import Phase, Placement, TakeFourState
from parlor.rules.takefour.tiles import TileSet
from parlor.rules.takefour.view import TakeFourView

LEVELS = {"easy": 2_000, "medium": 20_000, "hard": 100_000}
"""Bot level -> the bot's search budget (nodes per crossword build), weakest first."""

_BuildKey = tuple[tuple[str, ...], int, frozenset[tuple[Cell, str]], frozenset[Cell]]


class TakeFourBot:
    """Plays one seat from its view; give it a word list (any iterable of words) or an index."""

    def __init__(self, words: Iterable[str] | WordIndex, budget: int = 20_000) -> None:
        self.index = WordIndex.of(words)
        self.budget = budget
        self._built: dict[_BuildKey, tuple[Layout, bool]] = {}

    def plan(self, seen: TakeFourView) -> list[TakeFourCommand]:
        """The commands that take this seat to its next call (or as far as it can get).

        Run a plan to its end (``BotSeat`` does): the grid passes through states that are
        not crosswords on the way, and planning again from those may choose another target.
        """
        me = seen.me
        if seen.phase is not Phase.PLAYING or me is None or me.hand is None or me.grid is None:
            return []
        seat, tiles = me.seat, seen.config.tiles
        hand, grid = list(me.hand), dict(me.grid)
        commands = self._swap_jokers(seat, tiles, hand, grid)
        letters = {cell: p.letter for cell, p in grid.items()}
        valid = is_crossword(letters, self.index.__contains__)
        if not hand and grid and valid:
            return [*commands, _call(seen)]
        hardness = {spec.letter: spec.value for spec in tiles.letters}
        extended: tuple[Layout, bool] | None = None
        if valid:
            extended = self._build(tiles, hand, _layout(grid, tiles), hardness)
            if extended[1]:
                return [*commands, *_reach(seat, tiles, hand, grid, extended[0]), _call(seen)]
        everything = hand + [p.tile for p in grid.values()]
        rebuilt = self._build(tiles, everything, Layout(), hardness)
        if rebuilt[1]:
            return [*commands, *_reach(seat, tiles, hand, grid, rebuilt[0]), _call(seen)]
        # Stuck: keep the best crossword within reach, then ask for more tiles (or wait).
        target = extended[0] if extended is not None else rebuilt[0]
        commands += _reach(seat, tiles, hand, grid, target)
        if not seen.bag_empty and not me.agrees_to_deal:
            commands.append(AgreeToDeal(seat))
        return commands

    def _swap_jokers(
        self, seat: int, tiles: TileSet, hand: list[int], grid: dict[Cell, Placement]
    ) -> list[TakeFourCommand]:
        commands: list[TakeFourCommand] = []
        for cell, placed in sorted(grid.items()):
            if not tiles.is_joker(placed.tile):
                continue
            real = next((t for t in hand if tiles.face(t) == placed.letter), None)
            if real is not None:
                commands.append(SwapJoker(seat, real, cell[0], cell[1]))
                hand.remove(real)
                hand.append(placed.tile)
                grid[cell] = Placement(real, placed.letter)
        hand.sort()
        return commands

    def _build(
        self, tiles: TileSet, pool: list[int], start: Layout, hardness: Mapping[str, int]
    ) -> tuple[Layout, bool]:
        letters = tuple(sorted(tiles.face(t) for t in pool if not tiles.is_joker(t)))
        jokers = sum(1 for t in pool if tiles.is_joker(t))
        key = (letters, jokers, frozenset(start.letters.items()), frozenset(start.jokers))
        if key not in self._built:
            if len(self._built) > 512:
                self._built.clear()
            self._built[key] = build_crossword(
                self.index, letters, jokers, hardness, start, self.budget
            )
        return self._built[key]


def _call(seen: TakeFourView) -> TakeFourCommand:
    """The call of a bot whose valid crossword uses every tile."""
    assert seen.viewer is not None
    return CallDone(seen.viewer) if seen.bag_empty else CallTakeFour(seen.viewer)


def _layout(grid: Mapping[Cell, Placement], tiles: TileSet) -> Layout:
    return Layout(
        {cell: p.letter for cell, p in grid.items()},
        {cell for cell, p in grid.items() if tiles.is_joker(p.tile)},
    )


def _reach(
    seat: int, tiles: TileSet, hand: list[int], grid: dict[Cell, Placement], target: Layout
) -> list[TakeFourCommand]:
    """Take back what does not match ``target``, then place what is missing (updates both)."""
    commands: list[TakeFourCommand] = []
    for cell, placed in sorted(grid.items()):
        fits = target.letters.get(cell) == placed.letter and (
            tiles.is_joker(placed.tile) == (cell in target.jokers)
        )
        if not fits:
            commands.append(TakeBackTile(seat, cell[0], cell[1]))
            hand.append(placed.tile)
            del grid[cell]
    hand.sort()
    for cell, letter in sorted(target.letters.items()):
        if cell in grid:
            continue
        joker = cell in target.jokers
        tile = next(t for t in hand if (tiles.is_joker(t) if joker else tiles.face(t) == letter))
        hand.remove(tile)
        grid[cell] = Placement(tile, letter)
        commands.append(PlaceTile(seat, tile, cell[0], cell[1], letter if joker else None))
    return commands


class BotSeat:
    """A bot in a seat: runs each plan to its end, one command at a time, then plans again."""

    def __init__(self, bot: TakeFourBot) -> None:
        self.bot = bot
        self._pending: list[TakeFourCommand] = []

    def next_command(self, seen: TakeFourView) -> TakeFourCommand | None:
        if not self._pending:
            self._pending = self.bot.plan(seen)
        return self._pending.pop(0) if self._pending else None

    def refused(self) -> None:
        """The last command was refused (the game moved on): plan afresh next time."""
        self._pending = []

    def new_round(self) -> None:
        self._pending = []


def budget(level: str) -> int:
    """The search budget of a bot of ``level`` (``LEVELS``; an unknown level plays the
    medium's)."""
    return LEVELS.get(level, LEVELS["medium"])


def seat_bot(index: WordIndex, level: str) -> BotSeat:
    """A bot of ``level`` (its ``budget``) for one seat, on the shared word ``index``."""
    return BotSeat(TakeFourBot(index, budget=budget(level)))


def mark(state: TakeFourState, seat: int) -> object:
    """What the seat's own actions change: its grid, its agreement to deal, its calls (a
    deal changes its hand, not this; a new round empties the grid once). A runner's bot
    waits for it to change after its command (``botrunner``)."""
    player = state.players[seat]
    return (tuple(sorted(player.grid.items())), player.agrees_to_deal, player.calls)
