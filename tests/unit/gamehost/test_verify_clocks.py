"""``verify_history`` checks the clocks from the times the events record (timecheck.py).

Real timed games, played through the game host with a hand-moved clock (kits/clock.py),
verify clean, those that ended on time included, for Connect 4x4, Upwords and Take Four.
A tampered copy (a move stamped after its deadline, a timeout stamped before it was due, a
time going back, a time missing) is reported at the version it was tampered at.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

import pytest
from kits.clock import T0, FakeNow, timed_host

from parlor.core.decider import replay
from parlor.core.errors import FailedPrecondition
from parlor.gamehost import GameHost
from parlor.gamehost.drivers.sweeper import Sweeper
from parlor.gamehost.pipeline.games import GameType
from parlor.gamehost.table.clocks import Stamp
from parlor.gamehost.table.seating import GameFinished, OpenTable
from parlor.gamehost.verify.timecheck import stamps_of
from parlor.gamehost.verify.verify import Verdict, verify_history
from parlor.gametypes.seats import Seat
from parlor.gametypes.timecontrol import TimeControl
from parlor.rules import connect4x4 as c4
from parlor.rules import takefour as tf
from parlor.rules import upwords as uw
from parlor.rules.upwords import tiles
from parlor.rules.upwords.moves import Placement
from parlor.services.connect4x4.game import GAME as C4
from parlor.services.takefour.game import GAME as TF
from parlor.services.upwords.game import GAME as UW

NAMES = ("ada", "bob", "cy", "dee")
History = tuple[list[Any], list[Stamp | None]]


def run(coro: Awaitable[Any]) -> Any:
    return asyncio.run(coro)  # type: ignore[arg-type]


def seats(n: int) -> tuple[Seat, ...]:
    return tuple(Seat(name) for name in NAMES[:n])


def host_of(game: GameType[Any, Any, Any], now: FakeNow) -> GameHost[Any, Any, Any]:
    host: GameHost[Any, Any, Any] = timed_host(game, now)
    return host


async def history(host: GameHost[Any, Any, Any], game_id: str) -> History:
    recorded = await host.history(game_id)
    return [r.event for r in recorded], stamps_of(r.record.metadata.extra for r in recorded)


def verified(game: GameType[Any, Any, Any], events: Sequence[Any], stamps: Any) -> Verdict[Any]:
    return verify_history(
        game.decider, game.command_of, events, create_of=game.create_of, stamps=stamps
    )


def shifted(stamps: list[Stamp | None], index: int, seconds: float) -> list[Stamp | None]:
    """The stamps with the one at ``index`` and every later one moved by ``seconds``."""
    out = list(stamps)
    for i in range(index, len(out)):
        stamp = out[i]
        assert stamp is not None
        out[i] = dataclasses.replace(stamp, at=stamp.at + timedelta(seconds=seconds))
    return out


def set_at(stamps: list[Stamp | None], indices: Sequence[int], at: datetime) -> list[Stamp | None]:
    out = list(stamps)
    for i in indices:
        stamp = out[i]
        assert stamp is not None
        out[i] = dataclasses.replace(stamp, at=at)
    return out


def index_of(events: Sequence[Any], kind: type, nth: int = 0) -> int:
    return [i for i, e in enumerate(events) if isinstance(e, kind)][nth]


def late(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


# -- Connect 4x4 ---------------------------------------------------------------------------


def drop(seat: int, column: int = 3) -> c4.DropChecker:
    return c4.DropChecker(seat, column, c4.Side.FRONT)


async def c4_game(
    control: TimeControl, n: int = 2, matched: bool = False
) -> tuple[GameHost[Any, Any, Any], FakeNow]:
    now = FakeNow()
    host = host_of(C4, now)
    create = c4.CreateGame(c4.Config(players=n))
    await host.create("g", OpenTable(seats(n), create, control, matched))
    return host, now


async def c4_on_time() -> History:
    """Per move 30 s: three drops in time, then seat 1 runs out (the sweeper): game over."""
    host, now = await c4_game(TimeControl.per_move(30))
    for seat, wait in ((0, 5), (1, 10), (0, 5)):
        now.advance(wait)
        await host.execute("g", drop(seat, seat), actor=NAMES[seat])
    now.advance(31)
    assert await Sweeper(host, host.deadlines).sweep() == 1
    return await history(host, "g")


async def c4_late_move() -> History:
    """A move that arrives late gets the timeout (TIMED_OUT), recorded at its arrival."""
    host, now = await c4_game(TimeControl.per_move(30))
    now.advance(31)
    with pytest.raises(FailedPrecondition):
        await host.execute("g", drop(0), actor="ada")
    return await history(host, "g")


async def c4_fischer_three() -> History:
    """Fischer, three seats: one runs out, the others play on (same write as a move)."""
    host, now = await c4_game(TimeControl.fischer(60, 2), n=3)
    for seat, wait in ((0, 5), (1, 7.5), (2, 1)):
        now.advance(wait)
        await host.execute("g", drop(seat, seat), actor=NAMES[seat])
    now.advance(70)  # seat 0 ran out; seat 1 moves in the same write as the timeout
    await host.execute("g", drop(1, 4), actor="bob")
    now.advance(3)
    await host.execute("g", drop(2, 5), actor="cy")
    return await history(host, "g")


async def c4_aborted() -> History:
    host, now = await c4_game(TimeControl.per_move(30), matched=True)
    now.advance(31)
    assert await Sweeper(host, host.deadlines).sweep() == 1
    return await history(host, "g")


async def c4_random(seed: int) -> History:
    """Random legal drops at random waits, swept now and then, until the game ends."""
    rng = random.Random(seed)
    control = rng.choice([TimeControl.per_move(20), TimeControl.fischer(40, 3)])
    n = rng.choice([2, 3])
    host, now = await c4_game(control, n=n)
    sweeper = Sweeper(host, host.deadlines)
    for _ in range(200):
        table, _ = await host.load("g")
        if C4.decider.is_terminal(table):
            break
        now.advance(rng.choice([0, 1, 4.5, 9, 15, 19.999, 21]))
        if rng.random() < 0.3:
            await sweeper.sweep()
            continue
        table, _ = await host.load("g")
        if C4.decider.is_terminal(table):
            break
        seat = table.game.turn
        moves = list(range(c4.COLUMNS))
        rng.shuffle(moves)
        for column in moves:
            try:
                await host.execute("g", drop(seat, column), actor=NAMES[seat])
                break
            except FailedPrecondition as refused:
                if refused.reason in ("TIMED_OUT", "GAME_OVER"):
                    break
            except Exception:
                continue
    return await history(host, "g")


@pytest.mark.parametrize("play", [c4_on_time, c4_late_move, c4_fischer_three, c4_aborted])
def test_real_timed_connect4x4_games_verify_with_their_clocks(
    play: Callable[[], Awaitable[History]],
) -> None:
    events, stamps = run(play())
    assert all(s is not None for s in stamps)
    verdict = verified(C4, events, stamps)
    assert verdict.ok, verdict.divergence


def test_random_timed_connect4x4_games_verify_with_their_clocks() -> None:
    timeouts = 0
    for seed in range(12):
        events, stamps = run(c4_random(seed))
        timeouts += sum(isinstance(e, c4.PlayerTimedOut) for e in events)
        verdict = verified(C4, events, stamps)
        assert verdict.ok, (seed, verdict.divergence)
    assert timeouts  # some of them ran out


def test_a_move_stamped_after_its_deadline_is_reported() -> None:
    events, stamps = run(c4_on_time())
    second = index_of(events, c4.CheckerDropped, 1)  # bob's, at T0+15: due by T0+35
    verdict = verified(C4, events, shifted(stamps, second, 21))
    assert verdict.divergence is not None
    assert verdict.divergence.version == second + 1
    assert verdict.divergence.reason == "PAST_DEADLINE"
    assert "seat 1's DropChecker" in verdict.divergence.detail
    assert "TIMED_OUT" in verdict.divergence.detail
    # The rules alone (no times) still accept it: that is what the clocks add.
    assert verified(C4, events, None).ok


def test_a_move_stamped_at_its_deadline_is_late_as_the_host_decides() -> None:
    events, stamps = run(c4_on_time())
    second = index_of(events, c4.CheckerDropped, 1)
    verdict = verified(C4, events, shifted(stamps, second, 20))  # exactly T0+35
    assert verdict.divergence is not None
    assert verdict.divergence.reason == "PAST_DEADLINE"
    assert verified(C4, events, shifted(stamps, second, 19.999)).ok


def test_a_timeout_stamped_before_the_deadline_is_reported() -> None:
    events, stamps = run(c4_on_time())
    timeout = index_of(events, c4.PlayerTimedOut)  # seat 1's turn began at T0+20
    verdict = verified(C4, events, set_at(stamps, range(timeout, len(events)), late(45)))
    assert verdict.divergence is not None
    assert verdict.divergence.version == timeout + 1
    assert verdict.divergence.reason == "TIMEOUT_NOT_DUE"
    assert "before its deadline" in verdict.divergence.detail


def test_an_abort_stamped_before_the_deadline_is_reported() -> None:
    events, stamps = run(c4_aborted())
    verdict = verified(C4, events, set_at(stamps, [len(events) - 1], late(29)))
    assert verdict.divergence is not None
    assert verdict.divergence.version == len(events)
    assert verdict.divergence.reason == "TIMEOUT_NOT_DUE"


def test_a_time_going_back_is_reported() -> None:
    events, stamps = run(c4_on_time())
    third = index_of(events, c4.CheckerDropped, 2)
    verdict = verified(C4, events, set_at(stamps, [third], late(1)))
    assert verdict.divergence is not None
    assert verdict.divergence.version == third + 1
    assert verdict.divergence.reason == "TIME_BACKWARDS"


def test_a_missing_time_and_a_decision_split_in_time_are_reported() -> None:
    events, stamps = run(c4_on_time())
    second = index_of(events, c4.CheckerDropped, 1)
    missing = list(stamps)
    missing[second] = None
    verdict = verified(C4, events, missing)
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (second + 1, "TIME_MISSING")
    last = len(events) - 1  # GameFinished, decided with the timeout
    assert isinstance(events[last], GameFinished)
    verdict = verified(C4, events, shifted(stamps, last, 5))
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (last + 1, "TIME_DIFFERS")


def test_untimed_and_unstamped_games_verify_by_the_rules_alone() -> None:
    async def go() -> History:
        host, now = await c4_game(TimeControl.none())
        now.advance(10_000)
        await host.execute("g", drop(0), actor="ada")
        return await history(host, "g")

    events, stamps = run(go())
    assert stamps == [None] * len(events)
    assert verified(C4, events, stamps).ok
    timed, _ = run(c4_on_time())
    assert verified(C4, timed, None).ok  # stored without times: the rules only
    assert verified(C4, timed, [None] * len(timed)).ok  # copied without its metadata


# -- Upwords ----------------------------------------------------------------------------------

CHALLENGE = uw.UpwordsConfig(word_checking=uw.WordChecking.CHALLENGE)
AA = (Placement(4, 4, "A"), Placement(4, 5, "A"))  # the sorted bag deals seat 0 seven As


async def uw_game(control: TimeControl) -> tuple[GameHost[Any, Any, Any], FakeNow]:
    now = FakeNow()
    host = host_of(UW, now)
    bag = tiles.full_bag()
    create = uw.CreateGame(CHALLENGE, NAMES[:3], bag, bag)
    await host.create("u", OpenTable(seats(3), create, control))
    return host, now


async def uw_on_time() -> History:
    """A play, a challenge, then seat 1 and seat 2 run out: the last one in wins."""
    host, now = await uw_game(TimeControl.fischer(60, 5))
    now.advance(10)
    await host.execute("u", uw.Play(0, AA, {}), actor="ada")
    now.advance(7)
    await host.execute("u", uw.Challenge(2, {"aa": False}), actor="cy")
    sweeper = Sweeper(host, host.deadlines)
    now.advance(200)
    await sweeper.sweep()
    now.advance(60)
    await sweeper.sweep()
    return await history(host, "u")


def test_real_timed_upwords_games_verify_with_their_clocks() -> None:
    events, stamps = run(uw_on_time())
    assert uw.PlayerTimedOut(0) in events
    assert isinstance(events[-1], GameFinished)
    verdict = verified(UW, events, stamps)
    assert verdict.ok, verdict.divergence


def test_a_timed_upwords_game_ended_by_a_resignation_verifies() -> None:
    """A resigned seat is "out" to Upwords' clocks: its resignation is no timeout."""

    async def go() -> History:
        host, now = await uw_game(TimeControl.per_move(30))
        now.advance(10)
        await host.execute("u", uw.Play(0, AA, {}), actor="ada")
        now.advance(5)
        await host.execute("u", uw.Resign(1), actor="bob")
        now.advance(5)
        await host.execute("u", uw.Resign(2), actor="cy")
        return await history(host, "u")

    events, stamps = run(go())
    assert isinstance(events[-1], GameFinished)
    verdict = verified(UW, events, stamps)
    assert verdict.ok, verdict.divergence


def test_an_upwords_move_after_its_deadline_and_an_early_timeout_are_reported() -> None:
    events, stamps = run(uw_on_time())
    play = index_of(events, uw.WordPlayed)
    verdict = verified(UW, events, shifted(stamps, play, 51))  # ada's bank was 60 s
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (play + 1, "PAST_DEADLINE")
    timeout = index_of(events, uw.PlayerTimedOut)
    first = stamps[timeout]
    assert first is not None
    early = [i for i in range(timeout, len(events)) if stamps[i] is not None and stamps[i] == first]
    verdict = verified(UW, events, set_at(stamps, early, late(20)))
    assert verdict.divergence is not None
    assert verdict.divergence.version == timeout + 1
    assert verdict.divergence.reason == "TIMEOUT_NOT_DUE"


# -- Take Four: idle limits in a race ------------------------------------------------------


async def tf_game(n: int) -> tuple[GameHost[Any, Any, Any], FakeNow]:
    now = FakeNow()
    host = host_of(TF, now)
    config = tf.TakeFourConfig()
    create = tf.CreateGame(config, NAMES[:n])
    await host.create("t", OpenTable(seats(n), create, TimeControl.per_move(60)))
    await host.execute("t", tf.StartRound(tuple(range(config.tiles.size))), actor="takefour")
    return host, now


async def tf_forfeit() -> History:
    """Ada keeps playing; bob never does: idle past one limit, forfeited past three."""
    host, now = await tf_game(2)
    sweeper = Sweeper(host, host.deadlines)
    table, _ = await host.load("t")
    tile = table.game.players[0].hand[0]
    for step in range(3):
        now.advance(50)
        if step % 2 == 0:
            await host.execute("t", tf.PlaceTile(0, tile, 0, 0), actor="ada")
        else:
            await host.execute("t", tf.TakeBackTile(0, 0, 0), actor="ada")
        await sweeper.sweep()
    now.at = late(181)
    await sweeper.sweep()
    return await history(host, "t")


async def tf_ada_busy() -> History:
    """Ada acts twice within bob's first limit; bob is marked idle once it has passed."""
    host, now = await tf_game(2)
    table, _ = await host.load("t")
    tile = table.game.players[0].hand[0]
    now.advance(30)
    await host.execute("t", tf.PlaceTile(0, tile, 0, 0), actor="ada")
    now.advance(29)
    await host.execute("t", tf.TakeBackTile(0, 0, 0), actor="ada")
    now.advance(2)
    assert await Sweeper(host, host.deadlines).sweep() == 1
    return await history(host, "t")


async def tf_idle_deal() -> History:
    host, now = await tf_game(3)
    now.advance(50)
    await host.execute("t", tf.AgreeToDeal(0), actor="ada")
    await host.execute("t", tf.AgreeToDeal(1), actor="bob")
    now.advance(11)
    await Sweeper(host, host.deadlines).sweep()
    return await history(host, "t")


@pytest.mark.parametrize("play", [tf_forfeit, tf_idle_deal, tf_ada_busy])
def test_real_timed_take_four_games_verify_with_their_clocks(
    play: Callable[[], Awaitable[History]],
) -> None:
    events, stamps = run(play())
    assert any(isinstance(e, tf.SeatIdle) for e in events)
    verdict = verified(TF, events, stamps)
    assert verdict.ok, verdict.divergence


def test_take_four_idle_and_forfeit_stamped_early_are_reported() -> None:
    events, stamps = run(tf_forfeit())
    assert isinstance(events[-1], GameFinished)
    idle = index_of(events, tf.SeatIdle)  # bob's first limit: T0+60
    at = stamps[idle]
    assert at is not None
    same = [i for i in range(idle, len(events)) if stamps[i] == at]
    verdict = verified(TF, events, set_at(stamps, same, late(59)))
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (idle + 1, "TIMEOUT_NOT_DUE")
    forfeit = index_of(events, tf.SeatForfeited)  # three limits: T0+180
    verdict = verified(TF, events, set_at(stamps, range(forfeit, len(events)), late(170)))
    assert verdict.divergence is not None
    assert verdict.divergence.version == forfeit + 1
    assert verdict.divergence.reason == "TIMEOUT_NOT_DUE"


def test_take_four_an_action_after_another_seats_limit_is_reported() -> None:
    """The host marks bob idle before anything anyone does after his limit."""
    events, stamps = run(tf_ada_busy())
    taken = index_of(events, tf.TileTakenBack)  # ada's, at T0+59: her limit is T0+90
    verdict = verified(TF, events, set_at(stamps, [taken], late(60)))  # bob's limit
    assert verdict.divergence is not None
    assert verdict.divergence.version == taken + 1
    assert verdict.divergence.reason == "PAST_DEADLINE"
    assert "after seat 1's deadline" in verdict.divergence.detail
    assert "SeatIdle" in verdict.divergence.detail


def test_take_four_an_action_after_its_own_limit_is_reported() -> None:
    """Past its own limit a seat is marked idle first; the host still takes its action."""
    events, stamps = run(tf_forfeit())
    placed = index_of(events, tf.TilePlaced)  # ada's first, at T0+50: her limit is T0+60
    verdict = verified(TF, events, shifted(stamps, placed, 11))
    assert verdict.divergence is not None
    assert verdict.divergence.version == placed + 1
    assert verdict.divergence.reason == "PAST_DEADLINE"
    assert "seat 0's PlaceTile" in verdict.divergence.detail
    assert "TIMED_OUT" not in verdict.divergence.detail


async def tf_one_sweep() -> History:
    """Nobody sweeps bob's game until three limits have passed: the one sweep marks him
    idle and forfeits him in the same write (he was never idle before it)."""
    host, now = await tf_game(2)
    table, _ = await host.load("t")
    now.advance(50)
    await host.execute("t", tf.PlaceTile(0, table.game.players[0].hand[0], 0, 0), actor="ada")
    now.at = late(181)
    assert await Sweeper(host, host.deadlines).sweep() == 1
    return await history(host, "t")


def test_take_four_a_seat_forfeited_on_time_by_the_sweep_that_marks_it_idle_verifies() -> None:
    events, stamps = run(tf_one_sweep())
    forfeit = index_of(events, tf.SeatForfeited)
    assert events[forfeit] == tf.SeatForfeited(1, "TIMEOUT")
    idle = [i for i, e in enumerate(events) if e == tf.SeatIdle(1)]
    assert idle
    assert stamps[idle[0]] == stamps[forfeit]  # marked idle in the same write
    verdict = verified(TF, events, stamps)
    assert verdict.ok, verdict.divergence


async def tf_forged_forfeit(at: float) -> History:
    """A real game (ada plays, bob leaves at T0+30), then the leave rewritten as a forfeit
    on time at T0+``at`` with the events the rules decide for it: bob was never marked
    idle, so the host never fires that forfeit (it would mark him idle first)."""
    host, now = await tf_game(2)
    table, _ = await host.load("t")
    now.advance(20)
    await host.execute("t", tf.PlaceTile(0, table.game.players[0].hand[0], 0, 0), actor="ada")
    now.advance(10)
    await host.execute("t", tf.Forfeit(1, "LEFT"), actor="bob")
    events, stamps = await history(host, "t")
    head = index_of(events, tf.SeatForfeited)
    state = replay(TF.decider, events[:head])
    forged = list(TF.decider.decide(state, tf.Forfeit(1, "TIMEOUT")))
    assert isinstance(forged[-1], GameFinished)
    assert forged[-1].standings[1].timed_out
    return events[:head] + forged, stamps[:head] + [Stamp(late(at))] * len(forged)


@pytest.mark.parametrize("at", [30, 100])
def test_take_four_a_forfeit_on_time_of_a_seat_never_marked_idle_is_reported(at: float) -> None:
    """Before bob's first limit (T0+60) and after it but before three (T0+180): either
    way the host's timeout for bob is ``MarkIdle``, never the forfeit."""
    events, stamps = run(tf_forged_forfeit(at))
    forfeit = index_of(events, tf.SeatForfeited)
    verdict = verified(TF, events, stamps)
    assert verdict.divergence is not None
    assert verdict.divergence.version == forfeit + 1
    assert verdict.divergence.reason == "TIMEOUT_NOT_DUE"
    assert "seat 1's timeout" in verdict.divergence.detail
    assert "MarkIdle(seat=1)" in verdict.divergence.detail
    # The rules alone (no times) accept it: a seat may forfeit at any time.
    assert verified(TF, events, None).ok
