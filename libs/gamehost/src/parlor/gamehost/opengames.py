"""How many unfinished games of one game type a player may hold: checked before one is made.

A guest token is free, and a game against bots starts bot work at once and (untimed, the
default without two people) stays open until someone ends it. So every way a game is made
for a player asks first how many of that game type they already hold unfinished, and
refuses at ``PARLOR_MAX_OPEN_GAMES_PER_PLAYER`` (20; 0: no cap) with ``RESOURCE_EXHAUSTED``
``TOO_MANY_OPEN_GAMES`` (metadata ``max_open_games``, ``game_type``), before anything is
written:

- the game service's ``CreateGame`` (``GameService.open``; a retried create is answered
  from the store first, so a retry of a game already made is never refused);
- matchmaking's ``CreateTicket``, ``CreateLobby`` and ``JoinLobby`` (a ticket that would
  match into one more game).

The count is the game directory's (``Directory.open_games``: rows seating the player with
no ``GameFinished`` yet, caught up to the store's head first), so it holds across replicas
and services; a game that finishes (won, drawn, resigned, timed out) frees its slot, and so
does one the player has left while the others play on (``GameType.departures``: resigned
from a game of three, left a Take Four race, ran out of time there), where they can do
nothing more and the others could otherwise hold the slot for as long as they liked.
Services (token role ``service``) and bots are not capped, and a match is always made into
its game (``create_from_match``): a player who reached the cap while their one waiting
ticket waited (``TICKET_EXISTS`` allows one) gets that game too. The count and the create
are not one transaction, so creates racing in parallel for one player may pass the cap by
as many as race; the rate limit bounds those.

``parlor.gamehost.directory.EventScan`` counts from the events themselves, reading every one:
for a store without the directory's tables (the in-memory store of unit tests).

A player who reached the cap finds the games they hold with ``ListGames``
(``in_progress_only`` and their ``player_id``: the web lobby's "Your games in progress",
``parlor games --in-progress``) and resumes or resigns one there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from parlor.core.errors import ResourceExhausted
from parlor.kit.auth import Identity
from parlor.kit.settings import setting

REASON = "TOO_MANY_OPEN_GAMES"


@dataclass(frozen=True)
class OpenGamesSettings:
    max_per_player: int = setting(
        "PARLOR_MAX_OPEN_GAMES_PER_PLAYER",
        "unfinished games of one game type a player may hold at once, however made"
        " (CreateGame, tickets, lobbies; services and bots are not capped; 0: no cap)",
        20,
    )


class OpenGames(Protocol):
    """Where a player's unfinished games of one game type are counted."""

    async def open_games(self, player_id: str, at_most: int) -> int:
        """How many unfinished games seat ``player_id`` (counting stops at ``at_most``)."""
        ...


async def check_open_games(
    games: OpenGames | None, caller: Identity, limit: int, game_type: str
) -> None:
    """Refuse ``caller`` one more game of ``game_type`` if they hold ``limit`` unfinished
    already (``TOO_MANY_OPEN_GAMES``); services, a limit of 0 and no count pass."""
    if games is None or limit <= 0 or caller.is_service:
        return
    held = await games.open_games(caller.player_id, limit)
    if held >= limit:
        raise ResourceExhausted(
            f"you already have {held} unfinished {game_type} games, the most one player may"
            f" have at once ({limit}); finish or resign one first",
            reason=REASON,
            metadata={"max_open_games": str(limit), "game_type": game_type},
        )
