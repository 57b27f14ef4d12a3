"""The configurable rules of a game, fixed in its first event."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from parlor.core import game

RULES_VERSION = 3
"""The reading of the rules a new game is created with, recorded in its config.

1: as first recorded: a resignation ends the game for everyone. 2: with three or four
players, a resignation leaves the others playing (the seat drops out, as one that ran out
of time does); the game ends when one seat is left. 3: a seat that ran out of time ranks
behind every seat that played on, as a resigner does (by score, a player could stop
moving instead of resigning and keep a rank above the players who stayed). A game keeps
the reading it was created with, so a replay decides every recorded command as it was
decided.
"""
RECORDED_BEFORE_VERSIONS = 1
"""The rules version of a stored game whose config has none: it was created before them."""


def rules_for_new_game(requested: int) -> int:
    """The rules version a new game asking for ``requested`` (0: the current one) is played by
    (``parlor.core.game.rules_for_new_game``)."""
    return game.rules_for_new_game(requested, RULES_VERSION)


class WordChecking(StrEnum):
    """``auto``: the dictionary checks every play; ``challenge``: opponents may challenge."""

    AUTO = "auto"
    CHALLENGE = "challenge"


@dataclass(frozen=True)
class UpwordsConfig:
    """Defaults are the RULES.md defaults; ``lexicon`` names the word list used."""

    word_checking: WordChecking = WordChecking.AUTO
    plural_rule: bool = True
    lexicon: str = ""
    rules: int = RULES_VERSION
    """Which reading of the rules the game is decided by (``RULES_VERSION``)."""
