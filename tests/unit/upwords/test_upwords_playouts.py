"""Random playouts between bots to the end: invariants hold at every step, replay is exact."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from parlor.core.conformance import random_playout
from parlor.core.decider import replay
from parlor.rules.upwords import (
    DISTRIBUTION,
    UPWORDS,
    AcceptPlay,
    Challenge,
    ChallengeFailed,
    Command,
    CreateGame,
    Exchange,
    GameEnded,
    Pass,
    Play,
    PlayWithdrawn,
    UpwordsConfig,
    UpwordsState,
    WordChecking,
    WordPlayed,
    exchange_positions,
    full_bag,
    public_event,
    secret_fields,
    tile_counts,
    view,
    words_formed,
)
from parlor.rules.upwords.board import MAX_HEIGHT
from parlor.rules.upwords.bot import BotExchange, BotPlay, UpwordsBot
from parlor.rules.upwords.dawg import Dawg
from parlor.rules.upwords.notation import format_play, parse_play
from parlor.rules.upwords.state import Phase

ENABLE = Path("/work/shared/lexicons/enable1.txt")
FALLBACK = [
    "at",
    "ta",
    "to",
    "on",
    "no",
    "so",
    "as",
    "is",
    "it",
    "in",
    "an",
    "en",
    "ne",
    "re",
    "er",
    "ed",
    "de",
    "do",
    "od",
    "oe",
    "of",
    "if",
    "us",
    "um",
    "mu",
]


def short_words() -> list[str]:
    """A small, fast word list: ENABLE's words of 2 to 4 letters."""
    if not ENABLE.exists():
        return FALLBACK
    return [w for w in ENABLE.read_text().split() if 2 <= len(w) <= 4]


JUDGE = Dawg(short_words())
# Phony words the challenge-mode bots believe in: real words spelled backwards.
PHONIES = [w[::-1] for w in sorted(JUDGE.words)[::4] if w[::-1] not in JUDGE]
HONEST = UpwordsBot(JUDGE)
BLUFFER = UpwordsBot([*JUDGE.words, *PHONIES])


def verdicts(words: tuple[str, ...] | list[str]) -> dict[str, bool]:
    return {w: w in JUDGE for w in words}


def setup(players: int, rng: random.Random, config: UpwordsConfig) -> list[Command]:
    draw, bag = list(full_bag()), list(full_bag())
    rng.shuffle(draw)
    rng.shuffle(bag)
    seats = tuple(f"bot{i}" for i in range(players))
    return [CreateGame(config, seats, tuple(draw), tuple(bag))]


Chooser = Callable[[UpwordsState, random.Random], Command | None]


def chooser(bot: UpwordsBot) -> Chooser:
    """Bots that mostly play their best, sometimes a random legal play, a pass or a challenge."""

    def choose(state: UpwordsState, rng: random.Random) -> Command | None:
        pending = state.pending
        if pending is not None and rng.random() < 0.3:
            challenger = rng.choice([s for s in range(state.players) if s != pending.seat])
            return Challenge(challenger, verdicts(pending.words))
        seat = state.to_move
        if state.pending_is_final():
            return AcceptPlay(seat)
        roll = rng.random()
        if roll < 0.01:
            return Pass(seat)
        move = bot.choose(view(state, seat))
        if roll < 0.3 and isinstance(move, BotPlay):
            seen = view(state, seat)
            assert seen.rack is not None
            move = BotPlay(rng.choice(bot.plays(seen.board, seen.rack)).placements, 0)
        if isinstance(move, BotPlay):
            words = words_formed(state, Play(seat, move.placements))
            return Play(seat, move.placements, verdicts(words))
        if isinstance(move, BotExchange):
            return Exchange(seat, move.tile, rng.randrange(exchange_positions(state)))
        return Pass(seat)

    return choose


def check_invariants(state: UpwordsState) -> None:
    if state.phase is Phase.NOT_STARTED:
        return
    assert tile_counts(state) == DISTRIBUTION
    assert all(len(stack) <= MAX_HEIGHT for stack in state.board.stacks)
    assert all(len(rack) <= 7 for rack in state.racks)
    if state.config.word_checking is WordChecking.AUTO:
        for run in state.board.words():
            text = "".join((state.board.top(r, c) or "").lower() for r, c in run)
            assert text in JUDGE, text
    for seat in range(state.players):
        seen = view(state, seat)
        assert seen.rack == state.racks[seat]
        if state.phase is not Phase.ENDED:
            assert seen.racks is None
            assert seen.bag is None


@pytest.mark.parametrize(
    ("seed", "players", "mode"),
    [
        (1, 2, WordChecking.AUTO),
        (2, 3, WordChecking.AUTO),
        (3, 4, WordChecking.AUTO),
        (4, 2, WordChecking.CHALLENGE),
        (5, 3, WordChecking.CHALLENGE),
    ],
)
def test_bot_playouts_end_without_broken_invariants(
    seed: int, players: int, mode: WordChecking
) -> None:
    rng = random.Random(seed)
    bot = HONEST if mode is WordChecking.AUTO else BLUFFER
    config = UpwordsConfig(word_checking=mode, lexicon="enable-2to4")
    result = random_playout(
        UPWORDS, setup(players, rng, config), chooser(bot), check_invariants, rng, max_steps=2000
    )
    final = result.final_state
    assert final.phase is Phase.ENDED
    assert isinstance(result.events[-1], GameEnded)
    assert UPWORDS.result(final) is not None
    assert replay(UPWORDS, result.events) == final
    for event in result.events:
        stripped = public_event(event)
        assert all(getattr(stripped, name) is None for name in secret_fields(event))
    assert sum(isinstance(e, WordPlayed) for e in result.events) >= 10


def test_challenge_playouts_take_back_phony_plays() -> None:
    withdrawn = failed = 0
    for seed in range(3):
        rng = random.Random(100 + seed)
        config = UpwordsConfig(word_checking=WordChecking.CHALLENGE)
        result = random_playout(
            UPWORDS, setup(2, rng, config), chooser(BLUFFER), check_invariants, rng, max_steps=2000
        )
        assert result.final_state.phase is Phase.ENDED
        withdrawn += sum(isinstance(e, PlayWithdrawn) for e in result.events)
        failed += sum(isinstance(e, ChallengeFailed) for e in result.events)
    assert withdrawn > 0
    assert failed > 0


def test_move_generation_matches_brute_force_in_played_positions() -> None:
    """Mid-game boards from a bot game (stacks, Qu and all): the generator misses nothing."""
    from test_upwords_bot import brute_force

    rng = random.Random(7)
    (create,) = setup(2, rng, UpwordsConfig())
    state = replay(UPWORDS, UPWORDS.decide(UPWORDS.initial_state(), create))
    checked = 0
    for turn in range(30):
        if UPWORDS.is_terminal(state):
            break
        seat = state.to_move
        if turn % 6 == 5:
            rack = list(state.racks[seat][:3])
            generated = {
                (frozenset(p.placements), p.score) for p in HONEST.plays(state.board, rack)
            }
            assert generated == brute_force(state.board, rack, set(JUDGE.words))
            for play in HONEST.plays(state.board, state.racks[seat]):
                assert parse_play(format_play(state.board, play.placements)) == play.placements
            checked += 1
        command = chooser(HONEST)(state, rng)
        assert command is not None
        state = replay(UPWORDS, UPWORDS.decide(state, command), state)
    assert checked >= 3
