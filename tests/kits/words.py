"""A dictionary with no server behind it, for tests of word games' services."""

from __future__ import annotations

from collections.abc import Collection

from parlor.gamehost.words.words import Dictionary


class EveryWord(Dictionary):
    """Every word is good, and a lexicon is its own id."""

    def __init__(self) -> None:
        pass

    async def lexicon_id(self, lexicon: str, remaining: float | None = None) -> str:
        return lexicon

    async def verdicts(
        self, lexicon_id: str, words: Collection[str], remaining: float | None = None
    ) -> dict[str, bool]:
        return dict.fromkeys(words, True)
