"""The bot: builds valid crosswords from its tiles, calls when it may, and agrees when stuck."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from kits.takefour import create, play, play_bots, start, tile_set

from parlor.core.decider import replay
from parlor.rules.takefour import (
    TAKE_FOUR,
    AgreeToDeal,
    CallDone,
    CallTakeFour,
    DoneCalled,
    Phase,
    PlaceTile,
    RoundScored,
    SwapJoker,
    TakeFourConfig,
    TakeFourState,
    view,
)
from parlor.rules.takefour.bot import TakeFourBot
from parlor.rules.takefour.crossword import is_crossword
from parlor.rules.takefour.crossword_search import WordIndex, build_crossword
from parlor.rules.takefour.tiles import STANDARD_TILES, faces

ENABLE1 = Path("/work/shared/lexicons/enable1.txt")
SMALL = ["CAT", "CATS", "ACT", "AT", "TA", "DOG", "DOGS", "GOD", "GO", "DO", "OD", "SO"]
HARDNESS = {spec.letter: spec.value for spec in STANDARD_TILES.letters}


@pytest.fixture(scope="module")
def enable1() -> WordIndex:
    return WordIndex(ENABLE1.read_text().split())


def run_plan(state: TakeFourState, bot: TakeFourBot, seat: int) -> TakeFourState:
    words = bot.index.__contains__
    return play(state, *bot.plan(view(state, seat)), words=words)


@pytest.mark.parametrize("size", [8, 16, 24])
def test_bot_builds_a_valid_crossword_from_its_tiles(enable1: WordIndex, size: int) -> None:
    for seed in range(5):
        drawn = random.Random(seed).sample(faces(STANDARD_TILES), size)
        letters = [f for f in drawn if f != "?"]
        layout, complete = build_crossword(enable1, letters, size - len(letters), HARDNESS)
        assert is_crossword(layout.letters, enable1.__contains__)
        if complete:
            assert sorted(v for c, v in layout.letters.items() if c not in layout.jokers) == sorted(
                letters
            )
            assert len(layout.jokers) == size - len(letters)


def test_bot_calls_take_four_when_its_crossword_uses_every_tile() -> None:
    bot = TakeFourBot(SMALL)
    state = start(create(2, tile_set("C1 A1 T1 S1 D1 O1 G1 Z1 E8")))
    plan = bot.plan(view(state, 0))
    assert all(isinstance(c, PlaceTile) for c in plan[:-1])
    assert plan[-1] == CallTakeFour(0)
    state = run_plan(state, bot, 0)
    assert len(state.players[0].hand) == 4


def test_bot_calls_done_once_the_bag_is_empty() -> None:
    bot = TakeFourBot(SMALL)
    state = start(create(2, tile_set("C1 A1 T1 S1 D1 O1 G1 Z1")))
    assert bot.plan(view(state, 0))[-1] == CallDone(0)
    state = run_plan(state, bot, 0)
    assert state.results[-1].scores == (0, 15)  # seat 1 never placed D O G Z


def test_bot_agrees_to_a_stalemate_deal_when_stuck() -> None:
    bot = TakeFourBot(SMALL)
    state = start(create(2, tile_set("Q4 X4 E8")))  # seat 0 holds Q Q Q Q: no word
    plan = bot.plan(view(state, 0))
    assert plan[-1] == AgreeToDeal(0)
    state = run_plan(state, bot, 0)
    assert bot.plan(view(state, 0)) == []  # already agreed: it waits


def test_bot_swaps_a_joker_for_the_real_letter() -> None:
    bot = TakeFourBot(SMALL)
    tiles = tile_set("C1 A1 T1 D1 O1 G1", jokers=2)  # C0 A1 T2 D3 O4 G5 ?6 ?7
    state = start(create(2, tiles), [0, 6, 2, 3, 1, 4, 5, 7])  # seat 0: C ? T D
    state = play(state, PlaceTile(0, 0, 0, 0), PlaceTile(0, 6, 1, 0, "A"), PlaceTile(0, 2, 2, 0))
    state = play(state, PlaceTile(1, 1, 5, 5))  # no A for seat 0 yet: seat 1 holds it
    assert not any(isinstance(c, SwapJoker) for c in bot.plan(view(state, 0)))
    state = start(create(2, tiles), [0, 6, 2, 1, 3, 4, 5, 7])  # seat 0: C ? T A
    state = play(state, PlaceTile(0, 0, 0, 0), PlaceTile(0, 6, 1, 0, "A"), PlaceTile(0, 2, 2, 0))
    assert bot.plan(view(state, 0))[0] == SwapJoker(0, 1, 1, 0)


def test_bot_plans_are_deterministic(enable1: WordIndex) -> None:
    state = start(create(3), random.Random(3).sample(range(100), 100))
    for seat in range(3):
        first = TakeFourBot(enable1).plan(view(state, seat))
        assert first == TakeFourBot(enable1).plan(view(state, seat))
        assert first


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_whole_game_of_bots_ends_with_the_lowest_total_winning(
    enable1: WordIndex, players: int
) -> None:
    bots = [TakeFourBot(enable1) for _ in range(players)]
    state, events = play_bots(bots, TakeFourConfig(), seed=players)
    assert TAKE_FOUR.is_terminal(state)
    result = TAKE_FOUR.result(state)
    assert result is not None
    assert max(result.totals) >= 100
    assert all(result.totals[w] == min(result.totals) for w in result.winners)
    assert replay(TAKE_FOUR, events) == state
    assert any(r.scores[r.done_seat] == 0 for r in state.results)


@pytest.mark.parametrize("checking", ["honor", "auto"])
def test_bot_never_makes_a_false_done(checking: str) -> None:
    """Stuck with the bag empty (Q Q Q Q, no word), it keeps what it has and waits.

    In honor mode a Done with tiles in hand or an invalid grid would stand; the bot never
    calls one.
    """
    bot = TakeFourBot(SMALL)
    state = start(create(2, tile_set("Q4 X4"), checking=checking))
    assert state.bag_empty
    plan = bot.plan(view(state, 0))
    assert not any(isinstance(c, CallDone) for c in plan)
    state = run_plan(state, bot, 0)
    assert state.phase is Phase.PLAYING  # no Done: the round goes on for the others
    assert bot.plan(view(state, 0)) == []  # nothing more to do: it waits


def test_bot_calls_done_only_on_a_valid_crossword_using_every_tile(enable1: WordIndex) -> None:
    for seed, players in ((1, 2), (2, 3), (3, 6)):
        bots = [TakeFourBot(enable1, budget=2_000) for _ in range(players)]
        _, events = play_bots(bots, TakeFourConfig(max_rounds=1), seed=seed)
        done = [e for e in events if isinstance(e, DoneCalled)]
        scored = [e for e in events if isinstance(e, RoundScored)]
        assert len(done) == len(scored) == 1
        assert done[0].in_hand == 0
        assert scored[0].done_valid
        assert scored[0].scores[scored[0].done_seat] == 0
