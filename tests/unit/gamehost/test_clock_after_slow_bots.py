"""A bot's thinking never comes off the next person's clock (issue 38 item 2; docs
architecture.md, "Clocks"): a person's time after a bot's move is what it was before it.

Each game's bot is made slow on purpose: its strategy moves the server's clock (the host's
``now``, hand-moved: no sleeping) by ``SLOW`` seconds while it plans. The bot's move is
stamped when its decision is made, so the person's turn starts then, with their whole
allowance: their deadline is ``now + allowance`` as the reply reaches them (tolerance: none;
the clock is the test's). On main the move was stamped before the bot planned, and the
person's turn began ``SLOW`` seconds before they were given it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from datetime import timedelta
from typing import Any

from kits.callers import as_
from kits.clock import FakeNow, timed_host
from kits.takefour import tile_set
from kits.words import EveryWord

from parlor.connect4x4.v1 import connect4x4_pb2 as c4pb
from parlor.gamehost.drivers.botrunner import service_runner
from parlor.gamehost.pipeline.pipeline import BotCommand, Bots
from parlor.gamehost.table.seating import OpenTable, Table
from parlor.gametypes.seats import Seat
from parlor.gametypes.timecontrol import TimeControl
from parlor.rules import connect4x4 as c4
from parlor.rules import takefour as tf
from parlor.rules import upwords as uw
from parlor.rules.upwords import tiles
from parlor.runtime.queue import GameQueue
from parlor.services.connect4x4.game import GAME as C4
from parlor.services.connect4x4.game import SERVING as C4_SERVING
from parlor.services.takefour.game import GAME as TF
from parlor.services.takefour.game import SERVING as TAKEFOUR_SERVING
from parlor.services.takefour.game import TakeFourSettings, engine_seats
from parlor.services.takefour.game import bots as takefour_bots
from parlor.services.upwords.game import GAME as UW
from parlor.services.upwords.game import SERVING as UPWORDS_SERVING
from parlor.services.upwords.game import UpwordsTable
from parlor.takefour.v1 import takefour_pb2 as tfpb
from parlor.upwords.v1 import upwords_pb2 as uwpb

SLOW = 7.0
"""Seconds a slow bot thinks (on the hand-moved clock)."""
PER_MOVE = TimeControl.per_move(120)


class SlowRandomBots(Bots):
    """Bots that think ``SLOW`` seconds (then move as the game's random bot does, in the bot
    pool)."""

    def __init__(self, now: FakeNow) -> None:
        super().__init__(C4.hosting)
        self.now = now

    def command(self, seat: int, level: str) -> BotCommand:
        chosen = super().command(seat, "random")

        async def move(table: Table[c4.State]) -> c4.Move:
            self.now.advance(SLOW)
            made: c4.Move = await chosen(table)
            return made

        return move


def slow_connect4x4(now: FakeNow) -> Any:
    """Connect 4x4's servicer, its bots ``SlowRandomBots``."""
    servicer = C4_SERVING.servicer(timed_host(C4, now))
    servicer.bots = SlowRandomBots(now)
    return servicer


async def test_connect4x4_a_slow_bots_move_leaves_the_person_their_whole_allowance() -> None:
    now = FakeNow()
    servicer = slow_connect4x4(now)
    seats = (Seat("ada"), Seat("bot:strong"))
    create = c4.CreateGame(c4.Config(players=2, first_seat=0))
    await servicer.host.create("g", OpenTable(seats, create, TimeControl.per_move(30)))
    now.advance(3)
    reply = await as_("ada", servicer.PlayMove(c4pb.PlayMoveRequest(game_id="g", move="df"), None))
    assert list(reply.game.seats_to_move) == [0]  # the bot moved: ada's turn again
    table, _ = await servicer.host.load("g")
    assert C4.decider.deadlines(table) == {0: now() + timedelta(seconds=30)}
    (ada, _bot) = reply.game.clocks.seats
    assert ada.remaining.ToTimedelta() == timedelta(seconds=30)


class SlowPassingBots(Bots):
    """A bot that thinks ``SLOW`` seconds, then passes (a slow strategy, injected; the sorted
    bag deals Ada seven As)."""

    def __init__(self, now: FakeNow) -> None:
        super().__init__(UW.hosting)
        self.now = now

    def command(self, seat: int, level: str) -> BotCommand:
        async def command(table: UpwordsTable) -> uw.Command:
            self.now.advance(SLOW)
            return uw.Pass(seat)

        return command


def slow_upwords(now: FakeNow) -> Any:
    """Upwords' servicer, its bots ``SlowPassingBots``."""
    servicer = UPWORDS_SERVING.servicer(timed_host(UW, now), EveryWord())
    servicer.bots = SlowPassingBots(now)
    return servicer


async def test_upwords_a_slow_bots_move_leaves_the_person_their_whole_time() -> None:
    now = FakeNow()
    servicer = slow_upwords(now)
    names = ("ada", "bot:best")
    bag = tiles.full_bag()
    create = uw.CreateGame(uw.UpwordsConfig(), names, bag, bag)
    seats = tuple(Seat(n) for n in names)
    await servicer.host.create("u", OpenTable(seats, create, TimeControl.fischer(600, 5)))
    table, _ = await servicer.host.load("u")
    assert table.game.to_move == 0
    now.advance(20)
    aa = [uwpb.Placement(row=4, col=4, tile="A"), uwpb.Placement(row=4, col=5, tile="A")]
    reply = await as_("ada", servicer.Play(uwpb.PlayRequest(game_id="u", placements=aa), None))
    table, _ = await servicer.host.load("u")
    assert table.game.to_move == 0  # the bot passed: ada's turn again
    # Ada's bank: 600 - 20 + 5 = 585 s from when the bot's move gave her the turn.
    assert UW.decider.deadlines(table) == {0: now() + timedelta(seconds=585)}
    ada = reply.game.clocks.seats[0]
    assert ada.remaining.ToTimedelta() == timedelta(seconds=585)


class SlowSeat:
    """A Take Four bot seat that thinks ``SLOW`` seconds per step, then places a tile."""

    def __init__(self, now: FakeNow) -> None:
        self.now = now

    def next_command(self, seen: Any) -> Any:
        self.now.advance(SLOW)
        me = seen.me
        return tf.PlaceTile(me.seat, me.hand[0], 0, 0) if me.hand else None

    def refused(self) -> None:
        pass

    def new_round(self) -> None:
        pass


class SlowBots:
    """Take Four's bots (``game.bots``), each seat's made slow."""

    def __init__(self, now: FakeNow) -> None:
        self.now = now
        self.real = takefour_bots(words=lambda: ("CAT",))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    async def prepare(self) -> None:
        pass

    async def seat_bot(self, level: str) -> SlowSeat:
        return SlowSeat(self.now)


async def test_takefour_a_slow_bots_step_leaves_the_persons_deadline_where_it_was() -> None:
    """Take Four has no turns: a seat's clock restarts at its own actions, so a bot's step,
    however long it thinks, leaves a person's deadline where it was."""
    now = FakeNow()
    host = timed_host(TF, now)
    servicer = TAKEFOUR_SERVING.servicer(host, EveryWord())
    seats = (Seat("ada"), Seat("bot:hard"))
    config = tf.TakeFourConfig(tiles=tile_set("C1 A1 T1 S1 D1 O1 G1 E1"), lexicon="x")
    create = tf.CreateGame(config, engine_seats(seats))
    outcome = await host.create("g", OpenTable(seats, create, PER_MOVE))
    await servicer.pipeline.follow_up("g", outcome)  # the first round is dealt
    table, _ = await host.load("g")
    before = TF.decider.deadlines(table)
    assert set(before) == {0}
    settings = TakeFourSettings(pause_seconds=0.0, idle_seconds=1.0, human_pace=False)
    runner = service_runner(servicer.pipeline, SlowBots(now), settings)
    runner.track("g", tuple(s.player_id for s in table.seats), over=False)
    assert await runner.step("g")
    table, _ = await host.load("g")
    assert len(table.game.players[1].grid) == 1  # the bot placed its tile
    assert table.clock.at == now()  # stamped when it decided, after its thinking
    assert TF.decider.deadlines(table) == before


async def test_takefour_a_persons_wait_in_the_games_queue_is_not_charged_to_them() -> None:
    """Commands on one Take Four game queue in a replica (``GameQueue``): a person's command
    waiting behind others' (bots' steps and their dictionary calls) is timed when it
    arrived, not when its turn in the queue came. On main the wait was the person's."""
    now = FakeNow()
    host = timed_host(TF, now)
    queue = GameQueue()
    servicer = TAKEFOUR_SERVING.servicer(host, EveryWord(), queue=queue)
    seats = (Seat("ada"), Seat("bot:hard"))
    config = tf.TakeFourConfig(tiles=tile_set("C1 A1 T1 S1 D1 O1 G1 E1"), lexicon="x")
    create = tf.CreateGame(config, engine_seats(seats))
    await servicer.pipeline.follow_up(
        "g", await host.create("g", OpenTable(seats, create, PER_MOVE))
    )
    table, _ = await host.load("g")
    tile = table.game.players[0].hand[0]
    now.advance(110)  # ada acts 10 s before her limit...
    async with queue.turn("g"):  # ...while the platform holds the game's turn for 15 s
        place = tfpb.PlaceTileRequest(game_id="g", tile=tile, x=0, y=0)
        placing = asyncio.ensure_future(as_("ada", servicer.PlaceTile(place, None)))
        await asyncio.sleep(0)
        now.advance(15)
    await placing
    table, _ = await host.load("g")
    events = [r.event for r in await host.history("g")]
    assert not any(isinstance(e, tf.SeatIdle) for e in events)  # in time: not marked idle
    assert len(table.game.players[0].grid) == 1
    assert table.clock.seats[0].since == now()  # her clock restarts as her turn is given


class SlowDictionary(EveryWord):
    """Every word is good, after ``SLOW`` seconds (on the hand-moved clock)."""

    def __init__(self, now: FakeNow) -> None:
        self.now = now

    async def verdicts(
        self, lexicon_id: str, words: Collection[str], remaining: float | None = None
    ) -> dict[str, bool]:
        self.now.advance(SLOW)
        return await super().verdicts(lexicon_id, words, remaining)


async def test_upwords_the_dictionarys_time_is_neither_the_movers_nor_the_next_persons() -> None:
    """Ada's play waits on the dictionary (its verdicts, ``SLOW`` s): she is charged to when
    her play arrived, and Bob's clock starts when the play was decided, as he gets the turn;
    the fold of the stored events (a replica loading the game) agrees."""
    now = FakeNow()
    host = timed_host(UW, now)
    servicer = UPWORDS_SERVING.servicer(host, SlowDictionary(now))
    names = ("ada", "bob")
    bag = tiles.full_bag()
    create = uw.CreateGame(uw.UpwordsConfig(), names, bag, bag)
    seats = tuple(Seat(n) for n in names)
    await host.create("u", OpenTable(seats, create, TimeControl.fischer(600, 5)))
    now.advance(10)
    aa = [uwpb.Placement(row=4, col=4, tile="A"), uwpb.Placement(row=4, col=5, tile="A")]
    await as_("ada", servicer.Play(uwpb.PlayRequest(game_id="u", placements=aa), None))
    table, _ = await host.load("u")
    assert table.game.to_move == 1
    assert table.clock.seats[0].bank == 595.0  # 600 - 10 + 5: not the dictionary's 7 s
    assert UW.decider.deadlines(table) == {1: now() + timedelta(seconds=600)}
    assert host.fold(await host.history("u")) == table
