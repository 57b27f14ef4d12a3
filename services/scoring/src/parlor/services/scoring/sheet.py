"""A finished game's scoresheet, decoded from the game's SeatsTaken and GameFinished events.

Scoring knows no game's own events: every game stream starts with
``parlor.common.v1.SeatsTaken`` (who sits where) and ends with
``parlor.common.v1.GameFinished`` (rank and score per seat), whatever the game type.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime

from parlor.accounts import canonical
from parlor.common.v1 import common_pb2
from parlor.eventstore import EventStore, RecordedEvent
from parlor.gametypes.clockkeys import AT, SEAT
from parlor.gametypes.seats import BOT_PREFIX
from parlor.matchrecords.consent import claimed_match, rated, recorded_match

SEATS_TAKEN = common_pb2.SeatsTaken.DESCRIPTOR.full_name
GAME_FINISHED = common_pb2.GameFinished.DESCRIPTOR.full_name


def is_type(event: RecordedEvent, full_name: str) -> bool:
    """The full protobuf name, or its last part (services may store either)."""
    return event.type in (full_name, full_name.rsplit(".", 1)[1])


@dataclass(frozen=True)
class SeatResult:
    seat: int
    player_id: str
    display_name: str
    rank: int
    score: int
    timed_out: bool = False
    """The seat ran out of time (``GameFinished`` says so since clocks)."""
    departure: str = ""
    """Why the seat left before the end (``parlor.core.game.DEPARTURES``), "" if it did not
    or the game was stored before departures were recorded."""
    moves: int | None = None
    """Commands the seat made that did not end the game (``Moves``); None: not known (an
    untimed game records no acting seat)."""

    @property
    def is_bot(self) -> bool:
        return self.player_id.startswith(BOT_PREFIX)


@dataclass(frozen=True)
class FinishedGame:
    """One game's result, placed in the global order by its GameFinished event."""

    stream_id: str
    game_type: str
    game_id: str
    position: int
    finished_at: datetime
    reason: str
    results: tuple[SeatResult, ...]


def counted_as(game: FinishedGame, aliases: Mapping[str, str]) -> FinishedGame:
    """The game with each claimed guest's seat under the account that claimed it
    (``parlor.accounts.guests``): the events keep the guest id, scoring counts the account."""
    if not any(r.player_id in aliases for r in game.results):
        return game
    results = tuple(replace(r, player_id=canonical(aliases, r.player_id)) for r in game.results)
    return replace(game, results=results)


def seats_of(event: RecordedEvent) -> tuple[tuple[str, str], ...]:
    taken = common_pb2.SeatsTaken.FromString(event.data)
    return tuple((s.player_id, s.display_name or s.player_id) for s in taken.seats)


async def seats_agreed(store: EventStore, event: RecordedEvent) -> bool:
    """Whether every human in a game's ``SeatsTaken`` agreed to play (a game to rate).

    The game host records how the seats were agreed with the game's first events
    (``parlor.matchrecords.consent``); a game without that record is not scored, nor one whose
    record the store does not bear out (a match it does not hold, or with other seats; a
    service not allowed to vouch for players). A challenge's match its challenger made
    unrated (``MatchFormed.unrated``) is agreed but not rated.
    """
    meta = event.metadata
    game_type, _, game_id = event.stream_id.partition("-")
    players = [p for p, _ in seats_of(event)]
    if not await rated(store, meta.extra, meta.actor, players, (game_type, game_id)):
        return False
    match_id = claimed_match(meta.extra)
    match = await recorded_match(store, match_id) if match_id is not None else None
    return match is None or not match.unrated


class Moves:
    """How many commands each seat made, from the stamps the game host records with a timed
    game's events (``clock_seat`` on a command's first event: the seat that acted; ``clock_at``
    on every event: the command's time), fed the game's events in order.

    The command that ended the game (its time is the ``GameFinished``'s) does not count: a
    seat that moves once and resigns made one move. A timeout has no acting seat. An untimed
    game has no stamps: its moves are not known (None).
    """

    def __init__(self) -> None:
        self.counts: dict[int, int] = {}
        self.last: tuple[int, str] | None = None
        self.stamped = False

    def add(self, event: RecordedEvent) -> None:
        extra = event.metadata.extra
        at = extra.get(AT)
        if at is None:
            return
        self.stamped = True
        seat = extra.get(SEAT, "")
        if seat.isdigit():
            self.counts[int(seat)] = self.counts.get(int(seat), 0) + 1
            self.last = (int(seat), at)

    def of(self, finished: RecordedEvent, seat: int) -> int | None:
        """The seat's moves once ``finished`` (the game's GameFinished) ended the game."""
        if not self.stamped:
            return None
        made = self.counts.get(seat, 0)
        last = self.last
        if last is not None and last[0] == seat and finished.metadata.extra.get(AT) == last[1]:
            made -= 1
        return made


def finished_game(
    event: RecordedEvent, seats: tuple[tuple[str, str], ...], moves: Moves | None = None
) -> FinishedGame:
    """The scoresheet; the time is the event's recorded time (never the wall clock).
    ``moves``: the game's events before ``event``, counted (None: not known)."""
    finished = common_pb2.GameFinished.FromString(event.data)
    game_type, _, game_id = event.stream_id.partition("-")
    results = []
    for i, result in enumerate(finished.results):
        index = result.seat.index if result.HasField("seat") else i
        player, name = seats[index] if index < len(seats) else (f"seat:{index}", "")
        results.append(
            SeatResult(
                index,
                player,
                name,
                result.rank,
                result.score,
                result.timed_out,
                result.departure,
                None if moves is None else moves.of(event, index),
            )
        )
    return FinishedGame(
        stream_id=event.stream_id,
        game_type=finished.game_type or game_type,
        game_id=finished.game_id or game_id,
        position=event.position,
        finished_at=event.recorded_at,
        reason=finished.reason,
        results=tuple(results),
    )
