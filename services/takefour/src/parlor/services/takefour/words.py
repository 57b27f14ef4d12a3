"""Word verdicts from the dictionary service: one ``CheckWords`` batch per command.

A command that needs verdicts (``CallTakeFour`` in auto mode, ``CallDone``) is given
to the game host as a coroutine function of the state, so after a conflict the
words are listed again from the state the command is decided on, and checked again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from parlor.gamehost import words as shared
from parlor.gamehost.words import DictionarySettings, service_token
from parlor.kit.auth import AuthSettings
from parlor.rules import takefour as tf
from parlor.rules.takefour import CallDone, CallTakeFour

MAX_BATCH = 20_000


class Dictionary(shared.Dictionary):
    """The shared dictionary client, counting batches, splitting any past the batch limit."""

    def __init__(self, settings: DictionarySettings, auth_settings: AuthSettings) -> None:
        super().__init__(
            settings.target, service_token(auth_settings, "takefour"), settings.timeout_seconds
        )
        self.batches = 0

    async def verdicts(  # type: ignore[override]
        self, lexicon: str, words: frozenset[str], remaining: float | None = None
    ) -> dict[str, bool]:
        """Whether each word is in the lexicon: one batch (more only past the batch limit)."""
        ordered = sorted(words)
        found: dict[str, bool] = {}
        for start in range(0, len(ordered), MAX_BATCH):
            self.batches += 1
            found.update(
                await super().verdicts(lexicon, ordered[start : start + MAX_BATCH], remaining)
            )
        return found

    async def attach(
        self,
        state: tf.TakeFourState,
        command: tf.TakeFourCommand,
        remaining: Callable[[], float | None] = lambda: None,
    ) -> tf.TakeFourCommand:
        """The command with the verdicts it needs for ``state`` (no call when it needs none)."""
        if not isinstance(command, CallTakeFour | CallDone):
            return command
        words = tf.TAKE_FOUR.words_to_check(state, command)
        if not words:
            return command
        found = await self.verdicts(state.config.lexicon, words, remaining())
        return replace(command, verdicts=found)
