"""The configurable rules of a game, fixed in its first event."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


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
