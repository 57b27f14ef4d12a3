"""Upwords' codec writes and reads every event, whole or stripped, exactly as before.

The ``old_`` functions below are the hand-written codec the generic mapping
(``parlor.gamehost.wire.messages``) replaced, kept as the reference: stored events, replays,
``parlor verify`` and command-id fingerprints depend on the bytes staying the same.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kits.codecs import assert_same, instances

from parlor.core.conformance import random_playout
from parlor.gamehost.table.codec import seat_pb, table_event_of, table_event_pb
from parlor.gamehost.table.seating import GameFinished, SeatsTaken, Standing, Table
from parlor.gametypes.seats import Seat
from parlor.rules import upwords as uw
from parlor.rules.upwords.bot import BotExchange, BotPlay, UpwordsBot
from parlor.rules.upwords.contract import ENGINE
from parlor.rules.upwords.render import render
from parlor.rules.upwords.state import Phase
from parlor.services.upwords import game as codec
from parlor.upwords.v1 import upwords_pb2 as pb

# --- the reference: the codec before the generic mapping ----------------------------------

CHECKING = {
    uw.WordChecking.AUTO: pb.WORD_CHECKING_AUTO,
    uw.WordChecking.CHALLENGE: pb.WORD_CHECKING_CHALLENGE,
}
CHECKING_BACK = {v: k for k, v in CHECKING.items()}


def old_config_pb(config: uw.UpwordsConfig) -> pb.Config:
    return pb.Config(
        word_checking=CHECKING[config.word_checking],
        plural_rule=config.plural_rule,
        lexicon=config.lexicon,
        rules_version=config.rules,
    )


def old_config_of(message: pb.Config) -> uw.UpwordsConfig:
    return uw.UpwordsConfig(
        word_checking=CHECKING_BACK.get(message.word_checking, uw.WordChecking.AUTO),
        plural_rule=message.plural_rule if message.HasField("plural_rule") else True,
        lexicon=message.lexicon,
        # a stored game's 0: version 1, decided before versions were recorded
        rules=message.rules_version or uw.RECORDED_BEFORE_VERSIONS,
    )


def placements_pb(placements: Sequence[uw.Placement]) -> list[pb.Placement]:
    return [pb.Placement(row=p.row, col=p.col, tile=p.tile) for p in placements]


def placements_of(messages: Sequence[pb.Placement]) -> tuple[uw.Placement, ...]:
    return tuple(uw.Placement(p.row, p.col, p.tile) for p in messages)


def _racks_pb(racks: Sequence[Sequence[str] | None] | None) -> list[pb.SeatRack]:
    if racks is None:
        return []
    return [pb.SeatRack(seat=i, tiles=list(r)) for i, r in enumerate(racks) if r is not None]


def _racks_of(
    messages: Sequence[pb.SeatRack], seats: int
) -> tuple[tuple[str, ...] | None, ...] | None:
    if not messages:
        return None
    by_seat = {m.seat: tuple(m.tiles) for m in messages}
    return tuple(by_seat.get(i) for i in range(seats))


def old_event_pb(event: Any) -> Any:
    common = table_event_pb(event, "upwords")
    if common is not None:
        return common
    match event:
        case uw.GameCreated():
            return pb.GameCreated(
                config=old_config_pb(event.config),
                seats=list(event.seats),
                first_draw=[
                    pb.DrawRound(draws=[pb.SeatTile(seat=s, tile=t) for s, t in r.draws])
                    for r in event.first_draw
                ],
                first_seat=event.first_seat,
                bag_count=event.bag_count,
                racks=_racks_pb(event.racks),
                bag=list(event.bag or ()),
            )
        case uw.WordPlayed(seat, placements, words, score, bonus):
            return pb.WordPlayed(
                seat=seat,
                placements=placements_pb(placements),
                words=list(words),
                score=score,
                bonus=bonus,
            )
        case uw.TilesDrawn(seat, count, drawn):
            return pb.TilesDrawn(seat=seat, count=count, drawn=list(drawn or ()))
        case uw.Passed(seat):
            return pb.Passed(seat=seat)
        case uw.TileExchanged(seat, returned, drawn, position):
            out = pb.TileExchanged(seat=seat, returned=returned or "", drawn=drawn or "")
            if position is not None:
                out.position = position
            return out
        case uw.PlayAccepted(seat):
            return pb.PlayAccepted(seat=seat)
        case uw.ChallengeFailed(challenger, seat):
            return pb.ChallengeFailed(challenger=challenger, seat=seat)
        case uw.PlayWithdrawn(challenger, seat, invalid, placements, score):
            return pb.PlayWithdrawn(
                challenger=challenger,
                seat=seat,
                invalid_words=list(invalid),
                placements=placements_pb(placements),
                score=score,
            )
        case uw.PlayerResigned(seat):
            return pb.PlayerResigned(seat=seat)
        case uw.PlayerTimedOut(seat):
            return pb.PlayerTimedOut(seat=seat)
        case uw.GameEnded(reason, racks_left, penalties, final_scores, winners):
            return pb.GameEnded(
                reason=reason,
                racks_left=_racks_pb(racks_left),
                penalties=list(penalties),
                final_scores=list(final_scores),
                winners=list(winners),
            )
    raise TypeError(f"not an Upwords event: {event!r}")


def old_event_of(message: Any) -> Any:
    common = table_event_of(message)
    if common is not None:
        return common
    match message:
        case pb.GameCreated():
            return uw.GameCreated(
                config=old_config_of(message.config),
                seats=tuple(message.seats),
                first_draw=tuple(
                    uw.DrawRound(tuple((d.seat, d.tile) for d in r.draws))
                    for r in message.first_draw
                ),
                first_seat=message.first_seat,
                racks=_racks_of(message.racks, len(message.seats)),
                bag=tuple(message.bag) if message.bag else None,
                bag_count=message.bag_count,
            )
        case pb.WordPlayed():
            return uw.WordPlayed(
                message.seat,
                placements_of(message.placements),
                tuple(message.words),
                message.score,
                message.bonus,
            )
        case pb.TilesDrawn():
            drawn = tuple(message.drawn) if message.drawn else None
            return uw.TilesDrawn(message.seat, message.count, drawn)
        case pb.Passed():
            return uw.Passed(message.seat)
        case pb.TileExchanged():
            return uw.TileExchanged(
                message.seat,
                message.returned or None,
                message.drawn or None,
                message.position if message.HasField("position") else None,
            )
        case pb.PlayAccepted():
            return uw.PlayAccepted(message.seat)
        case pb.ChallengeFailed():
            return uw.ChallengeFailed(message.challenger, message.seat)
        case pb.PlayWithdrawn():
            return uw.PlayWithdrawn(
                message.challenger,
                message.seat,
                tuple(message.invalid_words),
                placements_of(message.placements),
                message.score,
            )
        case pb.PlayerResigned():
            return uw.PlayerResigned(message.seat)
        case pb.PlayerTimedOut():
            return uw.PlayerTimedOut(message.seat)
        case pb.GameEnded():
            racks = _racks_of(message.racks_left, len(message.final_scores)) or ()
            return uw.GameEnded(
                message.reason,
                tuple(r or () for r in racks),
                tuple(message.penalties),
                tuple(message.final_scores),
                tuple(message.winners),
            )
    raise TypeError(f"not an Upwords event message: {type(message).__name__}")


def old_game_pb(
    game_id: str,
    version: int,
    table: Table[uw.UpwordsState],
    viewer: int | None,
    *,
    reveal: bool = False,
) -> pb.Game:
    v = uw.view(table.game, viewer)
    racks = v.racks if v.racks is not None else (table.game.racks if reveal else None)
    bag = v.bag if v.bag is not None else (table.game.bag if reveal else None)
    out = pb.Game(
        game_id=game_id,
        version=version,
        seats=[seat_pb(i, s) for i, s in enumerate(table.seats)],
        config=old_config_pb(v.config),
        status=(
            pb.STATUS_ENDED
            if v.phase is uw.Phase.ENDED
            else pb.STATUS_IN_PROGRESS
            if v.phase is uw.Phase.PLAYING
            else pb.STATUS_UNSPECIFIED
        ),
        to_move=v.to_move,
        seats_to_move=list(ENGINE.to_move(table.game)),
        scores=list(v.scores),
        rack_sizes=list(v.rack_sizes),
        bag_count=v.bag_count,
        passes=v.passes,
        rack=list(v.rack or ()),
        retry=v.retry,
        racks=_racks_pb(racks),
        bag=list(bag or ()),
        end_reason=v.end_reason,
        winners=list(v.winners),
        board_text=render(table.game, viewer) if table.seats else "",
        timed_out=list(table.game.out),
        # Added since, with the departures (why each seat left): views only, no stored bytes.
        departures=[table.game.departure(seat) for seat in range(table.game.players)],
    )
    out.board.extend(pb.Stack(tiles=list(s)) for s in v.board.stacks)
    if viewer is not None:
        out.viewer_seat = viewer
    if v.pending is not None:
        out.pending.CopyFrom(
            pb.PendingPlay(
                seat=v.pending.seat,
                placements=placements_pb(v.pending.placements),
                words=list(v.pending.words),
                score=v.pending.score,
                number=v.pending.number,  # added since: what a challenge names (PLAY_CHANGED)
            )
        )
    return out


# --- the corpus ------------------------------------------------------------------------------

WORDS = [
    "at",
    "ta",
    "to",
    "on",
    "no",
    "so",
    "as",
    "is",
    "it",
    "in",
    "an",
    "en",
    "ne",
    "re",
    "er",
    "ed",
    "de",
    "do",
    "od",
    "oe",
    "of",
    "if",
    "us",
    "um",
    "mu",
]
WORDS += [a + b for a in ("at", "on", "is", "ed", "re") for b in ("e", "s", "a", "o")]


def _chooser(bot: UpwordsBot, judge: set[str]) -> Any:
    def choose(state: uw.UpwordsState, rng: random.Random) -> uw.Command | None:
        pending = state.pending
        if pending is not None and rng.random() < 0.4:
            others = [s for s in range(state.players) if s != pending.seat and not state.is_out(s)]
            if others:
                return uw.Challenge(rng.choice(others), {w: w in judge for w in pending.words})
        seat = state.to_move
        if state.pending_is_final():
            return uw.AcceptPlay(seat)
        roll = rng.random()
        if roll < 0.01:
            return uw.Resign(seat)
        if roll < 0.02:
            return uw.TimeOut(seat)
        if roll < 0.06:
            return uw.Pass(seat)
        move = bot.choose(uw.view(state, seat))
        if isinstance(move, BotPlay):
            words = uw.words_formed(state, uw.Play(seat, move.placements))
            return uw.Play(seat, move.placements, {w: w in judge for w in words})
        if isinstance(move, BotExchange) or roll < 0.1:
            rack = state.racks[seat]
            tile = move.tile if isinstance(move, BotExchange) else rack[0]
            return uw.Exchange(seat, tile, rng.randrange(uw.exchange_positions(state)))
        return uw.Pass(seat)

    return choose


@functools.cache
def played() -> list[tuple[uw.UpwordsState, Any]]:
    """Bot games of 2 to 4 seats, in both checking modes (bluffs, challenges, exchanges,
    resignations, time-outs), each event with the state just after it."""
    judge = set(WORDS)
    honest = UpwordsBot(WORDS)
    bluffer = UpwordsBot([*WORDS, *(w[::-1] for w in WORDS if w[::-1] not in judge)])
    out: list[tuple[uw.UpwordsState, Any]] = []
    for seed in range(6):
        rng = random.Random(seed)
        mode = (uw.WordChecking.AUTO, uw.WordChecking.CHALLENGE)[seed % 2]
        config = uw.UpwordsConfig(mode, plural_rule=seed % 3 != 0, lexicon="short")
        draw, bag = list(uw.full_bag()), list(uw.full_bag())
        rng.shuffle(draw)
        rng.shuffle(bag)
        seats = tuple(f"p{i}" for i in range(2 + seed % 3))
        setup = [uw.CreateGame(config, seats, tuple(draw), tuple(bag))]
        game = random_playout(
            uw.UPWORDS,
            setup,
            _chooser(bluffer if mode is uw.WordChecking.CHALLENGE else honest, judge),
            lambda s: None,
            rng,
            max_steps=120,
        )
        state = uw.UPWORDS.initial_state()
        for event in game.events:
            state = uw.UPWORDS.evolve(state, event)
            out.append((state, event))
    return out


SEATS = SeatsTaken((Seat("a", "Ada"), Seat("b", "Bo")))
FINISHED = GameFinished("RESIGNED", (Standing(2, 0), Standing(1, 0)))
OLD = (old_event_pb, old_event_of)
NEW = (codec.event_pb, codec.event_of)


def test_every_event_whole_and_as_each_viewer_sees_it_is_written_and_read_as_before() -> None:
    seen: set[type] = set()
    for _, event in played():
        seen.add(type(event))
        for shown in (event, uw.public_event(event), *(codec.shown(event, v) for v in (0, 1))):
            assert_same(shown, OLD, NEW)
    for event in (SEATS, FINISHED):
        assert_same(event, OLD, NEW)
    assert seen == set(uw.Event.__args__)


@pytest.mark.parametrize("event_type", uw.Event.__args__, ids=lambda t: t.__name__)
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_any_event_is_written_and_read_as_before(event_type: type, data: st.DataObject) -> None:
    assert_same(data.draw(instances(event_type)), OLD, NEW, exact=False)


def test_configs_and_views_are_as_before() -> None:
    for config in (uw.UpwordsConfig(), uw.UpwordsConfig(uw.WordChecking.CHALLENGE, False, "x")):
        assert codec.config_pb(config) == old_config_pb(config)
    for message in (pb.Config(), old_config_pb(uw.UpwordsConfig(plural_rule=False))):
        assert codec.config_of(message) == old_config_of(message)
    seats = tuple(Seat(f"p{i}", f"P{i}") for i in range(4))
    states = [uw.UpwordsState(), *(state for state, _ in played()[::9])]
    for state in states:
        table = Table(seats[: len(state.seats)], state)
        for viewer in (None, 0, 1):
            for reveal in (False, True):
                new = codec.game_pb("g", 3, table, viewer, reveal=reveal)
                assert new == old_game_pb("g", 3, table, viewer, reveal=reveal)
    assert any(s.pending is not None for s in states)
    assert any(s.phase is Phase.ENDED for s in states)
