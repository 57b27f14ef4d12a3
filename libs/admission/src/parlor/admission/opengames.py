"""How many unfinished games of one game type a player may hold: checked before one is made.

A guest token is free, and a game against bots starts bot work at once and (untimed, the
default without two people) stays open until someone ends it. So every way a game is made
for a player asks first how many of that game type they already hold unfinished, and
refuses at ``PARLOR_MAX_OPEN_GAMES_PER_PLAYER`` (20; 0: no cap) with ``RESOURCE_EXHAUSTED``
``TOO_MANY_OPEN_GAMES`` (metadata ``max_open_games``, ``game_type``), before anything is
written:

- the game service's ``CreateGame`` (``Opener.open``; a retried create is answered
  from the store first, so a retry of a game already made is never refused);
- matchmaking's ``CreateTicket``, ``CreateLobby`` and ``JoinLobby`` (a ticket that would
  match into one more game).

The count is the game directory's (``Directory.open_games``: rows seating the player with
no ``GameFinished`` yet), so it holds across replicas and services; a game that finishes
(won, drawn, resigned, timed out) frees its slot. A game the player has left while other
people play on frees it too (``GameType.departures``: resigned from a game of three, left a
Take Four race, ran out of time there): they can do nothing more there, and the others could
otherwise hold the slot for as long as they liked. A game the player left where only bots
play on still counts until it ends: it still costs the platform, and leaving must not buy
room for one more. Services (token role ``service``) and bots are not capped, and a match is
always made into its game (``Pipeline.create_from_match``): a player who reached the cap
while their one waiting ticket waited (``TICKET_EXISTS`` allows one) gets that game too.

``CreateGame`` holds the cap under any burst, across replicas and processes: the count and
the create are made under one claim per player and game type (``OpenGames.claiming``: in
PostgreSQL a transaction holding an advisory lock of the player's, with a row in
``game_open_claims`` for the game, committed only after the game's first events are; one
waiter per player per process, the others wait in the process). A game made but not yet in
the directory counts by its claim, so the directory may lag the store (it is caught up at
most once a second for the count) without letting a burst through. Matchmaking's checks
(tickets, lobbies) are the soft ``check_open_games``: a ticket waits, at most one per player,
and its match is made into its game whatever the count then.

``parlor.directory.eventscan.EventScan`` counts from the events themselves, reading every one:
for a store without the directory's tables (the in-memory store of unit tests).

A player who reached the cap finds the games they hold with ``ListGames``
(``in_progress_only`` and their ``player_id``: the web lobby's "Your games in progress",
``parlor games --in-progress``) and resumes or resigns one there.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol, TypeVar

from parlor.core.errors import ResourceExhausted
from parlor.kit.auth import Identity
from parlor.kit.settings import setting

REASON = "TOO_MANY_OPEN_GAMES"
R = TypeVar("R")


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


class Claims(OpenGames, Protocol):
    """Where a player's unfinished games are counted, and their creations claimed one at a
    time (``within_cap``)."""

    def claiming(
        self, player_id: str, game_id: str, at_most: int
    ) -> AbstractAsyncContextManager[int]:
        """Held around the creation of ``game_id`` for ``player_id``: gives how many unfinished
        games seat them (counting stops at ``at_most``), the games claimed but not yet listed
        included; no other claim of the player's runs meanwhile, in any process. The claim
        stays if the body returns and goes if it raises."""
        ...


def too_many(held: int, limit: int, game_type: str) -> ResourceExhausted:
    return ResourceExhausted(
        f"you already have {held} unfinished {game_type} games, the most one player may"
        f" have at once ({limit}); finish or resign one first",
        reason=REASON,
        metadata={"max_open_games": str(limit), "game_type": game_type},
    )


async def within_cap(
    games: Claims | None,
    caller: Identity,
    limit: int,
    game_type: str,
    game_id: str,
    create: Callable[[], Awaitable[R]],
) -> R:
    """``create()`` the game ``game_id`` for ``caller`` under their claim (``claiming``), or
    refuse it (``TOO_MANY_OPEN_GAMES``) if they hold ``limit`` unfinished already; services,
    a limit of 0 and no count are not capped."""
    if games is None or limit <= 0 or caller.is_service:
        return await create()
    async with games.claiming(caller.player_id, game_id, limit) as held:
        if held >= limit:
            raise too_many(held, limit, game_type)
        return await create()


async def check_open_games(
    games: OpenGames | None, caller: Identity, limit: int, game_type: str
) -> None:
    """Refuse ``caller`` one more game of ``game_type`` if they hold ``limit`` unfinished
    already (``TOO_MANY_OPEN_GAMES``); services, a limit of 0 and no count pass."""
    if games is None or limit <= 0 or caller.is_service:
        return
    held = await games.open_games(caller.player_id, limit)
    if held >= limit:
        raise too_many(held, limit, game_type)
