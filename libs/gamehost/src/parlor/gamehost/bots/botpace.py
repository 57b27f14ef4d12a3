"""How fast a bot runner's bots go, and how long they stay (``botrunner``): the settings a game
with a runner reads from its environment (``PaceSettings``: its own env names, these helps)
and the limits that make every game of bots end (docs/bounds.md, "Every game ends")."""

from __future__ import annotations

from typing import Protocol

ALONE_SECONDS = 60.0
"""How long bots play on at a table no person is left at (all left, or none ever sat): then
they leave it, which ends it. A game of bots is watchable for a minute, and one player's
tables of bots cost the platform a minute each, not days (docs/bounds.md)."""

ABANDON_SECONDS = 900.0
"""A person who has not acted for this long while only bots play has walked away from the
game (an untimed game, or one whose clock does not end it): the runner makes their seat
leave (``ABANDONED``), and then, no person being left, its bots leave too, which ends it
(docs/bounds.md, "Every game ends")."""

PAUSE_HELP = "pause between two steps of one bot (0: as fast as it can plan)"
IDLE_HELP = "how often the bot runner looks at its games when nothing woke it"
HUMAN_PACE_HELP = (
    "while a person plays (has not left), each bot level waits its own time per step"
    " (the game's paces; false: only the pause)"
)
ALONE_HELP = (
    "how long bots play on at a table no person is at before they leave it, which ends the game"
)
ABANDON_HELP = (
    "how long a person may go without acting while bots play before their seat leaves the"
    " game (ABANDONED)"
)
"""What a game's pace settings say (``PaceSettings``; the env names are the game's own)."""


class PaceSettings(Protocol):
    """How fast the runner's bots go (a game's settings class, read from its environment:
    its fields are ``setting(<the game's env name>, PAUSE_HELP, 0.5)`` and so on)."""

    @property
    def pause_seconds(self) -> float:
        """Between two steps of one bot (0: as fast as it can plan)."""

    @property
    def idle_seconds(self) -> float:
        """How often the runner looks at its games when nothing woke it."""

    @property
    def human_pace(self) -> bool:
        """While a person plays, each bot level waits its own time per step (``paces``)."""
