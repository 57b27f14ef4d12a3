"""Who agreed to sit in a game, checked when it is created and recorded with its first events.

A player may create games seating only themselves (any number of seats) and bots.
Other people agree through matchmaking: a ticket, or a private lobby's invite code
(the lobby *is* the invitation: the host shares the code, whoever joins with it has
accepted). Those games are created by the game service from the match as matchmaking
recorded it, never from a client's list of seats.

The game host records how the seats were agreed in the metadata of the game's
creating events (``extra["consent"]``), so scoring can tell from the event store
alone which games to rate, for live scoring and for a rebuild alike:

- ``creator``: every human seat is the creator (the authenticated caller);
- ``match:<match_id>``: the seats of a match (``matchmaking-<match_id>``'s ``MatchFormed``);
- ``service``: a platform service (token role ``service``; it is the events' actor)
  seated the players and vouches for their agreement (tournaments, operators' tools).

A game without such a record (one created before the rule existed, or written by
anything else) is not rated.

Game ids of matches are reserved: nobody may ``CreateGame`` under an id for which
matchmaking has recorded a match (``matchmaking-<id>`` exists), so a player who
learns a match's game id from their ticket cannot create the game first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from parlor.core.errors import AlreadyExists, PermissionDenied
from parlor.eventstore import EventStore
from parlor.gamehost.host import check_id
from parlor.gamehost.seating import Seat
from parlor.kit.auth import Identity

CONSENT = "consent"
CREATOR = "creator"
MATCH_PREFIX = "match:"
SERVICE = "service"
MATCH_CATEGORY = "matchmaking"


def match_stream(match_id: str) -> str:
    """The stream where matchmaking records a match: its ``MatchFormed`` is version 1."""
    return f"{MATCH_CATEGORY}-{match_id}"


def seat_consent(seats: Iterable[Seat], me: Identity) -> Mapping[str, str]:
    """The consent record of a client's ``CreateGame``, or PERMISSION_DENIED naming a seat.

    Bots and the caller need no one's agreement; a service vouches for the players it seats.
    A player creates only games they sit in (``NOT_SEATED``).
    """
    if me.is_service:
        return {CONSENT: SERVICE}
    players = [s.player_id for s in seats]
    if me.player_id not in players:
        raise PermissionDenied("you may only create games you sit in", reason="NOT_SEATED")
    others = [p for p in players if not Seat(p).is_bot and p != me.player_id]
    if others:
        raise PermissionDenied(
            f"you may seat only yourself and bots; {others[0][:32]!r} has not agreed to play."
            " Invite people with a private lobby (CreateLobby, then they JoinLobby with its code)"
            " or find opponents with a ticket",
            reason="SEAT_NOT_CONSENTED",
        )
    return {CONSENT: CREATOR}


def match_consent(match_id: str) -> Mapping[str, str]:
    return {CONSENT: MATCH_PREFIX + match_id}


def agreed(extra: Mapping[str, str], actor: str | None, players: Iterable[str]) -> bool:
    """Whether every seated human agreed, from a game's first event's stored metadata."""
    consent = extra.get(CONSENT, "")
    humans = {p for p in players if not Seat(p).is_bot}
    if consent == CREATOR:
        return actor is not None and humans <= {actor}
    if consent == SERVICE:
        return actor is not None
    return consent.startswith(MATCH_PREFIX) and consent != MATCH_PREFIX


async def check_game_id_free(store: EventStore, game_id: str) -> None:
    """Refuse a client's game id that names a match: that game is the match's alone."""
    if await store.stream_version(match_stream(check_id(game_id, "game_id"))) > 0:
        raise AlreadyExists(
            "this game id belongs to a match; its game is created by the platform",
            reason="GAME_ID_RESERVED",
        )


async def create_consent(
    store: EventStore, game_id: str, seats: Iterable[Seat], me: Identity
) -> Mapping[str, str]:
    """Every game service's ``CreateGame`` checks: who sits, under which id; the record to keep."""
    consent = seat_consent(seats, me)
    await check_game_id_free(store, game_id)
    return consent
