"""Upwords as the platform hosts it: how a game is created, and its opening shuffle.

What the platform asks of the rules beyond the game contract (``contract.ENGINE``) and
beside the standings, clocks and replay mapping: the create command for the seats given
(``create``) and the chance step that opens a game (``opening``: both bag orders, which the
platform draws, ``parlor.gamehost.record.chance``; the rules draw nothing). Its bots need the
platform's word graph and the dictionary's verdicts: they are the game service's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from parlor.rules.upwords.config import UpwordsConfig
from parlor.rules.upwords.moves import CreateGame
from parlor.rules.upwords.tiles import full_bag


@dataclass(frozen=True)
class Opening:
    """Upwords' opening chance step: the first-player draw's bag and the bag after the
    re-mix, two independent shuffles of every tile, drawn as one order of twice as many
    (the first tiles' relative order is the one bag, the others' the other)."""

    create: CreateGame
    name: str = "opening"
    number: int = 0

    @property
    def size(self) -> int:
        return 2 * len(full_bag())

    def command(self, order: tuple[int, ...]) -> CreateGame:
        bag = full_bag()
        first = tuple(bag[i] for i in order if i < len(bag))
        then = tuple(bag[i - len(bag)] for i in order if i >= len(bag))
        return replace(self.create, first_draw_order=first, bag_order=then)


class Upwords:
    """The game as one value (``GAME``)."""

    bots_think = True

    def create(
        self, config: UpwordsConfig | None, players: tuple[str, ...], bots: tuple[bool, ...]
    ) -> CreateGame:
        """The game's config (None: the defaults) and players; its bags the opening's."""
        return CreateGame(config or UpwordsConfig(), players, (), ())

    def opening(self, create: CreateGame) -> Opening:
        """Both bag orders, drawn by the platform."""
        return Opening(create)


GAME = Upwords()
