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
- ``service``: a platform service (token role ``service``, meant for this game's service:
  its ``aud`` names it, or the interceptor refused it; it is the events' actor) seated the
  players and vouches for their agreement (tournaments, operators' tools).

The record is itself only a claim (a compromised game service writes whatever it likes,
and holds a service key of its own), so scoring checks it before rating (``rated``):

- ``creator``: every human seat is the events' actor;
- ``match:<id>``: the store holds ``matchmaking-<id>`` version 1, a ``MatchFormed`` for
  this game type whose seats are this game's seats, in order, and the game's id is the
  match's (a match rates one game, and only its own);
- ``service``: the actor is one of ``RATED_SERVICES`` (matchmaking only; tournaments
  later). Any other service's games, ``service:upwords`` creating a game
  seating two people say, are played but not rated.

A game without such a record (one created before the rule existed, or written by
anything else), or whose record does not check out, is not rated.

Game ids of matches are reserved: nobody may ``CreateGame`` under an id for which
matchmaking has recorded a match (``matchmaking-<id>`` exists), so a player who
learns a match's game id from their ticket cannot create the game first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from parlor.core.errors import AlreadyExists, InvalidArgument, PermissionDenied
from parlor.eventstore import EventStore
from parlor.gametypes.ids import check_id
from parlor.gametypes.seats import Seat
from parlor.kit.auth import SERVICE_SUBJECT_PREFIX, Identity
from parlor.matchmaking.v1 import events_pb2

CONSENT = "consent"
CREATOR = "creator"
MATCH_PREFIX = "match:"
SERVICE = "service"
MATCH_CATEGORY = "matchmaking"
MATCH_FORMED = events_pb2.MatchFormed.DESCRIPTOR.full_name
RATED_SERVICES = frozenset({SERVICE_SUBJECT_PREFIX + MATCH_CATEGORY, MATCH_CATEGORY})
"""The services whose ``service`` consent scoring believes (the actor of the game's events):
matchmaking, by its service subject or the actor name it creates match games under."""


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


def agreed(
    extra: Mapping[str, str],
    actor: str | None,
    players: Iterable[str],
    match: events_pb2.MatchFormed | None = None,
    game: tuple[str, str] = ("", ""),
) -> bool:
    """Whether every seated human agreed, from a game's first event's stored metadata.

    ``match`` is the ``MatchFormed`` the store holds for a ``match:<id>`` record (None if it
    holds none) and ``game`` the game's (game type, game id): a match's record counts only
    for the match's own game with the match's seats.
    """
    consent = extra.get(CONSENT, "")
    seated = list(players)
    humans = {p for p in seated if not Seat(p).is_bot}
    if consent == CREATOR:
        return actor is not None and humans <= {actor}
    if consent == SERVICE:
        return actor in RATED_SERVICES
    match_id = claimed_match(extra)
    if match_id is None or match is None:
        return False
    return (
        match.match_id == match_id
        and (match.game_type, match.match_id) == game
        and [s.player_id for s in match.seats] == seated
    )


def claimed_match(extra: Mapping[str, str]) -> str | None:
    """The match id a ``match:<id>`` record names, if it names one."""
    consent = extra.get(CONSENT, "")
    if not consent.startswith(MATCH_PREFIX) or consent == MATCH_PREFIX:
        return None
    return consent.removeprefix(MATCH_PREFIX)


async def recorded_match(store: EventStore, match_id: str) -> events_pb2.MatchFormed | None:
    """``matchmaking-<match_id>`` version 1 as matchmaking stored it, if it is a ``MatchFormed``
    of that match (None: there is none, or the id is one no match could have)."""
    try:
        recorded = await store.read_stream(match_stream(check_id(match_id, "match_id")), 1, 1)
    except InvalidArgument:
        return None  # an id no match could have
    if not recorded or recorded[0].type != MATCH_FORMED:
        return None
    match = events_pb2.MatchFormed.FromString(recorded[0].data)
    return match if match.match_id == match_id else None


async def rated(
    store: EventStore,
    extra: Mapping[str, str],
    actor: str | None,
    players: Sequence[str],
    game: tuple[str, str],
) -> bool:
    """``agreed``, with the match a ``match:<id>`` record names read from the store."""
    match_id = claimed_match(extra)
    match = await recorded_match(store, match_id) if match_id is not None else None
    return agreed(extra, actor, players, match, game)


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
