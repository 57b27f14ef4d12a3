"""A tournament's games: made as matches are, their results read from their own streams.

Making: each table a pairing decides becomes ``MatchFormed`` in ``matchmaking-<game id>``
(first and only event of that stream, written in the pairing's transaction), which the game
type's service makes the game from exactly once (``parlor.gamehost.pipeline.matches``), and
the relay that carries matchmaking's lane puts on the bus. A Parlor bot entrant
(``bot:<level>#<n>``) sits as ``bot:<level>``, the game service's own bot; everyone else as
themselves.

Results: a game's ``GameFinished`` as its stream in the store holds it, never as a message
says; the game is a tournament's only if its match names the tournament. The seats that went
berserk are the ones the game's stream records (``SeatBerserked``: the game halved their
clocks), so a berserk is scored only as the game played it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from google.protobuf.timestamp_pb2 import Timestamp

from parlor.common.v1 import common_pb2
from parlor.core.errors import InvalidArgument
from parlor.eventstore import NO_STREAM, EventStore, Metadata, NewEvent, RecordedEvent
from parlor.gametypes.catalogue import CataloguedGame
from parlor.gametypes.clockkeys import AT, SEAT
from parlor.gametypes.seats import BOT_PREFIX
from parlor.gametypes.timecontrol import Kind, TimeControl
from parlor.matchmaking.v1 import events_pb2
from parlor.matchrecords.consent import MATCH_CATEGORY, MATCH_FORMED, match_stream, recorded_match
from parlor.services.tournament.tournaments import Append
from parlor.tournamentrules import Settings, TablesPaired

GAME_FINISHED = common_pb2.GameFinished.DESCRIPTOR.full_name
SEATS_TAKEN = common_pb2.SeatsTaken.DESCRIPTOR.full_name
SEAT_BERSERKED = common_pb2.SeatBerserked.DESCRIPTOR.full_name
BOT_NUMBER = "#"


def bot_entrant(level: str, number: int) -> str:
    """The player id of a Parlor bot entered at ``level``: one per entry, all distinct."""
    return f"{BOT_PREFIX}{level}{BOT_NUMBER}{number}"


def seat_of(player: str) -> common_pb2.Seat:
    """How an entrant sits in a game: a Parlor bot as its level's bot, anyone as themselves."""
    if player.startswith(BOT_PREFIX):
        level, _, number = player.removeprefix(BOT_PREFIX).partition(BOT_NUMBER)
        return common_pb2.Seat(player_id=BOT_PREFIX + level, display_name=f"{level} #{number}")
    return common_pb2.Seat(player_id=player)


def time_control_of(settings: Settings) -> TimeControl:
    """The games' clock from the tournament's settings (milliseconds, rounded up to seconds)."""
    kind = Kind(settings.clock_kind)
    seconds = max(1, -(-settings.clock_initial_ms // 1000))
    increment = -(-settings.clock_increment_ms // 1000)
    if kind is Kind.FISCHER:
        return TimeControl(kind, initial_seconds=seconds, increment_seconds=increment)
    if kind is Kind.NONE:
        return TimeControl(kind)
    return TimeControl(kind, move_seconds=seconds)


def match_appends(
    tournament_id: str, settings: Settings, events: Sequence[object], at: float
) -> list[Append]:
    """The ``MatchFormed`` of every table of the pairings among ``events``."""
    formed_at = Timestamp()
    formed_at.FromDatetime(datetime.fromtimestamp(at, UTC))
    control = time_control_of(settings)
    berserk = settings.is_arena and settings.berserk and control.timed
    out = []
    for event in events:
        if not isinstance(event, TablesPaired):
            continue
        for game_id, seats in event.tables:
            formed = events_pb2.MatchFormed(
                match_id=game_id,
                game_type=settings.game_type,
                seats=[
                    common_pb2.Seat(
                        index=i,
                        player_id=seat_of(p).player_id,
                        display_name=seat_of(p).display_name,
                    )
                    for i, p in enumerate(seats)
                ],
                formed_at=formed_at,
                time_control=control.to_proto(),
                unrated=not settings.rated,
                berserk_allowed=berserk,
                tournament_id=tournament_id,
            )
            new = NewEvent(
                MATCH_FORMED,
                formed.SerializeToString(),
                metadata=Metadata(actor=MATCH_CATEGORY, correlation_id=tournament_id),
            )
            out.append(Append(match_stream(game_id), (new,), NO_STREAM))
    return out


@dataclass(frozen=True)
class Result:
    """A finished tournament game, as the store holds it."""

    tournament_id: str
    game_id: str
    places: tuple[tuple[int, int], ...]
    """(seat index, place) of every seat (place 1 won; equal places shared)."""
    moves: int
    reason: str
    berserk: tuple[int, ...] = ()
    """The seats the game's stream records going berserk (``SeatBerserked``)."""


async def tournament_of(store: EventStore, game_id: str) -> str | None:
    """The tournament whose pairing made this game (its match names it), or None."""
    match = await recorded_match(store, game_id)
    return match.tournament_id or None if match is not None else None


async def result_of(
    store: EventStore, types: Mapping[str, CataloguedGame], stream_id: str
) -> Result | None:
    """The result of the game ``stream_id`` if it is a finished tournament game."""
    category, _, game_id = stream_id.partition("-")
    if category not in {g.category for g in types.values()} or not game_id:
        return None
    try:
        tournament_id = await tournament_of(store, game_id)
    except InvalidArgument:
        return None
    if tournament_id is None:
        return None
    events = await store.read_stream(stream_id)
    finished = next((e for e in reversed(events) if _is(e, GAME_FINISHED)), None)
    if finished is None:
        return None
    return Result(
        tournament_id,
        game_id,
        places(finished),
        moves_of(events),
        _reason(finished),
        berserk_of(events),
    )


def places(finished: RecordedEvent) -> tuple[tuple[int, int], ...]:
    message = common_pb2.GameFinished.FromString(finished.data)
    return tuple(
        (r.seat.index if r.HasField("seat") else i, r.rank or 1)
        for i, r in enumerate(message.results)
    )


def moves_of(events: Sequence[RecordedEvent]) -> int:
    """The moves the seats made (events a seat's clock stamped), as scoring counts them."""
    return sum(1 for e in events if e.metadata.extra.get(AT) and e.metadata.extra.get(SEAT))


def berserk_of(events: Sequence[RecordedEvent]) -> tuple[int, ...]:
    """The seats that went berserk in the game, as its stream records them."""
    return tuple(
        common_pb2.SeatBerserked.FromString(e.data).seat for e in events if _is(e, SEAT_BERSERKED)
    )


def _reason(finished: RecordedEvent) -> str:
    return common_pb2.GameFinished.FromString(finished.data).reason


def _is(event: RecordedEvent, full_name: str) -> bool:
    return event.type in (full_name, full_name.rsplit(".", 1)[1])
