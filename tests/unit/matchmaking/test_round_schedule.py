"""Rounds when something changed: ``next_change`` and the rounds' schedule.

A round over the same waiting tickets comes out the same until ``next_change`` has passed,
so the loop may sleep until then; a ticket changed in this process makes the round due at
once, but never within the pause of the last one.
"""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta

from parlor.matching import Policy, Ticket, form_matches
from parlor.services.matchmaking.rounds import MAX_LINE_FOR_PAIRS, next_change
from parlor.services.matchmaking.schedule import TIMER_SLACK_SECONDS, RoundSchedule

NOW = datetime(2026, 12, 7, 20, 0, tzinfo=UTC)
POLICY = Policy(
    accept_minimum_after=timedelta(seconds=30),
    bot_fill_after=timedelta(seconds=60),
    expires_after=timedelta(seconds=600),
)


def ticket(
    n: int,
    waited: float,
    rating: float = 1500.0,
    *,
    low: int = 2,
    high: int = 2,
    lobby: str | None = None,
    player: str | None = None,
    game: str = "connect4x4",
) -> Ticket:
    return Ticket(
        f"t{n}",
        player or f"p{n}",
        game,
        low,
        high,
        rating,
        NOW - timedelta(seconds=waited),
        lobby,
    )


def left_after(tickets: list[Ticket], now: datetime) -> list[Ticket]:
    consumed = set(form_matches(tickets, now, POLICY).consumed)
    return [t for t in tickets if t.id not in consumed]


def test_a_lone_ticket_changes_when_it_may_take_fewer_then_bots_then_expires() -> None:
    lone = [ticket(1, 10.0, low=2, high=4)]
    assert next_change(lone, NOW, POLICY) == timedelta(seconds=20)  # accept the minimum at 30
    later = NOW + timedelta(seconds=21)
    assert next_change(lone, later, POLICY) == timedelta(seconds=29)  # bots at 60
    last = NOW + timedelta(seconds=51)
    assert next_change(lone, last, POLICY) == timedelta(seconds=539)  # expiry at 600
    assert next_change([], NOW, POLICY) is None


def test_two_ratings_meet_when_both_windows_reach_their_gap() -> None:
    # gap 300: a window reaches it after (300 - 100) / 10 = 20 s of waiting; the younger
    # ticket (5 s) is the later, at 15 s from now, before anyone's accept or bot time.
    pair = [ticket(1, 12.0, 1500.0), ticket(2, 5.0, 1800.0)]
    assert next_change(pair, NOW, POLICY) == timedelta(seconds=15)
    # a gap past the cap never closes: the next change is ticket 1's accept time (30 s)
    apart = [ticket(1, 12.0, 1000.0), ticket(2, 5.0, 1900.0)]
    assert next_change(apart, NOW, POLICY) == timedelta(seconds=18)
    # one player's two tickets never sit together: no pair time for them
    mine = [ticket(1, 12.0, 1500.0, player="me"), ticket(2, 5.0, 1800.0, player="me")]
    assert next_change(mine, NOW, POLICY) == timedelta(seconds=18)


def test_a_crowded_line_is_due_again_after_the_pause() -> None:
    line = [ticket(i, 1.0, 1000.0 + 50 * i) for i in range(MAX_LINE_FOR_PAIRS + 1)]
    assert next_change(line, NOW, POLICY) == timedelta(0)
    lobby = [ticket(i, 1.0, lobby="code") for i in range(MAX_LINE_FOR_PAIRS + 1)]
    assert next_change(lobby, NOW, POLICY) == timedelta(seconds=29)


def test_a_round_comes_out_the_same_until_the_next_change() -> None:
    """Random pools: the tickets a round leaves waiting stay waiting at every moment before
    ``next_change`` (so no round is needed), and the round at that moment is the first that
    may differ."""
    rng = random.Random(46)
    changed_at_deadline = 0
    for _ in range(300):
        tickets = [
            ticket(
                n,
                rng.uniform(0.0, 120.0),
                rng.choice((1200.0, 1500.0, 1510.0, 1700.0, 2100.0, rng.uniform(800, 2400))),
                low=(low := rng.choice((2, 2, 3))),
                high=rng.choice((low, 4)),
                lobby=rng.choice((None, None, None, "lobby")),
                player=f"p{rng.randrange(12)}",
                game=rng.choice(("connect4x4", "upwords")),
            )
            for n in range(rng.randrange(1, 9))
        ]
        left = left_after(tickets, NOW)
        wait = next_change(left, NOW, POLICY)
        if wait is None:
            assert not left
            continue
        for fraction in (0.01, 0.25, 0.5, 0.9, 0.999):
            moment = NOW + wait * fraction
            assert form_matches(left, moment, POLICY).consumed == (), (left, wait, fraction)
        at = form_matches(left, NOW + wait, POLICY)
        changed_at_deadline += bool(at.consumed)
    assert changed_at_deadline > 0  # the deadlines are the moments things happen


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_change_is_due_at_once_but_not_within_the_pause() -> None:
    clock = Clock()
    schedule = RoundSchedule(("connect4x4", "upwords"), gap=0.5, idle=5.0, clock=clock)
    assert schedule.sweep_due  # a starting replica looks for waiting tickets at once
    schedule.swept([])
    assert not schedule.sweep_due
    assert schedule.next_at("connect4x4") is None  # nothing waits: no round at all
    schedule.changed("connect4x4")
    assert schedule.next_at("connect4x4") == 100.0
    assert schedule.next_at("upwords") is None
    schedule.started("connect4x4")
    schedule.ran("connect4x4", timedelta(seconds=20), schedule.changes("connect4x4"))
    assert schedule.next_at("connect4x4") == 120.0 + TIMER_SLACK_SECONDS
    clock.now = 100.1
    schedule.changed("connect4x4")  # within the pause: due once it is over
    assert schedule.next_at("connect4x4") == 100.5
    schedule.changed("chess")  # a game type this replica does not match: ignored


def test_a_change_during_a_round_or_a_skipped_round_is_tried_again() -> None:
    clock = Clock()
    schedule = RoundSchedule(("connect4x4",), gap=0.5, idle=5.0, clock=clock)
    before = schedule.changes("connect4x4")
    schedule.started("connect4x4")
    schedule.changed("connect4x4")  # committed while the round ran: it may not have seen it
    clock.now = 100.2
    schedule.ran("connect4x4", None, before)
    assert schedule.next_at("connect4x4") == 100.5
    schedule.started("connect4x4")
    schedule.again("connect4x4")  # another replica held the round
    assert schedule.next_at("connect4x4") == 100.7


def test_the_sweep_comes_every_idle_period() -> None:
    clock = Clock()
    schedule = RoundSchedule(("connect4x4",), gap=0.5, idle=5.0, clock=clock)
    schedule.swept(["connect4x4"])
    assert schedule.next_at("connect4x4") == 100.0
    clock.now = 104.9
    assert not schedule.sweep_due
    clock.now = 105.0
    assert schedule.sweep_due
    # an idle period shorter than the pause would run rounds more often than it allows
    assert RoundSchedule(("connect4x4",), gap=60.0, idle=5.0, clock=clock).idle == 60.0


async def test_due_sleeps_until_a_change_rings() -> None:
    schedule = RoundSchedule(("connect4x4",), gap=0.05, idle=60.0)
    assert await schedule.due() == []  # the first sweep
    schedule.swept([])
    waiting = asyncio.ensure_future(schedule.due())
    await asyncio.sleep(0.2)
    assert not waiting.done()  # nothing changed, nothing due: no round
    schedule.changed("connect4x4")
    assert await asyncio.wait_for(waiting, 1) == ["connect4x4"]
