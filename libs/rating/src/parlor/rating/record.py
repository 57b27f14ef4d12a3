"""Player statistics: games, wins, draws and losses, folded game by game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from parlor.rating.standings import Outcome, Standing, outcomes


@dataclass(frozen=True)
class Record:
    """One player's tally in one game type."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def add(self, outcome: Outcome) -> Record:
        """The record after one more game, so a rebuild is a plain fold over results."""
        return Record(
            games=self.games + 1,
            wins=self.wins + (outcome is Outcome.WIN),
            draws=self.draws + (outcome is Outcome.DRAW),
            losses=self.losses + (outcome is Outcome.LOSS),
        )


def tally_game(records: Mapping[str, Record], standings: Sequence[Standing]) -> dict[str, Record]:
    """The game's players' records after it; a player missing from ``records`` starts at zero."""
    return {
        player: records.get(player, Record()).add(outcome)
        for player, outcome in outcomes(standings).items()
    }
