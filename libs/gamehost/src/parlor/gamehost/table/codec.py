"""How a game's domain events become stored payloads and back (protobuf, in each service).

Each game service writes its own ``EventCodec`` (its event messages are its own);
the pieces every one of them needs alike live here: reading a stored payload into
the message its type names, and the ``EventInfo`` a client sees with each event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar

from google.protobuf.message import DecodeError, Message
from google.protobuf.message_factory import GetMessageClass

from parlor.common.v1 import common_pb2
from parlor.core.errors import ParlorError
from parlor.core.game import GameContract
from parlor.gamehost.table.seating import GameFinished, SeatBerserked, SeatsTaken, Standing
from parlor.gamehost.table.timestamps import set_timestamp
from parlor.gametypes.seats import Seat, is_bot_account
from parlor.gametypes.timecontrol import TimeControl

E = TypeVar("E")


class EventCodec(Protocol[E]):
    """Turns domain events into (type name, payload bytes) and back; lossless both ways."""

    def encode(self, event: E) -> tuple[str, bytes]: ...

    def decode(self, event_type: str, data: bytes) -> E: ...


def parse_payload(
    types: Mapping[str, type[Message]], game: str, event_type: str, data: bytes
) -> Message:
    """The stored payload as the message its type names; an unknown type or bad bytes
    is a ``ParlorError`` naming the game and the type (a store no longer readable)."""
    cls = types.get(event_type)
    if cls is None:
        raise ParlorError(f"unknown {game} event type {event_type!r}")
    message = cls()
    try:
        message.ParseFromString(data)
    except DecodeError as exc:
        raise ParlorError(f"corrupt {event_type} payload: {exc}") from exc
    return message


def event_info(recorded: Any) -> common_pb2.EventInfo:
    """Where a stored event sits (stream, version, global position, type, time), for clients.

    ``recorded`` is the game host's ``Recorded`` (its ``record`` is the stored event).
    """
    record = recorded.record
    out = common_pb2.EventInfo(
        stream_id=record.stream_id,
        version=record.version,
        position=record.position,
        type=record.type,
    )
    set_timestamp(out.recorded_at, record.recorded_at)
    return out


class Bodies:
    """A game's event messages, read from its ``GameEvent``'s ``body`` oneof (the proto says
    which messages are events, and the field each is shown in): no table written by hand."""

    def __init__(self, game_event: type[Message], game: str) -> None:
        oneof = game_event.DESCRIPTOR.oneofs_by_name["body"]
        self.game = game
        self.game_event = game_event
        self.types: dict[str, type[Message]] = {}
        self.fields: dict[str, str] = {}
        for field in oneof.fields:
            body: Any = field.message_type
            self.types[body.full_name] = GetMessageClass(body)
            self.fields[body.full_name] = field.name

    def parse(self, event_type: str, data: bytes) -> Message:
        return parse_payload(self.types, self.game, event_type, data)

    def wrap(self, message: Message, **fields: Any) -> Any:
        """The ``GameEvent`` holding ``message`` in its body (and ``fields``)."""
        out = self.game_event(**fields)
        getattr(out, self.fields[message.DESCRIPTOR.full_name]).CopyFrom(message)
        return out

    def shown(self, message: Message, info: common_pb2.EventInfo, **fields: Any) -> Any:
        """The ``GameEvent`` of a stored event as a viewer sees it, ``message`` (the event's
        own or, Take Four's joker swap shown as a move, another), with ``info``, whose type
        then names the message shown, and ``fields``."""
        shown = message.DESCRIPTOR.full_name
        if info.type and info.type != shown:
            renamed = common_pb2.EventInfo()
            renamed.CopyFrom(info)
            renamed.type = shown
            info = renamed
        return self.wrap(message, info=info, **fields)


class ProtoCodec(Generic[E]):
    """The ``EventCodec`` of a game whose events are protobuf messages: the message's full
    name is the stored type; ``to_message`` and ``of_message`` are the game's own mapping."""

    def __init__(
        self,
        bodies: Bodies,
        to_message: Callable[[E], Message],
        of_message: Callable[[Message], E],
    ) -> None:
        self.bodies = bodies
        self.to_message = to_message
        self.of_message = of_message

    def encode(self, event: E) -> tuple[str, bytes]:
        message = self.to_message(event)
        return message.DESCRIPTOR.full_name, message.SerializeToString(deterministic=True)

    def decode(self, event_type: str, data: bytes) -> E:
        return self.of_message(self.bodies.parse(event_type, data))


def seat_pb(index: int, seat: Seat) -> common_pb2.Seat:
    """A seat as views show it: ``bot`` for Parlor's own bots and bot accounts alike."""
    return common_pb2.Seat(
        index=index, player_id=seat.player_id, display_name=seat.name, bot=seat.shown_as_bot
    )


def _recorded_seat(index: int, seat: Seat) -> common_pb2.Seat:
    """A seat as ``SeatsTaken`` records it: ``bot`` only for a bot account (Parlor's own
    bots are known by their id, and keep the bytes they always had)."""
    return common_pb2.Seat(
        index=index, player_id=seat.player_id, display_name=seat.name, bot=seat.bot_account
    )


def game_fields(game_id: str, version: int, seats: Sequence[Seat]) -> dict[str, Any]:
    """The fields a game's ``Game`` message starts with: which game, at which version, and
    who sits at it (keyword arguments for the message)."""
    return {
        "game_id": game_id,
        "version": version,
        "seats": [seat_pb(i, s) for i, s in enumerate(seats)],
    }


def play_fields(
    engine: GameContract[Any, Any, Any], state: Any, viewer: int | None
) -> dict[str, Any]:
    """The fields of play every game's ``Game`` message has alike (keyword arguments): the
    seats the game waits for (``to_move``), the winners once it is over and the viewer's seat."""
    result = engine.result(state)
    return {
        "seats_to_move": engine.to_move(state),
        "winners": result.winners if result is not None else (),
        "viewer_seat": viewer,
    }


def table_fields(
    into: type[Message],
    engine: GameContract[Any, Any, Any],
    game_id: str,
    version: int,
    table: Any,
    viewer: int | None,
) -> dict[str, Any]:
    """The fields every game's ``Game`` message (``into``) starts with, as keyword arguments:
    ``game_fields`` of the table (``seating.Table``: its seats), then ``play_fields`` of its
    game, the viewer's seat only where ``into`` has that field."""
    fields = {
        **game_fields(game_id, version, table.seats),
        **play_fields(engine, table.game, viewer),
    }
    if "viewer_seat" not in into.DESCRIPTOR.fields_by_name:
        del fields["viewer_seat"]
    return fields


def table_event_pb(event: object, game_type: str) -> Message | None:
    """``SeatsTaken``, ``GameFinished`` and ``SeatBerserked``, the platform's own events
    in every game, as messages (else None)."""
    if isinstance(event, SeatsTaken):
        taken = common_pb2.SeatsTaken(
            seats=[_recorded_seat(i, s) for i, s in enumerate(event.seats)],
            matched=event.matched,
            berserk_allowed=event.berserk_allowed,
        )
        if event.time_control.timed:  # untimed games keep the bytes they always had
            taken.time_control.CopyFrom(event.time_control.to_proto())
        return taken
    if isinstance(event, GameFinished):
        return common_pb2.GameFinished(
            game_type=game_type,
            reason=event.reason,
            results=[
                common_pb2.SeatResult(
                    seat=common_pb2.Seat(index=i),
                    score=s.score,
                    rank=s.rank,
                    timed_out=s.timed_out,
                    departure=s.departure,
                )
                for i, s in enumerate(event.standings)
            ],
        )
    if isinstance(event, SeatBerserked):
        return common_pb2.SeatBerserked(seat=event.seat)
    return None


def table_event_of(message: Message) -> SeatsTaken | GameFinished | SeatBerserked | None:
    """The events every game has, from their messages (else None)."""
    if isinstance(message, common_pb2.SeatsTaken):
        return SeatsTaken(
            tuple(
                Seat(s.player_id, s.display_name, s.bot and is_bot_account(s.player_id))
                for s in message.seats
            ),
            TimeControl.from_proto(message.time_control),
            message.matched,
            message.berserk_allowed,
        )
    if isinstance(message, common_pb2.GameFinished):
        return GameFinished(
            message.reason,
            tuple(Standing(r.rank, r.score, r.timed_out, r.departure) for r in message.results),
        )
    if isinstance(message, common_pb2.SeatBerserked):
        return SeatBerserked(message.seat)
    return None
