"""Round scoring: what each grid keeps under the removal rule, and what the rest costs."""

from __future__ import annotations

from dataclasses import dataclass

from parlor.rules.takefour.crossword import Cell, WordCheck
from parlor.rules.takefour.removal import best_crossword
from parlor.rules.takefour.state import Player
from parlor.rules.takefour.tiles import TileSet


@dataclass(frozen=True)
class GridScore:
    score: int
    removed: tuple[Cell, ...]
    valid: bool


def score_player(
    player: Player, tiles: TileSet, is_word: WordCheck, *, called_done: bool
) -> GridScore:
    """Values of tiles outside the kept crossword; the Done caller pays them twice."""
    letters = player.letters()
    values = {cell: tiles.value(p.tile) for cell, p in player.grid.items()}
    kept = best_crossword(letters, values, is_word)
    lost = sum(values[c] for c in kept.removed) + sum(tiles.value(t) for t in player.hand)
    valid = bool(letters) and not kept.removed and not player.hand
    return GridScore(score=2 * lost if called_done else lost, removed=kept.removed, valid=valid)
