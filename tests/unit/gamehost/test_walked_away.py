"""An untimed game against bots that its person walked away from ends (issue 37, "every game
ends"; docs/bounds.md): the host notes it while the person keeps the bots waiting, and
``GameHost.walked_away`` (24 h) after their last move the sweeper times their seat out (the
game's own timeout) and the bots play it to its end. On main such a game was never noted
and waited for ever.

The server's clock is the test's (``FakeNow``, set to the real time: the store stamps its
events with the real time, and ``walk_away`` checks the last one).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from kits.callers import as_
from kits.clock import FakeNow, timed_host
from kits.takefour import tile_set
from kits.words import EveryWord

from parlor.connect4x4.v1 import connect4x4_pb2 as c4pb
from parlor.gamehost.drivers.sweeper import Sweeper
from parlor.gamehost.host.host import WALKED_AWAY
from parlor.gamehost.pipeline.pipeline import BotCommand, Bots
from parlor.gamehost.table.seating import OpenTable
from parlor.gamehost.wire.service import GameService
from parlor.gametypes.seats import Seat
from parlor.rules import connect4x4 as c4
from parlor.rules import takefour as tf
from parlor.rules import upwords as uw
from parlor.rules.upwords import tiles
from parlor.services.connect4x4.game import GAME as C4
from parlor.services.connect4x4.game import SERVING as C4_SERVING
from parlor.services.takefour.game import GAME as TF
from parlor.services.takefour.game import engine_seats
from parlor.services.upwords.game import GAME as UW
from parlor.services.upwords.game import SERVING as UPWORDS_SERVING
from parlor.services.upwords.game import UpwordsTable


def real_now() -> FakeNow:
    now = FakeNow()
    now.at = datetime.now(UTC)
    return now


async def connect4x4(now: FakeNow) -> tuple[GameService[Any, Any], Sweeper]:
    servicer = C4_SERVING.servicer(timed_host(C4, now))
    seats = (Seat("ada"), Seat("bot:random"), Seat("bot:random"))
    create = c4.CreateGame(c4.Config(players=3, first_seat=0))
    await servicer.host.create("g", OpenTable(seats, create))
    return servicer, Sweeper(servicer.host, servicer.host.deadlines, servicer.pipeline)


async def test_connect4x4_a_person_who_walked_away_times_out_and_the_bots_finish() -> None:
    now = real_now()
    servicer, sweeper = await connect4x4(now)
    now.advance(WALKED_AWAY.total_seconds() - 60)
    assert await sweeper.sweep() == 0  # ada has a minute left
    now.advance(61)
    assert await sweeper.sweep() == 1
    table, _ = await servicer.host.load("g")
    assert table.game.timed_out[0]
    assert C4.decider.is_terminal(table)  # the bots played it out
    assert await sweeper.sweep() == 0  # nothing more noted


async def test_connect4x4_a_person_who_moves_is_waited_on_afresh() -> None:
    now = real_now()
    servicer, sweeper = await connect4x4(now)
    now.advance(WALKED_AWAY.total_seconds() - 60)
    await as_("ada", servicer.PlayMove(c4pb.PlayMoveRequest(game_id="g", move="df"), None))
    now.advance(61)
    assert await sweeper.sweep() == 0
    table, _ = await servicer.host.load("g")
    assert not table.game.timed_out[0]


class PassingBots(Bots):
    """Upwords' bots, each of which passes."""

    def command(self, seat: int, level: str) -> BotCommand:
        async def command(table: UpwordsTable) -> uw.Command:
            return uw.Pass(seat)

        return command


def passing_upwords(host: Any, dictionary: Any) -> Any:
    servicer = UPWORDS_SERVING.servicer(host, dictionary)
    servicer.bots = PassingBots(UW.hosting)
    return servicer


async def test_upwords_a_person_who_walked_away_times_out_and_the_game_ends() -> None:
    now = real_now()
    servicer = passing_upwords(timed_host(UW, now), EveryWord())
    names = ("ada", "bot:best")
    bag = tiles.full_bag()
    create = uw.CreateGame(uw.UpwordsConfig(), names, bag, bag)
    await servicer.host.create("u", OpenTable(tuple(Seat(n) for n in names), create))
    sweeper: Any = Sweeper(servicer.host, servicer.host.deadlines, servicer.pipeline)
    now.advance(WALKED_AWAY.total_seconds() + 1)
    assert await sweeper.sweep() == 1
    table, _ = await servicer.host.load("u")
    assert UW.decider.is_terminal(table)
    assert table.game.out[0]


async def test_a_game_of_people_only_is_never_noted() -> None:
    now = real_now()
    host = timed_host(C4, now)
    create = c4.CreateGame(c4.Config(players=2, first_seat=0))
    await host.create("p", OpenTable((Seat("ada"), Seat("bob")), create))
    now.advance(WALKED_AWAY.total_seconds() * 10)
    assert await Sweeper(host, host.deadlines).sweep() == 0
    assert not await host.deadlines.due(C4.category, now() + timedelta(days=365))


async def test_a_game_without_turns_is_left_to_its_bot_runner() -> None:
    """Take Four's bots step many times a second: a note at each would cost a write each;
    its runner takes a person who walked away from the table instead (botrunner)."""
    now = real_now()
    host = timed_host(TF, now)
    seats = (Seat("ada"), Seat("bot:hard"))
    config = tf.TakeFourConfig(tiles=tile_set("C1 A1 T1 S1 D1 O1 G1 E1"), lexicon="x")
    await host.create("t", OpenTable(seats, tf.CreateGame(config, engine_seats(seats))))
    await host.execute("t", tf.StartRound(tuple(range(8))))
    assert not host.deadlines._rows  # nothing noted, not even a marker
