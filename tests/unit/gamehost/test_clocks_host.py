"""Clocks and timeouts in the game host, with an injected clock (no sleeps).

Per-move, Fischer and correspondence arithmetic; a late command gets the timeout, not the
move; the sweeper fires timeouts nobody asks for, and two sweepers racing append one;
3-player Connect 4x4 goes on without the seat that ran out; a Take Four seat goes idle,
then forfeits; a matched game nobody starts is aborted; replay and verify agree.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, timedelta
from typing import Any

import pytest
from kits.clock import T0, FakeNow

from parlor.core.errors import Conflict, FailedPrecondition
from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.drivers.deadlines import MemoryDeadlines
from parlor.gamehost.drivers.sweeper import Sweeper
from parlor.gamehost.pipeline.pipeline import Pipeline
from parlor.gamehost.table.clocks import Clock, Stamp, advance, deadline, remaining
from parlor.gamehost.table.seating import GameFinished, OpenTable, Table
from parlor.gamehost.verify.verify import verify_history
from parlor.gametypes.seats import Seat
from parlor.gametypes.timecontrol import TimeControl
from parlor.rules import connect4x4 as c4
from parlor.rules import takefour as tf
from parlor.services.connect4x4.game import GAME as C4
from parlor.services.connect4x4.game import Codec
from parlor.services.takefour.game import GAME as TF


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def seats(n: int) -> tuple[Seat, ...]:
    return tuple(Seat(name) for name in ("ada", "bob", "cy", "dee")[:n])


def c4_host(
    store: InMemoryEventStore | None = None,
    now: FakeNow | None = None,
    deadlines: MemoryDeadlines | None = None,
) -> GameHost[Table[c4.State], Any, Any]:
    return GameHost(
        "connect4x4",
        C4.decider,
        Codec(),
        store or InMemoryEventStore(),
        now=now or FakeNow(),
        deadlines=deadlines,
    )


async def open_c4(
    host: GameHost[Any, Any, Any], control: TimeControl, n: int = 2, matched: bool = False
) -> None:
    create = c4.CreateGame(c4.Config(players=n))
    await host.create("g", OpenTable(seats(n), create, control, matched))


def drop(seat: int, column: int = 3) -> c4.DropChecker:
    return c4.DropChecker(seat, column, c4.Side.FRONT)


# -- the arithmetic ----------------------------------------------------------------------


def test_per_move_gives_the_full_allowance_at_each_turn() -> None:
    clock = Clock.start(TimeControl.per_move(30), 2)
    clock = advance(clock, (), (0,), Stamp(T0), idle=False)
    assert deadline(clock, 0) == T0 + timedelta(seconds=30)
    later = T0 + timedelta(seconds=20)
    assert remaining(clock, 0, later) == 10
    clock = advance(clock, (0,), (1,), Stamp(later, 0, True), idle=False)
    assert deadline(clock, 0) is None
    assert deadline(clock, 1) == later + timedelta(seconds=30)
    assert remaining(clock, 0, later) == 30  # a stopped per-move clock shows the allowance


def test_fischer_takes_the_time_used_from_the_bank_and_adds_the_increment() -> None:
    clock = Clock.start(TimeControl.fischer(300, 3), 2)
    clock = advance(clock, (), (0,), Stamp(T0), idle=False)
    moved = T0 + timedelta(seconds=50)
    clock = advance(clock, (0,), (1,), Stamp(moved, 0, True), idle=False)
    assert clock.seats[0].bank == 300 - 50 + 3
    assert clock.seats[0].since is None
    assert deadline(clock, 1) == moved + timedelta(seconds=300)
    back = moved + timedelta(seconds=100)
    clock = advance(clock, (1,), (0,), Stamp(back, 1, True), idle=False)
    assert clock.seats[1].bank == 300 - 100 + 3
    assert deadline(clock, 0) == back + timedelta(seconds=253)


def test_correspondence_is_a_per_move_limit_in_days() -> None:
    clock = Clock.start(TimeControl.correspondence(days=2), 2)
    clock = advance(clock, (), (1,), Stamp(T0), idle=False)
    assert deadline(clock, 1) == T0 + timedelta(days=2)
    assert remaining(clock, 1, T0 + timedelta(days=1)) == 86_400


def test_an_idle_clock_restarts_at_each_action_and_its_limit_can_be_multiplied() -> None:
    clock = Clock.start(TimeControl.per_move(60), 2)
    clock = advance(clock, (), (0, 1), Stamp(T0), idle=True)
    acted = T0 + timedelta(seconds=40)
    clock = advance(clock, (0, 1), (0, 1), Stamp(acted, 1, True), idle=True)
    assert deadline(clock, 0, idle=True) == T0 + timedelta(seconds=60)
    assert deadline(clock, 1, idle=True) == acted + timedelta(seconds=60)
    assert deadline(clock, 0, 3, idle=True) == T0 + timedelta(seconds=180)


# -- in the host ---------------------------------------------------------------------------


def test_every_event_of_a_timed_game_records_the_servers_time() -> None:
    async def go() -> None:
        now = FakeNow()
        host = c4_host(now=now)
        await open_c4(host, TimeControl.fischer(300, 3))
        now.advance(12.5)
        await host.execute("g", drop(0), actor="ada")
        records = [r.record for r in await host.history("g")]
        assert records[-1].metadata.extra["clock_at"] == now.at.isoformat()
        assert records[-1].metadata.extra["clock_seat"] == "0"
        table, _ = await host.load("g")
        assert table.clock.seats[0].bank == 300 - 12.5 + 3

    run(go())


def test_an_untimed_game_records_no_clock() -> None:
    async def go() -> None:
        host = c4_host()
        await open_c4(host, TimeControl.none())
        await host.execute("g", drop(0), actor="ada")
        table, _ = await host.load("g")
        assert table.clock is None
        assert all("clock_at" not in r.record.metadata.extra for r in await host.history("g"))
        assert C4.decider.clocks(table).time_control.kind == 1  # KIND_NONE

    run(go())


def test_a_late_move_gets_the_timeout_not_the_move_and_the_other_seat_wins() -> None:
    async def go() -> None:
        now = FakeNow()
        host = c4_host(now=now)
        await open_c4(host, TimeControl.per_move(30))
        now.advance(31)
        # A late command is made through the pipeline, which appends the timeouts before it.
        moves = Pipeline.bare(host)
        with pytest.raises(FailedPrecondition) as refused:
            await moves.execute("g", drop(0), actor="ada", command_id="late-1")
        assert refused.value.reason == "TIMED_OUT"
        events = [r.event for r in await host.history("g")]
        assert isinstance(events[-3], c4.PlayerTimedOut)
        assert events[-2] == c4.GameWon(1, (), "TIMEOUT")
        finished = events[-1]
        assert isinstance(finished, GameFinished)
        assert finished.reason == "TIMEOUT"
        assert [s.rank for s in finished.standings] == [2, 1]
        assert [s.timed_out for s in finished.standings] == [True, False]
        # The client's id was not spent on the timeout: a retry is refused as the game stands.
        with pytest.raises(FailedPrecondition):
            await moves.execute("g", drop(0), actor="ada", command_id="late-1")

    run(go())


def test_a_move_in_time_is_played() -> None:
    async def go() -> None:
        now = FakeNow()
        host = c4_host(now=now)
        await open_c4(host, TimeControl.per_move(30))
        now.advance(29)
        outcome = await host.execute("g", drop(0), actor="ada")
        assert outcome.events == (c4.CheckerDropped(0, 3, c4.Side.FRONT, 0),)

    run(go())


def test_the_sweeper_fires_a_timeout_in_a_game_nobody_touches() -> None:
    async def go() -> None:
        now, index = FakeNow(), MemoryDeadlines()
        host = c4_host(now=now, deadlines=index)
        await open_c4(host, TimeControl.per_move(30))
        await host.execute("g", drop(0), actor="ada")
        sweeper = Sweeper(host, index, interval=1)
        now.advance(29)
        assert await sweeper.sweep() == 0
        now.advance(2)
        assert await sweeper.sweep() == 1
        table, _ = await host.load("g")
        assert table.game.winner == 0
        assert table.game.timed_out == (False, True)
        assert await index.due("connect4x4", now.at + timedelta(days=30)) == []

    run(go())


def test_two_sweepers_racing_append_one_timeout() -> None:
    async def go() -> None:
        store, now, index = InMemoryEventStore(), FakeNow(), MemoryDeadlines()
        first = c4_host(store, now, index)
        second = c4_host(store, now, index)  # another replica: its own cache
        await open_c4(first, TimeControl.per_move(30), n=3)
        await second.load("g")
        now.advance(31)
        a, b = Sweeper(first, index), Sweeper(second, index)
        fired = await asyncio.gather(a.sweep(), b.sweep(), a.sweep(), b.sweep())
        assert sum(fired) == 1
        timeouts = [r for r in await first.history("g") if isinstance(r.event, c4.PlayerTimedOut)]
        assert len(timeouts) == 1

    run(go())


def test_two_sweepers_on_stale_caches_still_append_one_timeout() -> None:
    async def go() -> None:
        store, now, index = InMemoryEventStore(), FakeNow(), MemoryDeadlines()
        first, second = c4_host(store, now, index), c4_host(store, now, index)
        await open_c4(first, TimeControl.per_move(30), n=3)
        await second.load("g")
        now.advance(31)
        # Both decide on version 2 before either appends.
        from parlor.gamehost.table.clocks import Tick

        results = await asyncio.gather(
            first.execute("g", Tick(), actor="parlor:clock"),
            second.execute("g", Tick(), actor="parlor:clock"),
        )
        assert sorted(len(r.events) for r in results) == [0, 1]

    run(go())


def test_three_player_connect4x4_goes_on_after_a_seat_times_out() -> None:
    async def go() -> None:
        now, index = FakeNow(), MemoryDeadlines()
        host = c4_host(now=now, deadlines=index)
        await open_c4(host, TimeControl.per_move(30), n=3)
        await host.execute("g", drop(0), actor="ada")
        now.advance(31)  # bob (seat 1) never moves
        await Sweeper(host, index).sweep()
        table, _ = await host.load("g")
        assert table.game.status is c4.Status.IN_PROGRESS
        assert table.game.timed_out == (False, True, False)
        assert table.game.turn == 2
        # cy's clock started when bob ran out: a fresh allowance.
        assert C4.decider.deadlines(table) == {2: now.at + timedelta(seconds=30)}
        await host.execute("g", drop(2, 4), actor="cy")
        table, _ = await host.load("g")
        assert table.game.turn == 0  # bob's turns are skipped
        now.advance(31)
        with pytest.raises(FailedPrecondition):
            await Pipeline.bare(host).execute("g", drop(0), actor="ada")
        table, _ = await host.load("g")
        assert table.game.status is c4.Status.WON
        assert table.game.winner == 2

    run(go())


def test_bots_never_run_out() -> None:
    async def go() -> None:
        now = FakeNow()
        host = c4_host(now=now)
        players = (Seat("ada"), Seat("bot:random"))
        await host.create(
            "g",
            OpenTable(players, c4.CreateGame(c4.Config()), TimeControl.per_move(30)),
        )
        await host.execute("g", drop(0), actor="ada")
        now.advance(3600)
        from parlor.gamehost.table.clocks import Tick

        outcome = await host.execute("g", Tick(), actor="parlor:clock")
        assert outcome.events == ()
        assert C4.decider.due(outcome.state, now.at) == []
        # Nor is the game ever due: the bot runner moves the bot, not the sweeper.
        assert C4.decider.next_deadline(outcome.state) is None

    run(go())


def test_a_matched_game_whose_first_move_is_not_made_is_aborted() -> None:
    async def go() -> None:
        now, index = FakeNow(), MemoryDeadlines()
        host = c4_host(now=now, deadlines=index)
        await open_c4(host, TimeControl.per_move(30), matched=True)
        now.advance(31)
        assert await Sweeper(host, index).sweep() == 1
        events = [r.event for r in await host.history("g")]
        assert events[-1] == GameFinished("ABORTED", (c4_rank1(), c4_rank1()))
        # Every seat left because the game was aborted, and the stored event says so.
        assert [s.departure for s in events[-1].standings] == ["ABORTED", "ABORTED"]
        table, _ = await host.load("g")
        assert C4.decider.is_terminal(table)
        assert table.aborted
        verdict = verify_history(C4.decider, C4.command_of, events, create_of=C4.create_of)
        assert verdict.ok, verdict.divergence

    run(go())


def c4_rank1() -> Any:
    from parlor.gamehost.table.seating import Standing

    return Standing(1)


def test_a_matched_game_once_started_times_out_as_usual() -> None:
    async def go() -> None:
        now, index = FakeNow(), MemoryDeadlines()
        host = c4_host(now=now, deadlines=index)
        await open_c4(host, TimeControl.per_move(30), matched=True)
        await host.execute("g", drop(0), actor="ada")
        await host.execute("g", drop(1), actor="bob")
        now.advance(31)
        await Sweeper(host, index).sweep()
        finished = (await host.history("g"))[-1].event
        assert isinstance(finished, GameFinished)
        assert finished.reason == "TIMEOUT"

    run(go())


def test_replay_and_verify_give_the_live_clocks() -> None:
    async def go() -> None:
        store, now, index = InMemoryEventStore(), FakeNow(), MemoryDeadlines()
        host = c4_host(store, now, index)
        await open_c4(host, TimeControl.fischer(60, 2), n=3)
        for seat, wait in ((0, 5), (1, 7.5), (2, 1)):
            now.advance(wait)
            await host.execute("g", drop(seat, seat), actor=seats(3)[seat].player_id)
        now.advance(70)
        await Sweeper(host, index).sweep()  # seat 0 ran out
        live, version = await host.load("g")
        replayed, _ = await c4_host(store).load("g")  # another replica, from the store
        assert replayed.clock == live.clock
        assert C4.decider.clocks(replayed) == C4.decider.clocks(live)
        at_four, _ = await c4_host(store).load("g", 4)
        assert at_four.clock is not None
        assert at_four.clock.seats[1].bank == 60 - 7.5 + 2
        events = [r.event for r in await host.history("g")]
        verdict = verify_history(C4.decider, C4.command_of, events, create_of=C4.create_of)
        assert verdict.ok, verdict.divergence
        assert version == len(events)

    run(go())


# -- Take Four: idle, then forfeit -----------------------------------------------------------


def tf_host(now: FakeNow, index: MemoryDeadlines) -> GameHost[Any, Any, Any]:
    return GameHost(
        "takefour", TF.decider, TF.codec, InMemoryEventStore(), now=now, deadlines=index
    )


async def open_tf(host: GameHost[Any, Any, Any], n: int = 2) -> None:
    players = seats(n)
    config = tf.TakeFourConfig()
    create = tf.CreateGame(config, tuple(s.player_id for s in players))
    await host.create("t", OpenTable(players, create, TimeControl.per_move(60)))
    await host.execute("t", tf.StartRound(tuple(range(config.tiles.size))), actor="takefour")


def test_a_take_four_seat_idle_past_the_limit_agrees_to_the_stalemate_deal() -> None:
    async def go() -> None:
        now, index = FakeNow(), MemoryDeadlines()
        host = tf_host(now, index)
        await open_tf(host, n=3)
        now.advance(50)
        await host.execute("t", tf.AgreeToDeal(0), actor="ada")
        await host.execute("t", tf.AgreeToDeal(1), actor="bob")
        now.advance(11)  # cy has done nothing for 61 s
        await Sweeper(host, index).sweep()
        kinds = [type(r.event).__name__ for r in await host.history("t")][-2:]
        assert kinds == ["SeatIdle", "TilesDealt"]
        table, _ = await host.load("t")
        assert table.game.players[2].idle
        assert len(table.game.players[2].hand) == 8
        # ada and bob acted 11 s ago: their idle clocks have 49 s left.
        assert TF.decider.deadlines(table)[0] == T0 + timedelta(seconds=110)

    run(go())


def test_a_take_four_seat_idle_past_three_limits_forfeits_and_the_last_racer_wins() -> None:
    async def go() -> None:
        now, index = FakeNow(), MemoryDeadlines()
        host = tf_host(now, index)
        await open_tf(host, n=2)
        sweeper = Sweeper(host, index)
        table, _ = await host.load("t")
        tile = table.game.players[0].hand[0]
        for step in range(3):  # ada keeps playing; bob never does
            now.advance(50)
            if step % 2 == 0:
                await host.execute("t", tf.PlaceTile(0, tile, 0, 0), actor="ada")
            else:
                await host.execute("t", tf.TakeBackTile(0, 0, 0), actor="ada")
            await sweeper.sweep()
        table, _ = await host.load("t")
        assert table.game.players[1].idle
        assert not table.game.players[1].forfeited
        now.at = T0 + timedelta(seconds=181)  # three limits after bob's clock started
        await sweeper.sweep()
        events = [r.event for r in await host.history("t")]
        assert tf.SeatForfeited(1, "TIMEOUT") in events
        finished = events[-1]
        assert isinstance(finished, GameFinished)
        assert [s.rank for s in finished.standings] == [1, 2]
        assert [s.timed_out for s in finished.standings] == [False, True]

    run(go())


def test_a_take_four_round_starts_every_clock_again_and_an_idle_seat_stays_idle() -> None:
    """docs/rules/takefour.md, "Time": between rounds no clock runs; the next deal starts
    every racing seat's again, and a seat idle when the round ended is idle in the next
    (it agrees to every deal, and forfeits three limits after that deal unless it acts)."""

    async def go() -> None:
        now, index = FakeNow(), MemoryDeadlines()
        host = tf_host(now, index)
        players = seats(2)
        tiles = tf.TileSet(tuple(tf.LetterTiles(c, 1, 1) for c in "CATSDOGE"), jokers=0)
        create = tf.CreateGame(tf.TakeFourConfig(tiles=tiles), ("ada", "bob"))
        await host.create("t", OpenTable(players, create, TimeControl.per_move(60)))
        await host.execute("t", tf.StartRound(tuple(range(8))), actor="takefour")
        now.advance(61)
        await Sweeper(host, index).sweep()  # bob (and ada) idle past one limit
        now.advance(39)  # 100 s: ada calls Done (honor: unchecked; no grid, no words)
        await host.execute("t", tf.CallDone(0, {}), actor="ada")
        table, _ = await host.load("t")
        assert table.game.phase is tf.Phase.BETWEEN_ROUNDS
        assert TF.decider.deadlines(table) == {}
        now.advance(5)
        await host.execute("t", tf.StartRound(tuple(range(8))), actor="takefour")
        table, _ = await host.load("t")
        assert [p.idle for p in table.game.players] == [False, True]
        start = T0 + timedelta(seconds=105)
        assert TF.decider.deadlines(table) == {
            0: start + timedelta(seconds=60),
            1: start + timedelta(seconds=180),
        }

    run(go())


def test_a_forfeited_take_four_seat_can_no_longer_act_and_scores_its_tiles_unplaced() -> None:
    state = TF.decider.engine.initial_state()
    config = tf.TakeFourConfig()
    for event in [
        *tf.TAKE_FOUR.decide(state, tf.CreateGame(config, ("a", "b", "c"))),
    ]:
        state = tf.TAKE_FOUR.evolve(state, event)
    for event in tf.TAKE_FOUR.decide(state, tf.StartRound(tuple(range(config.tiles.size)))):
        state = tf.TAKE_FOUR.evolve(state, event)
    for event in tf.TAKE_FOUR.decide(state, tf.Forfeit(2, "LEFT")):
        state = tf.TAKE_FOUR.evolve(state, event)
    assert state.players[2].forfeited
    assert state.phase is tf.Phase.PLAYING
    with pytest.raises(Exception) as refused:
        tf.TAKE_FOUR.decide(state, tf.AgreeToDeal(2))
    assert getattr(refused.value, "reason", "") == "FORFEITED"


def test_clocks_of_a_table_whose_engine_has_not_started_yet() -> None:
    """The view of version 1 (seats taken, the engine's game not created yet) has clocks too."""
    for game in (C4, TF):
        table = game.decider.initial_state()
        opened = OpenTable(seats(2), None, TimeControl.per_move(30))  # type: ignore[arg-type]
        from parlor.gamehost.table.seating import SeatsTaken

        table = game.decider.evolve(table, SeatsTaken(opened.seats, opened.time_control))
        clocks = game.decider.clocks(table)
        assert [s.running for s in clocks.seats] == [False, False]


# -- review fixes: retries, standings, increments, stored views, aborts ---------------------


def test_a_retry_of_a_move_that_succeeded_gets_its_outcome_after_the_opponent_ran_out() -> None:
    async def go() -> None:
        now = FakeNow()
        host = c4_host(now=now)
        await open_c4(host, TimeControl.per_move(30))
        first = await host.execute("g", drop(0), actor="ada", command_id="m1")
        now.advance(31)  # bob's time runs out; nobody sweeps
        before = len(await host.history("g"))
        again = await host.execute("g", drop(0), actor="ada", command_id="m1")
        assert again.duplicate
        assert again.events == first.events
        assert len(await host.history("g")) == before  # a retry appends nothing

    run(go())


def test_the_winner_hears_game_over_and_the_loser_timed_out() -> None:
    async def go() -> None:
        now = FakeNow()
        host = c4_host(now=now)
        await open_c4(host, TimeControl.per_move(30))
        await host.execute("g", drop(0), actor="ada")
        now.advance(31)  # bob (seat 1, to move) runs out
        with pytest.raises(FailedPrecondition) as winner:
            await Pipeline.bare(host).execute("g", drop(0), actor="ada", command_id="m2")
        assert winner.value.reason == "GAME_OVER"
        assert "seat 1 ran out of time" in str(winner.value)
        table, _ = await host.load("g")
        assert table.game.winner == 0
        with pytest.raises(FailedPrecondition) as loser:
            await host.execute("g", drop(1), actor="bob")
        assert loser.value.reason != "TIMED_OUT"  # the game is over; the timeout is stored

    run(go())


def test_a_seat_out_of_time_acting_in_the_same_write_hears_timed_out() -> None:
    async def go() -> None:
        now = FakeNow()
        host = c4_host(now=now)
        await open_c4(host, TimeControl.per_move(30), n=3)
        now.advance(31)  # ada (seat 0, to move) runs out; the game goes on
        with pytest.raises(FailedPrecondition) as refused:
            await host.execute("g", drop(0), actor="ada")
        assert refused.value.reason == "TIMED_OUT"

    run(go())


def test_a_tie_ranks_the_seats_that_left_below_those_still_playing() -> None:
    from dataclasses import replace

    from parlor.services.connect4x4.game import standings

    state = c4.decider.initial_state()
    for event in c4.decider.decide(state, c4.CreateGame(c4.Config(players=3))):
        state = c4.decider.evolve(state, event)
    tied = replace(
        state, status=c4.Status.TIED, resigned=(False, True, False), timed_out=(False, True, False)
    )
    assert [s.rank for s in standings(tied)[1]] == [1, 2, 1]
    everyone = replace(tied, resigned=(False,) * 3, timed_out=(False,) * 3)
    assert [s.rank for s in standings(everyone)[1]] == [1, 1, 1]


def test_a_take_four_seat_that_leaves_is_not_marked_timed_out() -> None:
    async def go() -> None:
        now, index = FakeNow(), MemoryDeadlines()
        host = tf_host(now, index)
        await open_tf(host, n=2)
        await host.execute("t", tf.Forfeit(1, "LEFT"), actor="bob")
        finished = (await host.history("t"))[-1].event
        assert isinstance(finished, GameFinished)
        assert [s.rank for s in finished.standings] == [1, 2]
        assert [s.timed_out for s in finished.standings] == [False, False]
        table, _ = await host.load("t")
        assert [s.timed_out for s in TF.decider.clocks(table).seats] == [False, False]

    run(go())


def test_a_move_in_the_same_write_as_anothers_timeout_gets_its_increment() -> None:
    async def go() -> None:
        store, now = InMemoryEventStore(), FakeNow()
        host = c4_host(store, now)
        await open_c4(host, TimeControl.fischer(60, 2), n=3)
        now.advance(61)  # seat 0 runs out; seat 1 moves at once
        outcome = await host.execute("g", drop(1), actor="bob")
        assert isinstance(outcome.events[0], c4.PlayerTimedOut)
        live, _ = await host.load("g")
        assert live.clock is not None
        assert live.clock.seats[1].bank == 62
        replayed, _ = await c4_host(store).load("g")  # another replica, from the store
        assert replayed.clock == live.clock
        assert outcome.state.clock == live.clock
        records = [r.record for r in await host.history("g")]
        seats_stamped = [r.metadata.extra.get("clock_seat") for r in records]
        assert seats_stamped.count("1") == 1
        dropped = next(
            i
            for i, r in enumerate(await host.history("g"))
            if isinstance(r.event, c4.CheckerDropped)
        )
        assert seats_stamped[dropped] == "1"

    run(go())


def test_the_view_of_version_one_is_as_of_the_seats_being_taken() -> None:
    async def go() -> None:
        store, now = InMemoryEventStore(), FakeNow()
        host = c4_host(store, now)
        await open_c4(host, TimeControl.per_move(30))
        now.advance(1000)
        table, _ = await c4_host(store, now).load("g", 1)
        assert table.clock is not None
        assert table.clock.at == T0
        clocks = C4.decider.clocks(table)
        assert clocks.as_of.ToDatetime(UTC) == T0
        assert [s.remaining.ToTimedelta().total_seconds() for s in clocks.seats] == [30, 30]

    run(go())


def test_clocks_folded_without_stamps_show_no_as_of() -> None:
    from parlor.gamehost.table.seating import SeatsTaken

    table = C4.decider.evolve(
        C4.decider.initial_state(), SeatsTaken(seats(2), TimeControl.per_move(30))
    )
    clocks = C4.decider.clocks(table)
    assert not clocks.HasField("as_of")
    assert [s.remaining.ToTimedelta().total_seconds() for s in clocks.seats] == [30, 30]


def test_abort_is_refused_unless_a_matched_game_is_not_started() -> None:
    from parlor.gamehost.table.clocks import Abort

    async def table_after(matched: bool, moves: int, control: TimeControl) -> Any:
        host = c4_host()
        await open_c4(host, control, matched=matched)
        for seat in range(moves):
            await host.execute("g", drop(seat, seat), actor=seats(2)[seat].player_id)
        return (await host.load("g"))[0]

    def refusal(table: Any) -> str:
        with pytest.raises(FailedPrecondition) as refused:
            C4.decider.decide(table, Abort())
        return refused.value.reason

    async def go() -> None:
        per_move = TimeControl.per_move(30)
        assert refusal(await table_after(False, 0, per_move)) == "NOT_MATCHED"
        assert refusal(await table_after(True, 0, TimeControl.none())) == "NOT_MATCHED"
        assert refusal(await table_after(True, 2, per_move)) == "GAME_STARTED"
        started = await table_after(True, 1, per_move)  # bob has not moved yet
        assert C4.decider.decide(started, Abort()) == [GameFinished("ABORTED", (c4_rank1(),) * 2)]
        over = C4.decider.evolve(started, GameFinished("ABORTED", (c4_rank1(),) * 2))
        assert refusal(over) == "GAME_OVER"

    run(go())


class SlowConflicts(InMemoryEventStore):
    """A store whose refused appends take a second of the server's clock (a round trip)."""

    def __init__(self, now: FakeNow) -> None:
        super().__init__()
        self.now = now

    async def append(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().append(*args, **kwargs)
        except Conflict:
            self.now.advance(1)
            raise


def test_a_move_is_timed_when_it_arrives_not_when_a_conflict_lets_it_through() -> None:
    """Another replica's append makes this one decide again: the move came 0.5 s before
    the deadline, and the second try, 0.5 s after it, must not turn it into a timeout (nor
    charge the seat for the server's retry)."""

    async def go() -> None:
        now = FakeNow()
        store = SlowConflicts(now)
        here, there = c4_host(store, now), c4_host(store, now)
        await open_c4(here, TimeControl.per_move(30), n=3)
        await here.load("g")  # this replica's cache: seat 0 to move since T0
        now.advance(20)
        await there.execute("g", c4.Resign(2), actor="cy")  # another replica's append
        now.advance(9.5)
        outcome = await here.execute("g", drop(0), actor="ada")
        assert store.conflicts == 1
        assert now.at == T0 + timedelta(seconds=30.5)
        assert outcome.state.game.timed_out in ((), (False, False, False))
        assert isinstance(outcome.events[0], c4.CheckerDropped)
        assert C4.decider.deadlines(outcome.state) == {1: T0 + timedelta(seconds=59.5)}

    run(go())


def test_a_fischer_seat_is_not_charged_for_the_servers_retry() -> None:
    async def go() -> None:
        now = FakeNow()
        store = SlowConflicts(now)
        here, there = c4_host(store, now), c4_host(store, now)
        await open_c4(here, TimeControl.fischer(60, 2), n=3)
        await here.load("g")
        now.advance(4)
        await there.execute("g", c4.Resign(2), actor="cy")
        now.advance(6)
        outcome = await here.execute("g", drop(0), actor="ada")
        assert store.conflicts == 1
        assert outcome.state.clock.seats[0].bank == 60 - 10 + 2

    run(go())


def test_a_seat_that_makes_no_first_move_within_the_window_lets_the_others_abort() -> None:
    """A seat's own ``Abort`` (issue 41): a timed game (matched or not) in which another seat
    has not made its first move though its clock has run the window; ended unrated
    (``ABORTED``), the stamp names the seat, and ``parlor verify`` re-decides it as that
    seat's. The laggard's own abort is ``ABORT_OWN_FIRST_MOVE``, the others' before the
    window ``ABORT_NOT_YET`` (with when), after every first move ``ABORT_TOO_LATE``."""
    from parlor.gamehost.table.clocks import Abort
    from parlor.gamehost.verify.timecheck import stamps_of

    per_move = TimeControl.per_move(300)  # longer than the window: the laggard is waited for

    async def opened(control: TimeControl, moves: int) -> tuple[Any, FakeNow]:
        now = FakeNow()
        host = c4_host(now=now)
        await open_c4(host, control)
        for seat in range(moves):
            await host.execute("g", drop(seat, seat), actor=seats(2)[seat].player_id)
        return host, now

    async def refusal(host: Any, command: Any) -> FailedPrecondition:
        with pytest.raises(FailedPrecondition) as refused:
            await host.execute("g", command, actor=seats(2)[command.seat].player_id)
        return refused.value

    async def go() -> None:
        host, now = await opened(per_move, 1)  # ada moved at T0: bob's clock runs from T0
        assert (await refusal(host, Abort(1, window=60))).reason == "ABORT_OWN_FIRST_MOVE"
        now.advance(59.5)
        early = await refusal(host, Abort(0, window=60))
        assert early.reason == "ABORT_NOT_YET"
        assert early.metadata == {"retry_after_seconds": "0.500", "abort_window_seconds": "60"}
        now.advance(0.5)
        await host.execute("g", Abort(0, window=60), actor="ada")
        recorded = await host.history("g")
        assert recorded[-1].event == GameFinished("ABORTED", (c4_rank1(),) * 2)
        assert recorded[-1].record.metadata.extra["clock_seat"] == "0"
        assert (await host.load("g"))[0].aborted
        events = [r.event for r in recorded]
        stamps = stamps_of(r.record.metadata.extra for r in recorded)
        actors = [r.record.metadata.actor for r in recorded]
        verdict = verify_history(
            C4.decider, C4.command_of, events, create_of=C4.create_of, stamps=stamps, actors=actors
        )
        assert verdict.ok, verdict.divergence
        # The same abort recorded as bob's, the only seat without a first move: refused.
        last = stamps[-1]
        assert last is not None
        stamps[-1] = Stamp(last.at, 1, True)
        actors[-1] = "bob"
        forged = verify_history(
            C4.decider, C4.command_of, events, create_of=C4.create_of, stamps=stamps, actors=actors
        )
        assert forged.divergence is not None
        assert forged.divergence.reason == "COMMAND_REFUSED"
        assert "waits for your own first move" in forged.divergence.detail
        assert (await refusal(host, Abort(1, window=60))).reason == "GAME_OVER"
        assert (await refusal(host, drop(1))).reason == "GAME_OVER"  # the rules never knew

        # Nobody has moved: ada is to move (bob's clock has not started), bob waits for her.
        host, now = await opened(TimeControl.correspondence(days=3), 0)
        now.advance(61)
        assert (await refusal(host, Abort(0, window=60))).reason == "ABORT_OWN_FIRST_MOVE"
        await host.execute("g", Abort(1, window=60), actor="bob")
        assert (await host.load("g"))[0].aborted

        host, now = await opened(per_move, 2)  # both have moved: started
        now.advance(61)
        assert (await refusal(host, Abort(0, window=60))).reason == "ABORT_TOO_LATE"
        assert (await refusal(host, Abort(1, window=60))).reason == "ABORT_TOO_LATE"
        host, now = await opened(TimeControl.none(), 0)
        assert (await refusal(host, Abort(1, window=60))).reason == "NOT_ABORTABLE"

    run(go())


def test_three_seats_the_laggard_is_the_one_whose_clock_runs_not_one_out_of_the_game() -> None:
    """Connect 4x4 for three, a window of 60 s longer than the allowance of 30 s: a seat out
    of time before its first move is no longer waited for (the game went on without it)."""
    from parlor.gamehost.table.clocks import Abort

    async def refusal(host: Any, command: Any, actor: str) -> FailedPrecondition:
        with pytest.raises(FailedPrecondition) as refused:
            await host.execute("g", command, actor=actor)
        return refused.value

    async def go() -> None:
        now, index = FakeNow(), MemoryDeadlines()
        host = c4_host(now=now, deadlines=index)
        await open_c4(host, TimeControl.per_move(30), n=3)
        await host.execute("g", drop(0), actor="ada")
        now.advance(20)
        # bob's clock runs, cy's has not started: cy may abort once bob's has run 60 s
        early = await refusal(host, Abort(2, window=60), "cy")
        assert (early.reason, early.metadata["retry_after_seconds"]) == ("ABORT_NOT_YET", "40.000")
        # bob is to move: cy, who has not moved either, is not late, bob is
        assert (await refusal(host, Abort(1, window=60), "bob")).reason == "ABORT_OWN_FIRST_MOVE"
        now.advance(11)
        await Sweeper(host, index).sweep()  # bob ran out: dropped, cy to move from now
        now.advance(1)
        early = await refusal(host, Abort(0, window=60), "ada")
        assert (early.reason, early.metadata["retry_after_seconds"]) == ("ABORT_NOT_YET", "59.000")
        await host.execute("g", drop(2, 4), actor="cy")
        # bob never moved, but he is out: everyone still playing has moved
        assert (await refusal(host, Abort(0, window=60), "ada")).reason == "ABORT_TOO_LATE"

    run(go())
