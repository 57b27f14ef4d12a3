"""Who goes first: each player draws a tile, nearest to "A" starts, ties draw again.

The draw is taken from ``first_draw_order`` (a full shuffle chosen by the
service), front first: every seat draws one tile in seat order; if several seats
share the tile nearest to "A", only those seats draw again, in seat order, from
the tiles that follow; repeat until one seat is nearest. All the drawn tiles then
go back and the bag is re-mixed: that re-mix is ``bag_order``, a second full
shuffle, from which seat 0 takes the first 7 tiles, seat 1 the next 7, and so on.
"""

from __future__ import annotations

from collections.abc import Sequence

from parlor.core.errors import InvalidArgument
from parlor.rules.upwords import tiles
from parlor.rules.upwords.events import DrawRound


def draw_for_first(players: int, order: Sequence[str]) -> tuple[tuple[DrawRound, ...], int]:
    """The rounds of the first-player draw and the seat that goes first."""
    contenders = list(range(players))
    rounds: list[DrawRound] = []
    position = 0
    while True:
        if position + len(contenders) > len(order):
            raise InvalidArgument(
                "the first-player draw ran out of tiles; shuffle again", reason="DRAW_EXHAUSTED"
            )
        draws = tuple((seat, order[position + i]) for i, seat in enumerate(contenders))
        position += len(contenders)
        rounds.append(DrawRound(draws))
        nearest = min(tiles.draw_rank(tile) for _, tile in draws)
        contenders = [seat for seat, tile in draws if tiles.draw_rank(tile) == nearest]
        if len(contenders) == 1:
            return tuple(rounds), contenders[0]


Racks = tuple[tuple[str, ...], ...]


def deal(players: int, bag_order: Sequence[str]) -> tuple[Racks, tuple[str, ...]]:
    """The starting racks (7 each, seat order, from the front) and the bag left."""
    n = tiles.RACK_SIZE
    racks = tuple(tuple(bag_order[s * n : (s + 1) * n]) for s in range(players))
    return racks, tuple(bag_order[players * n :])
