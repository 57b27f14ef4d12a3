"""The servicer's command path on an in-memory store: seats, verdicts, rounds, conflicts."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from kits.takefour import tile_set

from parlor.core.errors import FailedPrecondition, InvalidArgument, PermissionDenied, Unavailable
from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.table.seating import GameFinished, OpenTable
from parlor.gamehost.wire.service import GameService
from parlor.gamehost.words.words import Dictionary
from parlor.gametypes.seats import Seat
from parlor.lexicon.shelf import enable1
from parlor.rules import takefour as tf
from parlor.rules.takefour.state import Player
from parlor.runtime.queue import GameQueue
from parlor.services.takefour.game import SERVING as TAKEFOUR_SERVING
from parlor.services.takefour.game import Codec, engine_seats, rules, standings

TILES = tile_set("C1 A1 T1 S1 D1 O1 G1 E1")  # ids: C0 A1 T2 S3 D4 O5 G6 E7
WORDS = {"CAT", "DOG", "DOGE", "CATS", "GOD", "GODS", "AT", "TA", "DO", "GO", "OD"}


class FakeDictionary(Dictionary):
    """Answers from a word set; ``before_answer`` runs before each batch (to make a race)."""

    def __init__(self) -> None:
        self.batches = 0
        self.asked: list[frozenset[str]] = []
        self.before_answer: Any = None

    async def lexicon_id(self, lexicon: str, remaining: float | None = None) -> str:
        return "enable1-test"

    async def verdicts(
        self, lexicon: str, words: frozenset[str], remaining: float | None = None
    ) -> dict[str, bool]:
        self.batches += 1
        self.asked.append(words)
        if self.before_answer is not None:
            hook, self.before_answer = self.before_answer, None
            await hook()
        return {w: w in WORDS for w in words}


def make(queue: bool = True) -> tuple[Any, GameService[Any, Any], FakeDictionary]:
    host: Any = GameHost("takefour", rules(), Codec(), InMemoryEventStore())
    dictionary = FakeDictionary()
    return (
        host,
        TAKEFOUR_SERVING.servicer(host, dictionary, queue=GameQueue() if queue else None),
        dictionary,
    )


async def open_game(host: Any, servicer: GameService[Any, Any], players: tuple[str, ...]) -> None:
    seats = tuple(Seat(p) for p in players)
    config = tf.TakeFourConfig(tiles=TILES, max_rounds=1, lexicon="enable1-test")
    await host.create("g", OpenTable(seats, tf.CreateGame(config, engine_seats(seats))))
    # A known bag: ada gets C A T S, bob gets D O G E.
    await host.execute("g", tf.StartRound(tuple(range(8))))


def place(seat: int, tile: int, x: int, y: int = 0) -> Any:
    return lambda s: tf.PlaceTile(s, tile, x, y)


async def test_the_first_round_is_dealt_right_after_creation() -> None:
    host, servicer, _ = make()
    seats = (Seat("ada"), Seat("bob"))
    config = tf.TakeFourConfig(tiles=TILES)
    outcome = await host.create("g", OpenTable(seats, tf.CreateGame(config, engine_seats(seats))))
    outcome = await servicer.pipeline.follow_up("g", outcome)
    assert outcome.state.game.phase is tf.Phase.PLAYING
    assert sorted(
        outcome.state.game.bag + sum((p.hand for p in outcome.state.game.players), ())
    ) == list(range(8))
    again = await servicer.pipeline.follow_up("g", outcome)
    assert again.version == outcome.version


async def test_a_player_acts_only_for_their_own_seat() -> None:
    host, servicer, _ = make()
    await open_game(host, servicer, ("ada", "bob"))
    with pytest.raises(PermissionDenied):
        await servicer.act("g", "cy", None, place(0, 0, 0), None)
    with pytest.raises(PermissionDenied):
        await servicer.act("g", "ada", 1, place(1, 4, 0), None)
    with pytest.raises(FailedPrecondition) as refused:
        await servicer.act("g", "ada", None, lambda s: tf.PlaceTile(s, 4, 0, 0), None)
    assert refused.value.reason == "TILE_NOT_IN_HAND"
    assert "D" not in refused.value.message


async def test_done_is_checked_against_the_state_it_is_decided_on_after_a_conflict() -> None:
    """Bob's last tile lands while Ada's Done waits for its verdicts: the words are listed again."""
    host, servicer, dictionary = make()
    await open_game(host, servicer, ("ada", "bob"))
    for x, tile in enumerate((0, 1, 2, 3)):  # CATS
        await servicer.act("g", "ada", None, place(0, tile, x), f"a{x}")
    for x, tile in enumerate((6, 5, 4)):  # GOD
        await servicer.act("g", "bob", None, place(1, tile, x), f"b{x}")

    async def bob_finishes() -> None:  # another replica: straight to the host, no queue
        await host.execute("g", tf.PlaceTile(1, 7, 3, 0), command_id="b3")  # GODE

    dictionary.before_answer = bob_finishes
    outcome, seat, events = await servicer.act("g", "ada", None, tf.CallDone, "done")
    assert outcome.state.game.phase is tf.Phase.OVER
    assert seat == 0
    assert dictionary.batches == 2
    assert "GODE" not in dictionary.asked[0]
    assert "GODE" in dictionary.asked[1]
    scored = next(r.event for r in events if isinstance(r.event, tf.RoundScored))
    assert scored.done_valid
    # Bob's GODE is no word: the removal rule keeps GOD and drops E (value 1).
    assert scored.scores == (0, 1)
    assert isinstance(events[-1].event, GameFinished)
    stored = await host.history("g")
    assert [r.record.metadata.command_id for r in stored[-5:]] == ["b3"] + ["done"] * 4


async def test_commands_racing_on_one_game_are_each_applied_once() -> None:
    for queue in (True, False):
        host, servicer, _ = make(queue)
        await open_game(host, servicer, ("ada", "bob"))
        results = await asyncio.gather(
            *(servicer.act("g", "ada", None, place(0, t, t), f"a{t}") for t in range(4)),
            *(servicer.act("g", "bob", None, place(1, t, t), f"b{t}") for t in range(4, 8)),
            *(servicer.act("g", "ada", None, place(0, t, t), f"a{t}") for t in range(4)),
        )
        stored = await host.history("g")
        placed = [
            r.record.metadata.command_id for r in stored if isinstance(r.event, tf.TilePlaced)
        ]
        assert sorted(placed) == sorted(
            [f"a{t}" for t in range(4)] + [f"b{t}" for t in range(4, 8)]
        )
        assert all(len(events) == 1 for _, _, events in results)


async def test_a_bad_coordinate_is_an_invalid_argument() -> None:
    host, servicer, _ = make()
    await open_game(host, servicer, ("ada", "bob"))
    with pytest.raises(InvalidArgument):
        await servicer.act("g", "ada", None, place(0, 0, 5000), None)


def test_lowest_total_ranks_first_and_ties_share_a_place() -> None:
    state = tf.TakeFourState(
        phase=tf.Phase.OVER,
        config=tf.TakeFourConfig(target=100),
        players=tuple(Player(total=t) for t in (120, 30, 30, 55)),
    )
    reason, ranks = standings(state)
    assert reason == "TARGET_SCORE"
    assert [(s.rank, s.score) for s in ranks] == [(4, 120), (1, 30), (1, 30), (3, 55)]


async def test_a_dictionary_outage_fails_the_call_and_stores_nothing() -> None:
    host, servicer, dictionary = make()
    await open_game(host, servicer, ("ada", "bob"))
    for x, tile in enumerate((0, 1, 2, 3)):
        await servicer.act("g", "ada", None, place(0, tile, x), f"a{x}")
    before = len(await host.history("g"))

    async def outage() -> None:
        raise Unavailable("the dictionary is down")

    dictionary.before_answer = outage
    with pytest.raises(Unavailable):
        await servicer.act("g", "ada", None, tf.CallDone, "done")
    assert len(await host.history("g")) == before


async def test_an_honor_done_with_tiles_in_hand_stands_and_is_stored_with_the_count() -> None:
    """Rules 2: Ada calls Done holding S; she pays twice S, Bob his never-placed tiles."""
    host, servicer, _ = make()
    await open_game(host, servicer, ("ada", "bob"))
    for x, tile in enumerate((0, 1, 2)):  # CAT; S (3) stays in hand
        await servicer.act("g", "ada", None, place(0, tile, x), f"a{x}")
    outcome, _, events = await servicer.act("g", "ada", None, tf.CallDone, "done")
    assert outcome.state.game.phase is tf.Phase.OVER
    done = next(r.event for r in events if isinstance(r.event, tf.DoneCalled))
    assert (done.seat, done.in_hand) == (0, 1)
    scored = next(r.event for r in events if isinstance(r.event, tf.RoundScored))
    assert not scored.done_valid
    assert scored.scores == (2 * 1, 2 + 1 + 2 + 1)  # S; D O G E never placed
    stored = await host.history("g")
    assert any(r.event == done for r in stored)


async def test_a_tile_set_too_small_for_the_table_is_an_invalid_argument() -> None:
    host, _, _ = make()
    seats = (Seat("ada"), Seat("bob"), Seat("cy"))
    config = tf.TakeFourConfig(tiles=tile_set("A1 B1"))
    with pytest.raises(InvalidArgument) as refused:
        await host.create("g", OpenTable(seats, tf.CreateGame(config, engine_seats(seats))))
    assert refused.value.reason == "TILE_SET_TOO_SMALL"
    assert await host.history("g") == []


async def test_leave_forfeits_the_seat_and_with_two_players_the_other_wins() -> None:
    host, servicer, _ = make()
    await open_game(host, servicer, ("ada", "bob"))
    outcome, seat, events = await servicer.act(
        "g", "ada", None, lambda s: tf.Forfeit(s, "LEFT"), "leave"
    )
    assert seat == 0
    assert events[0].event == tf.SeatForfeited(0, "LEFT")
    assert outcome.state.game.phase is tf.Phase.OVER
    finished = events[-1].event
    assert isinstance(finished, GameFinished)
    assert finished.reason == "FORFEIT"
    assert [s.rank for s in finished.standings] == [2, 1]


async def test_a_caller_with_no_seat_is_refused_without_waiting_for_the_games_turn() -> None:
    """Someone with no seat is refused NOT_SEATED at once, not queued behind the game's
    players for its turn: else anyone could queue commands on a game in play, each holding
    its lock (and a read of the store) ahead of the players' own."""
    host, servicer, _ = make()
    await open_game(host, servicer, ("ada", "bob"))
    held, release = asyncio.Event(), asyncio.Event()

    async def a_players_command() -> None:
        async with servicer.pipeline.turn("g"):
            held.set()
            await release.wait()

    busy = asyncio.create_task(a_players_command())
    await held.wait()
    try:
        with pytest.raises(PermissionDenied) as refused:
            async with asyncio.timeout(1):
                await servicer.act("g", "cy", None, place(0, 0, 0), "cy-1")
        assert refused.value.reason == "NOT_SEATED"
    finally:
        release.set()
        await busy
    _, seat, _ = await servicer.act("g", "ada", None, place(0, 0, 0), "ada-1")
    assert seat == 0


class EnableDictionary(FakeDictionary):
    """The dictionary's own answers on the packaged ENABLE list (``check_many``, as the
    dictionary service gives them)."""

    async def verdicts(
        self, lexicon: str, words: frozenset[str], remaining: float | None = None
    ) -> dict[str, bool]:
        ordered = sorted(words)
        return dict(zip(ordered, enable1().check_many(ordered), strict=True))


async def test_a_round_judged_by_enable_is_followed_at_once_by_the_next_deal() -> None:
    """GODE is no word in ENABLE (GOD is: E goes); the round scored short of the game's end
    is followed by the next round's deal, and the last round set ends the game."""
    host: Any = GameHost("takefour", rules(), Codec(), InMemoryEventStore())
    servicer = TAKEFOUR_SERVING.servicer(host, EnableDictionary(), queue=GameQueue())
    seats = (Seat("ada"), Seat("bob"))
    config = tf.TakeFourConfig(tiles=TILES, max_rounds=2, lexicon="enable1-test")
    await host.create("g", OpenTable(seats, tf.CreateGame(config, engine_seats(seats))))
    await host.execute("g", tf.StartRound(tuple(range(8))))  # ada: C A T S, bob: D O G E
    for x, tile in enumerate((0, 1, 2, 3)):
        await servicer.act("g", "ada", None, place(0, tile, x), f"a{x}")
    for x, tile in enumerate((6, 5, 4, 7)):
        await servicer.act("g", "bob", None, place(1, tile, x), f"b{x}")
    outcome, _, events = await servicer.act("g", "ada", None, tf.CallDone, "done1")
    scored = next(r.event for r in events if isinstance(r.event, tf.RoundScored))
    assert (scored.scores, scored.removed[1]) == ((0, 1), ((3, 0),))
    game = outcome.state.game
    assert (game.round, game.phase, [len(p.hand) for p in game.players]) == (
        2,
        tf.Phase.PLAYING,
        [4, 4],
    )
    outcome, _, _ = await servicer.act("g", "bob", None, tf.CallDone, "done2")  # honor: stands
    assert outcome.state.game.phase is tf.Phase.OVER
    assert len(outcome.state.game.results) == 2
