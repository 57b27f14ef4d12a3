"""Word verdicts for Take Four's commands: one ``CheckWords`` batch per command.

A command that needs verdicts (``CallTakeFour`` in auto mode, ``CallDone``: the rules say
which words, ``words_to_check``) is given to the game host as a coroutine function of the
state, so after a conflict the words are listed again from the state the command is
decided on, and checked again.
"""

from __future__ import annotations

from collections.abc import Callable

from parlor.gamehost import words as shared
from parlor.rules import takefour as tf


class Dictionary(shared.Dictionary):
    """The shared dictionary client, attaching to a command the verdicts it needs."""

    async def attach(
        self,
        state: tf.TakeFourState,
        command: tf.TakeFourCommand,
        remaining: Callable[[], float | None] = lambda: None,
    ) -> tf.TakeFourCommand:
        """The command with the verdicts it needs for ``state`` (no call when it needs none)."""
        words = tf.TAKE_FOUR.words_to_check(state, command)
        if not words:
            return command
        found = await self.verdicts(state.config.lexicon, words, remaining())
        return tf.attach_verdicts(state, command, found.__getitem__)
