"""What the service asks of a tournament's state: what is due, what is in play."""

from __future__ import annotations

from typing import Literal

from parlor.tournamentrules.state import ACTIVE, RUNNING, Game, Tournament

Due = Literal["pair", "finish"]


def due(state: Tournament, now_ms: int) -> Due | None:
    """What the driver must do now: ``"pair"``, ``"finish"`` or nothing (None).

    - Arena: pair while its time is not up and at least ``table_size`` active players are
      free (not at a game in play); once the time is up and every game is scored, finish.
    - Swiss: pair once every game of the round is scored and rounds are left (and someone is
      left to pair); finish once the last round is scored (or nobody is left).
    """
    if state.phase != RUNNING:
        return None
    settings = state.rules
    if settings.is_arena:
        if now_ms >= state.arena_ends_at_ms:
            return None if state.in_play else "finish"
        return "pair" if len(free_players(state)) >= settings.table_size else None
    if state.in_play:
        return None
    if len(state.rounds) >= settings.rounds or not state.active():
        return "finish"
    return "pair"


def free_players(state: Tournament) -> list[str]:
    """Active players not seated at a game in play, in the order they joined."""
    return [p for p, e in state.entrants.items() if e.status == ACTIVE and p not in state.in_play]


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
