"""Connect 4x4's events and views, between the rule engine's dataclasses and protobuf."""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.message import Message

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.gamehost.codec import Bodies, ProtoCodec, seat_pb, table_event_of, table_event_pb
from parlor.gamehost.export import with_seat_tags
from parlor.gamehost.seating import GameFinished, SeatsTaken, Table
from parlor.gamehost.views import ElementWire
from parlor.rules import connect4x4 as c4
from parlor.rules.connect4x4.contract import ENGINE

SIDES = {c4.Side.FRONT: pb.SIDE_FRONT, c4.Side.BACK: pb.SIDE_BACK}
SIDES_BACK = {v: k for k, v in SIDES.items()}
CONTENT = {
    c4.Content.EMPTY: pb.CONTENT_EMPTY,
    c4.Content.CHECKER: pb.CONTENT_CHECKER,
    c4.Content.BLOCKER: pb.CONTENT_BLOCKER,
    c4.Content.DEAD: pb.CONTENT_DEAD,
}
STATUS = {
    c4.Status.IN_PROGRESS: pb.STATUS_IN_PROGRESS,
    c4.Status.WON: pb.STATUS_WON,
    c4.Status.TIED: pb.STATUS_TIED,
}

Event = c4.Event | SeatsTaken | GameFinished


def config_pb(config: c4.Config) -> pb.Config:
    return pb.Config(
        players=config.players,
        first_seat=config.first_seat,
        blockers_count_toward_lines=config.blockers_count_toward_lines,
    )


def config_of(message: pb.Config) -> c4.Config:
    return c4.Config(
        players=message.players,
        first_seat=message.first_seat,
        blockers_count_toward_lines=message.blockers_count_toward_lines,
    )


def _positions(line: tuple[c4.Position, ...]) -> list[pb.Position]:
    return [pb.Position(column=p.column, row=p.row) for p in line]


def event_pb(event: Event) -> Message:
    """The protobuf message an event is stored and published as."""
    common = table_event_pb(event, "connect4x4")
    if common is not None:
        return common
    match event:
        case c4.GameCreated(config):
            return pb.GameCreated(config=config_pb(config))
        case c4.CheckerDropped(seat, column, side, row):
            return pb.CheckerDropped(seat=seat, column=column, side=SIDES[side], row=row)
        case c4.BlockerDropped(seat, column, row, dead):
            return pb.BlockerDropped(
                seat=seat,
                column=column,
                row=row,
                dead=[pb.Cell(column=c.column, row=c.row, side=SIDES[c.side]) for c in dead],
            )
        case c4.PlayerSkipped(seat, reason):
            return pb.PlayerSkipped(seat=seat, reason=reason)
        case c4.GameWon(seat, line, reason):
            return pb.GameWon(seat=seat, line=_positions(line), reason=reason)
        case c4.GameTied(reason):
            return pb.GameTied(reason=reason)
        case c4.PlayerResigned(seat):
            return pb.PlayerResigned(seat=seat)
        case c4.PlayerTimedOut(seat):
            return pb.PlayerTimedOut(seat=seat)
    raise TypeError(f"not a Connect 4x4 event: {event!r}")


def event_of(message: Message) -> Event:
    common = table_event_of(message)
    if common is not None:
        return common
    match message:
        case pb.GameCreated():
            return c4.GameCreated(config_of(message.config))
        case pb.CheckerDropped():
            return c4.CheckerDropped(
                message.seat, message.column, SIDES_BACK[message.side], message.row
            )
        case pb.BlockerDropped():
            dead = tuple(c4.Cell(c.column, c.row, SIDES_BACK[c.side]) for c in message.dead)
            return c4.BlockerDropped(message.seat, message.column, message.row, dead)
        case pb.PlayerSkipped():
            return c4.PlayerSkipped(message.seat, message.reason)
        case pb.GameWon():
            line = tuple(c4.Position(p.column, p.row) for p in message.line)
            return c4.GameWon(message.seat, line, message.reason)
        case pb.GameTied():
            return c4.GameTied(message.reason)
        case pb.PlayerResigned():
            return c4.PlayerResigned(message.seat)
        case pb.PlayerTimedOut():
            return c4.PlayerTimedOut(message.seat)
    raise TypeError(f"not a Connect 4x4 event message: {type(message).__name__}")


BODIES = Bodies(pb.GameEvent, "Connect 4x4")


class Codec(ProtoCodec[Event]):
    """The ``EventCodec`` of Connect 4x4 games: the protobuf message's full name is the type."""

    def __init__(self) -> None:
        super().__init__(BODIES, event_pb, event_of)


def game_event_pb(event: Event, info: common_pb2.EventInfo) -> pb.GameEvent:
    out: pb.GameEvent = BODIES.wrap(event_pb(event), info=info)
    if isinstance(event, c4.CheckerDropped):
        out.notation = c4.format_move(c4.DropChecker(event.seat, event.column, event.side))
    elif isinstance(event, c4.BlockerDropped):
        out.notation = c4.format_move(c4.DropBlocker(event.seat, event.column))
    return out


def _hole_pb(h: c4.Hole) -> pb.Hole:
    return pb.Hole(content=CONTENT[h.content], seat=h.seat or 0)


# The board's 84 holes go in as one parse of kept wire bytes, not 84 messages.
_FRONT = ElementWire(pb.Game, "front", _hole_pb)
_BACK = ElementWire(pb.Game, "back", _hole_pb)


def game_pb(game_id: str, version: int, table: Table[c4.State], viewer: int | None) -> pb.Game:
    v = c4.view(table.game, viewer)
    outcome = ENGINE.result(table.game)
    out = pb.Game(
        game_id=game_id,
        version=version,
        seats=[seat_pb(i, s) for i, s in enumerate(table.seats)],
        config=config_pb(v.config),
        status=STATUS.get(v.status, pb.STATUS_UNSPECIFIED),
        turn=v.turn or 0,
        checkers_left=list(v.checkers_left),
        blockers_left=list(v.blockers_left),
        resigned=list(v.resigned),
        timed_out=list(table.game.timed_out),
        winner=v.winner or 0,
        line=_positions(v.line),
        end_reason=v.end_reason or "",
        legal_moves=list(v.legal_moves),
        moves=v.moves,
        board_text=c4.render(table.game, v),
        seats_to_move=list(ENGINE.to_move(table.game)),
        winners=list(outcome.winners) if outcome is not None else [],
    )
    _FRONT.merge_into(out, (h for column in v.front for h in column))
    _BACK.merge_into(out, (h for column in v.back for h in column))
    return out


def export_pb(table: Table[c4.State], events: Sequence[Event]) -> pb.ExportGameResponse:
    """The game's record: its moves in notation by seat, then how it ended."""
    lines: list[str] = []
    for event in events:
        match event:
            case c4.CheckerDropped(seat, column, side, _):
                lines.append(f"{seat} {c4.format_move(c4.DropChecker(seat, column, side))}")
            case c4.BlockerDropped(seat, column, _, _):
                lines.append(f"{seat} {c4.format_move(c4.DropBlocker(seat, column))}")
            case c4.PlayerResigned(seat):
                lines.append(f"{seat} resign")
            case c4.GameWon(seat, _, reason):
                lines.append(f"# won {seat} {reason}")
            case c4.GameTied(reason):
                lines.append(f"# tied {reason}")
    return pb.ExportGameResponse(
        text=with_seat_tags(table.seats, lines),
        seats=[seat_pb(i, s) for i, s in enumerate(table.seats)],
    )
