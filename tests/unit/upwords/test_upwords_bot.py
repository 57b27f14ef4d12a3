"""The bot: complete move generation (checked against brute force), stacking, Qu, fallbacks."""

from __future__ import annotations

import itertools

from upwords_testkit import board, state

from parlor.core.errors import ParlorError
from parlor.rules.upwords import QU, Board, Placement, check_play, view
from parlor.rules.upwords.board import SIZE
from parlor.rules.upwords.bot import (
    BotExchange,
    BotPass,
    BotPlay,
    UpwordsBot,
    first_valid,
    no_valid_play,
)
from parlor.rules.upwords.moves import Exchange, Pass, Play

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
