"""States of a game at every ``every``-th version, kept per process: reads start from them.

A read of a game at a version (``GetGame`` at a version, a history page, a watch or a
replay from some version on) needs the state before its first event. Folding from event
1 each time made every such read cost the game's whole length; a game's states at
versions ``every``, ``2·every``, ... are kept as the folds pass them, so a read folds at
most ``every - 1`` events before the ones it returns. A version names one state, and
states are immutable, so a kept state is never stale and is shared by every reader
(views are built from it per viewer, as before: nothing here is a view).

The states are the host's own, folded from the store's events; they are kept in memory
only (a state has no stable serialized form to keep in the store's snapshots table, and
an unpickled row would be a way in). A process that has not read a game yet folds it
once, a page at a time, yielding to the event loop between pages (``GameHost.replayed``)
and with one fold at a time per game (``GameHost._warmed``); the game's length is
bounded (``parlor.gamehost.record.length``), so that first fold is bounded too.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

S = TypeVar("S")

EVERY = 256
"""Versions between kept states: the most events a read folds before its first."""
GAMES = 128
"""Games whose states are kept, the most recently read ones."""


class Checkpoints(Generic[S]):
    """The states of the games read lately at versions ``every``, ``2·every``, ..."""

    def __init__(self, every: int = EVERY, games: int = GAMES) -> None:
        self.every = every
        self.games = games
        self._kept: OrderedDict[str, list[S]] = OrderedDict()

    def nearest(self, game_id: str, version: int) -> tuple[int, S | None]:
        """The latest kept state at or before ``version`` and its version (0, None: none)."""
        kept = self._kept.get(game_id)
        if not kept:
            return 0, None
        self._kept.move_to_end(game_id)
        index = min(len(kept), version // self.every)
        if index == 0:
            return 0, None
        return index * self.every, kept[index - 1]

    def keep(self, game_id: str, version: int, state: S) -> None:
        """Keep ``state``, the game's at ``version``, if it is the next one to keep."""
        if version <= 0 or version % self.every:
            return
        kept = self._kept.get(game_id)
        if kept is None:
            if version != self.every:
                return
            kept = self._kept[game_id] = []
            while len(self._kept) > self.games:
                self._kept.popitem(last=False)
        if len(kept) * self.every + self.every == version:
            kept.append(state)

    def forget(self, game_id: str) -> None:
        self._kept.pop(game_id, None)
