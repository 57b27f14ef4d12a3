"""What the service asks of a tournament's state: what is due, what is in play."""

from __future__ import annotations

from typing import Literal

from parlor.tournamentrules.pairing import arena_can_pair
from parlor.tournamentrules.state import RUNNING, Game, Tournament

Due = Literal["pair", "finish"]


def due(state: Tournament, now_ms: int) -> Due | None:
    """What the driver must do now: ``"pair"``, ``"finish"`` or nothing (None).

    - Arena: pair while its time is not up and the free players (active, not at a game in
      play) make a table by the pairing rules (``table_size`` of them; at two seats, two who
      did not just play each other, unless they are the only two active); once the time is
      up and every game is scored, finish.
    - Swiss: pair once every game of the round is scored and rounds are left (and someone is
      active: while everyone left is paused, wait for a rejoin or a removal); finish once
      the last round is scored, or once nobody is left (all withdrawn or removed).
    """
    if state.phase != RUNNING:
        return None
    settings = state.rules
    if settings.is_arena:
        if now_ms >= state.arena_ends_at_ms:
            return None if state.in_play else "finish"
        return "pair" if arena_can_pair(state) else None
    if state.in_play:
        return None
    if len(state.rounds) >= settings.rounds or not state.playing():
        return "finish"
    return "pair" if state.active() else None


def free_players(state: Tournament) -> list[str]:
    """Active players not seated at a game in play, in the order they joined."""
    return state.free()


def games_in_play(state: Tournament) -> list[Game]:
    """The games paired and not scored yet, in the order paired."""
    return [g for g in state.games.values() if not g.scored]


def tables_needed(state: Tournament) -> int:
    """The most game ids the next ``Pair`` can use (give at least this many)."""
    settings = state.rules
    players = len(free_players(state)) if settings.is_arena else len(state.active())
    if settings.is_arena:
        return players // settings.table_size
    return -(-players // settings.table_size)
