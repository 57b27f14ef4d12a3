"""The bot: complete move generation (checked against brute force), stacking, Qu, fallbacks."""

from __future__ import annotations

import itertools
import random

from upwords_testkit import board, run, state
from upwords_testkit import play as notated

from parlor.core.errors import ParlorError
from parlor.rules.upwords import QU, Board, Placement, check_play, view
from parlor.rules.upwords.board import SIZE
from parlor.rules.upwords.bot import (
    BOT_CANDIDATES,
    BotExchange,
    BotPass,
    BotPlay,
    Offer,
    UpwordsBot,
    answer_pending,
    bot_turn,
    candidates,
    checked_words,
    chosen_play,
    first_valid,
    no_valid_play,
)
from parlor.rules.upwords.config import UpwordsConfig, WordChecking
from parlor.rules.upwords.moves import Challenge, Exchange, Pass, Play

WORDS = [
    "at", "ta", "to", "ot", "on", "no", "so", "os", "as", "is", "it", "ti", "in", "cat", "cot",
    "cut", "hot", "hat", "oat", "sat", "sot", "tot", "tat", "not", "nit", "tin", "ton", "tons",
    "cats", "cots", "coat", "quit", "quits", "quin", "suit", "snit", "into", "onto", "scat",
    "stoa", "taco", "cost", "cast", "coast", "unit", "quoin", "squat", "aqua",
]  # fmt: skip


def brute_force(
    b: Board, rack: list[str], words: set[str]
) -> set[tuple[frozenset[Placement], int]]:
    """Every legal play by trying every set of squares in a line with every rack order."""
    found: set[tuple[frozenset[Placement], int]] = set()
    lines = [[(i, j) for j in range(SIZE)] for i in range(SIZE)]
    lines += [[(j, i) for j in range(SIZE)] for i in range(SIZE)]
    for line in lines:
        for k in range(1, len(rack) + 1):
            for spots in itertools.combinations(line, k):
                for letters in set(itertools.permutations(rack, k)):
                    placements = [
                        Placement(r, c, t) for (r, c), t in zip(spots, letters, strict=True)
                    ]
                    try:
                        check = check_play(b, rack, placements)
                    except ParlorError:
                        continue
                    if all(w in words for w in check.texts):
                        found.add((frozenset(placements), check.score))
    return found


def generated(bot: UpwordsBot, b: Board, rack: list[str]) -> set[tuple[frozenset[Placement], int]]:
    return {(frozenset(p.placements), p.score) for p in bot.plays(b, rack)}


def test_move_generation_finds_exactly_the_legal_plays() -> None:
    bot = UpwordsBot(WORDS)
    b = board("5D COAT", "G4 I(T)", stacks={(4, 4): ["A", "O"], (2, 6): [QU]})
    stacked = 0
    for rack in (["S", "T", "N"], [QU, "I", "S"], ["O", "A", "T"]):
        plays = generated(bot, b, rack)
        assert plays == brute_force(b, rack, set(WORDS)), rack
        stacked += sum(any(b.occupied(p.row, p.col) for p in placements) for placements, _ in plays)
    assert stacked > 0


def test_move_generation_on_the_empty_board() -> None:
    bot = UpwordsBot(WORDS)
    rack = ["C", "A", "T"]
    assert generated(bot, board(), rack) == brute_force(board(), rack, set(WORDS))


def test_bot_stacks_onto_an_existing_tile() -> None:
    bot = UpwordsBot(["word", "wood"])
    move = bot.choose(view(state(board("5E WORD"), racks=("O", "ABC")), 0))
    assert move == BotPlay((Placement(4, 6, "O"),), 1 + 1 + 2 + 1)


def test_bot_plays_qu_as_one_tile() -> None:
    bot = UpwordsBot(["it", "quit"])
    move = bot.choose(view(state(board("5F IT"), racks=([QU, "X"], "ABC")), 0))
    assert move == BotPlay((Placement(4, 4, QU),), 3 * 2 + 2)


def test_bot_respects_the_plural_rule() -> None:
    bot = UpwordsBot(["cat", "cats"])
    move = bot.choose(view(state(board("5E CAT"), racks=("S", "ABC")), 0))
    assert not isinstance(move, BotPlay)


def test_bot_exchanges_its_rarest_tile_when_it_cannot_play() -> None:
    bot = UpwordsBot(["cat"])
    move = bot.choose(view(state(board("5E CAT"), racks=("EZX", "ABC"), bag="AB"), 0))
    assert move == BotExchange("X")


def test_bot_passes_when_it_cannot_play_or_exchange() -> None:
    bot = UpwordsBot(["cat"])
    move = bot.choose(view(state(board("5E CAT"), racks=("EZX", "ABC"), bag=""), 0))
    assert move == BotPass()


def test_bot_is_deterministic() -> None:
    bot = UpwordsBot(WORDS)
    seen = view(state(board("5D COAT"), racks=("STNIUOE", "ABC")), 0)
    assert bot.choose(seen) == UpwordsBot(reversed(WORDS)).choose(seen)
    assert isinstance(bot.choose(seen), BotPlay)


def test_every_generated_play_passes_the_engine_with_its_score() -> None:
    bot = UpwordsBot(WORDS)
    b = board("5D COAT", "G4 I(T)", stacks={(2, 6): [QU]})
    rack = ["S", "T", "N", "O", "A", "I", "C"]
    for play in bot.plays(b, rack):
        check = check_play(b, rack, play.placements)
        assert check.score == play.score
        assert all(w in WORDS for w in check.texts)


def test_the_bot_plays_its_first_candidate_whose_words_the_dictionary_accepted() -> None:
    first = BotPlay((Placement(4, 4, "A"),), 9)
    second = BotPlay((Placement(5, 5, "B"),), 5)
    formed = [["zat", "cat"], ["cab"]]
    chosen = first_valid(1, [first, second], formed, {"zat": False, "cat": True, "cab": True})
    assert chosen == Play(1, second.placements, {"cab": True})
    assert first_valid(1, [first], formed[:1], {"zat": False, "cat": True}) is None


def test_with_no_valid_play_the_bot_gives_back_its_rarest_tile_else_passes() -> None:
    seen = view(state(board("5E CAT"), racks=("EZX", "ABC"), bag="AB"), 0)
    assert no_valid_play(seen, 0, 1) == Exchange(0, "X", 1)
    emptied = view(state(board("5E CAT"), racks=("EZX", "ABC"), bag=""), 0)
    assert no_valid_play(emptied, 0, 0) == Pass(0)


def test_the_bot_challenges_a_pending_play_it_doubts_and_lets_its_own_stand() -> None:
    challenging = UpwordsConfig(word_checking=WordChecking.CHALLENGE)
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"), bag="PQR", config=challenging)
    s, _ = run(s, notated(0, "5E (C)O(T)"))
    assert answer_pending(UpwordsBot(["cat"]), s, 1) == Challenge(1, {})  # "cot": not its word
    assert answer_pending(UpwordsBot(["cat", "cot"]), s, 1) is None  # it plays on
    assert answer_pending(UpwordsBot(["cat"]), s, 0) is None  # its own play


def test_the_bot_offers_its_best_plays_first_and_checks_their_words_unless_challenge_mode() -> None:
    s = state(board("5E CAT"), racks=("SOT", "ABC"))
    bot = UpwordsBot(WORDS)
    offered = candidates(bot, view(s, 0), "best", random.Random(1))
    assert len(offered) == BOT_CANDIDATES  # of more plays than that
    assert [p.score for p in offered] == sorted((p.score for p in offered), reverse=True)
    assert candidates(bot, view(s, 0), "random", random.Random(1)) != offered
    formed = checked_words(s, 0, offered)
    assert formed is not None
    assert [len(words) > 0 for words in formed] == [True] * len(offered)
    refused = formed[0][0]  # the best play's first word: the next play without it is played
    verdicts = {w: w != refused for words in formed for w in words}
    at = next(i for i, words in enumerate(formed) if refused not in words)
    chosen = chosen_play(s, 0, offered, formed, verdicts, 0)
    assert chosen == Play(0, offered[at].placements, dict.fromkeys(formed[at], True))
    unchecked = state(
        board("5E CAT"),
        racks=("SOT", "ABC"),
        config=UpwordsConfig(word_checking=WordChecking.CHALLENGE),
    )
    assert checked_words(unchecked, 0, offered) is None
    assert chosen_play(unchecked, 0, offered, None, {}, 0) == Play(0, offered[0].placements)
    assert chosen_play(s, 0, [], [], {}, 3) == Exchange(0, "T", 3)  # no play: its worst tile


def test_a_bots_turn_answers_a_pending_play_else_offers_its_plays_and_their_words() -> None:
    challenging = UpwordsConfig(word_checking=WordChecking.CHALLENGE)
    s = state(board("5E CAT"), racks=("OXXXXXX", "ABCDEFG"), bag="PQR", config=challenging)
    s, _ = run(s, notated(0, "5E (C)O(T)"))
    assert bot_turn(UpwordsBot(["cat"]), s, 1, "best", random.Random(1)) == Challenge(1, {})
    s = state(board("5E CAT"), racks=("SOT", "ABC"))
    bot = UpwordsBot(WORDS)
    turn = bot_turn(bot, s, 0, "best", random.Random(1))
    assert isinstance(turn, Offer)
    assert turn.plays == candidates(bot, view(s, 0), "best", random.Random(1))
    assert turn.formed == checked_words(s, 0, turn.plays)
    assert turn.formed is not None
    assert turn.words == [w for words in turn.formed for w in words]
    verdicts = dict.fromkeys(turn.words, True)
    assert turn.chosen(s, 0, verdicts, 0) == chosen_play(s, 0, turn.plays, turn.formed, verdicts, 0)
    assert Offer([], None).words == []
