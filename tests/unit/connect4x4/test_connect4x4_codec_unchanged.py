"""Connect 4x4's codec writes and reads every event exactly as the hand-written one did.

The ``OLD`` functions below are the codec as it was before the generic mapping
(``parlor.gamehost.wire.messages``) replaced it, kept here as the reference: stored events,
replays and command-id fingerprints depend on the bytes staying the same.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kits.codecs import assert_same, instances

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.core.conformance import random_playout
from parlor.core.decider import execute
from parlor.gamehost.table.codec import seat_pb, table_event_of, table_event_pb
from parlor.gamehost.table.seating import GameFinished, SeatsTaken, Standing, Table
from parlor.gametypes.seats import Seat
from parlor.rules import connect4x4 as c4
from parlor.rules.connect4x4.contract import ENGINE
from parlor.services.connect4x4 import game as codec

# --- the reference: the codec before the generic mapping ----------------------------------

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


def old_config_pb(config: c4.Config) -> pb.Config:
    return pb.Config(
        players=config.players,
        first_seat=config.first_seat,
        blockers_count_toward_lines=config.blockers_count_toward_lines,
    )


def old_config_of(message: pb.Config) -> c4.Config:
    return c4.Config(
        players=message.players,
        first_seat=message.first_seat,
        blockers_count_toward_lines=message.blockers_count_toward_lines,
    )


def _positions(line: tuple[c4.Position, ...]) -> list[pb.Position]:
    return [pb.Position(column=p.column, row=p.row) for p in line]


def old_event_pb(event: Any) -> Any:
    common = table_event_pb(event, "connect4x4")
    if common is not None:
        return common
    match event:
        case c4.GameCreated(config):
            return pb.GameCreated(config=old_config_pb(config))
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


def old_event_of(message: Any) -> Any:
    common = table_event_of(message)
    if common is not None:
        return common
    match message:
        case pb.GameCreated():
            return c4.GameCreated(old_config_of(message.config))
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


def _hole_pb(h: c4.Hole) -> pb.Hole:
    return pb.Hole(content=CONTENT[h.content], seat=h.seat or 0)


def old_game_pb(game_id: str, version: int, table: Table[c4.State], viewer: int | None) -> pb.Game:
    v = c4.view(table.game, viewer)
    outcome = ENGINE.result(table.game)
    out = pb.Game(
        game_id=game_id,
        version=version,
        seats=[seat_pb(i, s) for i, s in enumerate(table.seats)],
        config=old_config_pb(v.config),
        status=STATUS.get(v.status, pb.STATUS_UNSPECIFIED),
        turn=v.turn or 0,
        checkers_left=list(v.checkers_left),
        blockers_left=list(v.blockers_left),
        resigned=list(v.resigned),
        timed_out=list(table.game.timed_out),
        # Added since, with the departures (why each seat left): views only, no stored bytes.
        departures=[table.game.departure(seat) for seat in range(table.game.players)],
        winner=v.winner or 0,
        line=_positions(v.line),
        end_reason=v.end_reason or "",
        legal_moves=list(v.legal_moves),
        moves=v.moves,
        board_text=c4.render(table.game, v),
        seats_to_move=list(ENGINE.to_move(table.game)),
        winners=list(outcome.winners) if outcome is not None else [],
    )
    out.front.extend(_hole_pb(h) for column in v.front for h in column)
    out.back.extend(_hole_pb(h) for column in v.back for h in column)
    return out


# --- the corpus ------------------------------------------------------------------------------


def _chooser(seed: int) -> Any:
    """Uniform with resignations and time-outs; or never completing a line (ties), with
    even seats dropping their blockers first and odd seats hoarding them (skips)."""

    def choose(state: c4.State, rng: random.Random) -> c4.Command | None:
        if seed % 2 == 0 and rng.random() < 0.03:
            return c4.Resign(rng.choice(state.active_seats()))
        if seed % 2 == 0 and rng.random() < 0.01:
            return c4.TimeOut(state.turn)
        moves = c4.legal_moves(state)
        rng.shuffle(moves)
        if seed % 2 == 0:
            return moves[0] if moves else None
        hoard = state.turn % 2 == 1
        moves.sort(key=lambda m: isinstance(m, c4.DropBlocker) == hoard)
        for move in moves:
            if not any(isinstance(e, c4.GameWon) for e in c4.decide(state, move)):
                return move
        return moves[0] if moves else None

    return choose


@functools.cache
def played() -> list[tuple[c4.State, list[Any]]]:
    """Random games of 2 to 4 players to their ends (lines, ties, skips, resignations,
    time-outs), each event with the state just after it."""
    out: list[tuple[c4.State, list[Any]]] = []
    for seed in range(12):
        rng = random.Random(seed)
        players = 2 + seed % 3
        config = c4.Config(players, seed % players, bool(seed % 4 == 1))
        choose = _chooser(seed)

        game = random_playout(c4.decider, [c4.CreateGame(config)], choose, lambda s: None, rng)
        state = c4.decider.initial_state()
        for event in game.events:
            state = c4.decider.evolve(state, event)
            out.append((state, [event]))
    return out


SEATS = SeatsTaken((Seat("a", "Ada"), Seat("b", "Bo")))
FINISHED = GameFinished("FOUR_IN_A_LINE", (Standing(1, 1), Standing(2, 0, timed_out=True)))
EVENT_TYPES = list(c4.Event.__args__)


def test_every_event_of_real_games_is_written_and_read_as_before() -> None:
    seen: set[type] = set()
    for _, events in played():
        for event in events:
            seen.add(type(event))
            assert_same(event, (old_event_pb, old_event_of), (codec.event_pb, codec.event_of))
    for event in (SEATS, FINISHED):
        assert_same(event, (old_event_pb, old_event_of), (codec.event_pb, codec.event_of))
    assert seen == set(c4.Event.__args__)


@pytest.mark.parametrize("event_type", EVENT_TYPES, ids=lambda t: t.__name__)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_any_event_is_written_and_read_as_before(event_type: type, data: st.DataObject) -> None:
    event = data.draw(instances(event_type))
    assert_same(event, (old_event_pb, old_event_of), (codec.event_pb, codec.event_of), exact=False)


def test_configs_and_views_are_as_before() -> None:
    for config in (c4.Config(), c4.Config(4, 3, True)):
        assert codec.config_pb(config) == old_config_pb(config)
        assert codec.config_of(old_config_pb(config)) == old_config_of(old_config_pb(config))
    assert codec.config_of(pb.Config()) == old_config_of(pb.Config())
    seats = (Seat("a", "Ada"), Seat("b", "Bo"), Seat("c", "Cy"), Seat("d", "Di"))
    for state, _ in played()[::7]:
        table = Table(seats[: max(state.players, 2)], state)
        for viewer in (None, 0, 1):
            new = codec.game_pb("g", 3, table, viewer)
            assert new == old_game_pb("g", 3, table, viewer)


def test_a_game_event_carries_the_move_in_notation() -> None:
    state, _ = execute(c4.decider, c4.decider.initial_state(), c4.CreateGame(c4.Config()))
    _, dropped = execute(c4.decider, state, c4.DropChecker(0, 3, c4.Side.BACK))
    message = codec.game_event_pb(dropped[0], common_pb2.EventInfo(version=2))
    assert message.notation == c4.format_move(c4.DropChecker(0, 3, c4.Side.BACK))
    assert message.checker_dropped == old_event_pb(dropped[0])
