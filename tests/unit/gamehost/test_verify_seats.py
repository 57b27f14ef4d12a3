"""``verify_history`` checks who acted: each seat's own command made by that seat's holder.

Real games of Connect 4x4, Upwords and Take Four, played through the game host (each
command with its caller as ``actor``, timed so the acting seat is recorded too), verify
clean with the actors their events' metadata records, timeouts appended with another
player's command included. A copy whose metadata names another seat's player as the
maker is ``WRONG_SEAT``, one naming somebody with no seat ``NOT_SEATED``, one whose
``clock_seat`` is not the command's seat ``WRONG_SEAT``, each at the version tampered. A
move stored for a seat that could not act then (not its turn, forfeited) is the rules'
to refuse: ``COMMAND_REFUSED``, as it always was.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import pytest
from kits.clock import FakeNow, timed_host

from parlor.gamehost import GameHost
from parlor.gamehost.drivers.sweeper import Sweeper
from parlor.gamehost.pipeline.games import GameType
from parlor.gamehost.table.clocks import Stamp
from parlor.gamehost.table.seating import OpenTable
from parlor.gamehost.verify.timecheck import stamps_of
from parlor.gamehost.verify.verify import (
    COMMAND_REFUSED,
    NOT_SEATED,
    WRONG_SEAT,
    Verdict,
    verify_history,
)
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

NAMES = ("ada", "bob", "cy")


@dataclasses.dataclass
class Stored:
    game: GameType[Any, Any, Any]
    events: list[Any]
    stamps: list[Stamp | None]
    actors: list[str | None]

    def verify(self) -> Verdict[Any]:
        return verify_history(
            self.game.decider,
            self.game.command_of,
            self.events,
            create_of=self.game.create_of,
            stamps=self.stamps,
            actors=self.actors,
        )

    def index(self, kind: type, nth: int = 0) -> int:
        return [i for i, e in enumerate(self.events) if isinstance(e, kind)][nth]


async def played(
    game: GameType[Any, Any, Any],
    create: Any,
    n: int,
    control: TimeControl,
    steps: Callable[[GameHost[Any, Any, Any], FakeNow], Awaitable[None]],
) -> Stored:
    now = FakeNow()
    host: GameHost[Any, Any, Any] = timed_host(game, now)
    seats = tuple(Seat(name) for name in NAMES[:n])
    await host.create("g", OpenTable(seats, create, control), actor="ada")
    await steps(host, now)
    recorded = await host.history("g")
    return Stored(
        game,
        [r.event for r in recorded],
        stamps_of(r.record.metadata.extra for r in recorded),
        [r.record.metadata.actor for r in recorded],
    )


def drop(seat: int, column: int) -> c4.DropChecker:
    return c4.DropChecker(seat, column, c4.Side.FRONT)


async def connect4x4() -> Stored:
    """Three seats, Fischer: seat 0 runs out and is timed out in bob's write (the timeout
    carries bob as its actor: it is the clock's, not a move of bob's)."""

    async def steps(host: GameHost[Any, Any, Any], now: FakeNow) -> None:
        for seat, wait in ((0, 5), (1, 7), (2, 1)):
            now.advance(wait)
            await host.execute("g", drop(seat, seat), actor=NAMES[seat])
        now.advance(70)
        await host.execute("g", drop(1, 4), actor="bob")
        now.advance(3)
        await host.execute("g", drop(2, 5), actor="cy")

    create = c4.CreateGame(c4.Config(players=3))
    return await played(C4, create, 3, TimeControl.fischer(60, 2), steps)


async def upwords() -> Stored:
    """Challenge mode: ada plays, bob (to move) accepts it (``PlayAccepted`` names no
    seat: only its metadata says who accepted), cy resigns."""

    async def steps(host: GameHost[Any, Any, Any], now: FakeNow) -> None:
        now.advance(10)
        aa = (Placement(4, 4, "A"), Placement(4, 5, "A"))  # the sorted bag deals ada As
        await host.execute("g", uw.Play(0, aa, {}), actor="ada")
        now.advance(5)
        await host.execute("g", uw.AcceptPlay(1), actor="bob")
        now.advance(5)
        await host.execute("g", uw.Resign(2), actor="cy")

    bag = tiles.full_bag()
    config = uw.UpwordsConfig(word_checking=uw.WordChecking.CHALLENGE)
    create = uw.CreateGame(config, NAMES, bag, bag)
    return await played(UW, create, 3, TimeControl.per_move(30), steps)


async def takefour() -> Stored:
    """The round's shuffle is the service's (no seat); ada plays, bob leaves, cy plays,
    then cy is marked idle by a sweep (the clock's, no seat of its own)."""

    async def steps(host: GameHost[Any, Any, Any], now: FakeNow) -> None:
        await host.execute("g", tf.StartRound(tuple(range(100))), actor="takefour")
        table, _ = await host.load("g")
        now.advance(10)
        await host.execute("g", tf.PlaceTile(0, table.game.players[0].hand[0], 0, 0), actor="ada")
        now.advance(10)
        await host.execute("g", tf.Forfeit(1, "LEFT"), actor="bob")
        now.advance(10)
        await host.execute("g", tf.PlaceTile(2, table.game.players[2].hand[0], 0, 0), actor="cy")
        now.advance(45)  # ada's limit (T0+70) has passed, cy's (T0+90) not
        await Sweeper(host, host.deadlines).sweep()

    create = tf.CreateGame(tf.TakeFourConfig(), NAMES)
    return await played(TF, create, 3, TimeControl.per_move(60), steps)


GAMES = [connect4x4, upwords, takefour]
MOVES: dict[Callable[[], Awaitable[Stored]], tuple[type, int]] = {
    connect4x4: (c4.CheckerDropped, 1),  # bob's first drop
    upwords: (uw.PlayAccepted, 0),  # bob's accept
    takefour: (tf.SeatForfeited, 0),  # bob's leave
}


def run(play: Callable[[], Awaitable[Stored]]) -> Stored:
    return asyncio.run(play())  # type: ignore[arg-type]


@pytest.mark.parametrize("play", GAMES)
def test_real_games_verify_with_who_made_each_event(
    play: Callable[[], Awaitable[Stored]],
) -> None:
    stored = run(play)
    assert all(a is not None for a in stored.actors)
    verdict = stored.verify()
    assert verdict.ok, verdict.divergence


def test_timeouts_and_the_services_own_commands_are_nobodys_seat() -> None:
    """The checks skip what no seat did: they are made under another actor."""
    c4s = run(connect4x4)
    timeout = c4s.index(c4.PlayerTimedOut)
    assert c4s.actors[timeout] == "bob"  # seat 0's timeout, found due by bob's move
    tfs = run(takefour)
    assert tfs.actors[tfs.index(tf.RoundStarted)] == "takefour"
    idle = tfs.index(tf.SeatIdle)
    assert tfs.actors[idle] == "parlor:clock"
    assert c4s.verify().ok
    assert tfs.verify().ok


def tampered(stored: Stored, at: int, **changes: Any) -> Stored:
    actors: Sequence[str | None] = stored.actors
    stamps: Sequence[Stamp | None] = stored.stamps
    if "actor" in changes:
        actors = [changes["actor"] if i == at else a for i, a in enumerate(actors)]
    if "seat" in changes:
        stamp = stamps[at]
        assert stamp is not None
        assert stamp.seat is not None  # the command's first event records its seat
        moved = dataclasses.replace(stamp, seat=changes["seat"])
        stamps = [moved if i == at else s for i, s in enumerate(stamps)]
    return Stored(stored.game, stored.events, list(stamps), list(actors))


@pytest.mark.parametrize("play", GAMES)
def test_a_move_recorded_as_made_by_another_seats_player_is_wrong_seat(
    play: Callable[[], Awaitable[Stored]],
) -> None:
    stored = run(play)
    kind, nth = MOVES[play]
    at = stored.index(kind, nth)
    assert stored.actors[at] == "bob"
    verdict = tampered(stored, at, actor="cy").verify()
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (at + 1, WRONG_SEAT)
    assert "seat 1's" in verdict.divergence.detail
    assert "'cy', who holds seat 2" in verdict.divergence.detail
    # The rules and clocks alone accept it: who acted is what the metadata adds.
    assert dataclasses.replace(stored, actors=[None] * len(stored.actors)).verify().ok


@pytest.mark.parametrize("play", GAMES)
def test_a_move_recorded_as_made_by_somebody_with_no_seat_is_not_seated(
    play: Callable[[], Awaitable[Stored]],
) -> None:
    stored = run(play)
    kind, nth = MOVES[play]
    at = stored.index(kind, nth)
    verdict = tampered(stored, at, actor="mallory").verify()
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (at + 1, NOT_SEATED)
    assert "'mallory', who holds no seat" in verdict.divergence.detail
    assert "seat 1 is held by 'bob'" in verdict.divergence.detail


@pytest.mark.parametrize("play", GAMES)
def test_a_move_whose_recorded_seat_is_another_is_wrong_seat(
    play: Callable[[], Awaitable[Stored]],
) -> None:
    stored = run(play)
    kind, nth = MOVES[play]
    at = stored.index(kind, nth)
    verdict = tampered(stored, at, seat=2).verify()
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (at + 1, WRONG_SEAT)
    assert "records seat 2 as acting (clock_seat)" in verdict.divergence.detail


def test_a_move_stored_for_a_seat_not_to_move_is_refused_by_the_rules() -> None:
    """The acting seat the event names is replayed through the rules: out of turn (Connect
    4x4, Upwords) or after a forfeit (Take Four), the rules refuse it, with or without
    metadata."""
    c4s = run(connect4x4)
    at = c4s.index(c4.CheckerDropped, 1)
    c4s.events[at] = dataclasses.replace(c4s.events[at], seat=2)
    c4s.actors[at] = "cy"
    stamp = c4s.stamps[at]
    assert stamp is not None
    c4s.stamps[at] = dataclasses.replace(stamp, seat=2)
    verdict = c4s.verify()
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (at + 1, COMMAND_REFUSED)
    assert "it is seat 1's turn" in verdict.divergence.detail

    uws = run(upwords)
    at = uws.index(uw.WordPlayed)
    uws.events[at] = dataclasses.replace(uws.events[at], seat=1)
    verdict = uws.verify()
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (at + 1, COMMAND_REFUSED)
    assert "not your turn" in verdict.divergence.detail

    tfs = run(takefour)
    after = tfs.index(tf.SeatForfeited) + 1  # bob left: a tile of his placed after it
    hand = TF.decider.initial_state()
    for event in tfs.events[:after]:
        hand = TF.decider.evolve(hand, event)
    placed = tf.TilePlaced(1, hand.game.players[1].hand[0], 0, 0, "A")
    tfs.events.insert(after, placed)
    tfs.stamps.insert(after, tfs.stamps[after])
    tfs.actors.insert(after, "bob")
    verdict = tfs.verify()
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.reason) == (after + 1, COMMAND_REFUSED)
    assert "seat 1 left: it is out of the game" in verdict.divergence.detail
