"""The words an Upwords command is decided by, for the dictionary to judge (``WordChecks`` in
``parlor.gamehost.words.words``): a play's in auto mode, and a challenge's, the pending play's."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace

from parlor.rules.upwords.config import WordChecking
from parlor.rules.upwords.crossword import words_formed
from parlor.rules.upwords.game import pending_words
from parlor.rules.upwords.moves import Challenge, Command, Play
from parlor.rules.upwords.state import UpwordsState


def words_to_check(state: UpwordsState, command: Command) -> Collection[str]:
    """A play's words in auto mode (every board rule is checked first), a challenge's of
    another seat's pending play; none else (the engine refuses a challenge of nothing)."""
    if isinstance(command, Play) and state.config.word_checking is WordChecking.AUTO:
        return words_formed(state, command)
    pending = state.pending
    if isinstance(command, Challenge) and pending is not None and pending.seat != command.seat:
        return pending_words(state)
    return ()


def attach_verdicts(state: UpwordsState, command: Command, verdicts: Mapping[str, bool]) -> Command:
    """The play or challenge carrying the dictionary's ``verdicts`` on its words."""
    if isinstance(command, Play | Challenge):
        return replace(command, verdicts=verdicts)
    return command
