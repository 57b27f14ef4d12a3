"""A deterministic bot: the highest-scoring legal play, else an exchange, else a pass.

It sees only what its seat sees (a ``PlayerView``), so it cannot cheat. Its word
list is its own; the service still checks the bot's words with the dictionary.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from parlor.rules.upwords import tiles
from parlor.rules.upwords.board import Board
from parlor.rules.upwords.config import WordChecking
from parlor.rules.upwords.crossword import words_formed
from parlor.rules.upwords.dawg import Dawg
from parlor.rules.upwords.movegen import GeneratedPlay, generate
from parlor.rules.upwords.moves import AcceptPlay, Challenge, Exchange, Pass, Placement, Play
from parlor.rules.upwords.state import Phase, UpwordsState
from parlor.rules.upwords.view import PlayerView, view

BEST = "best"
RANDOM = "random"
LEVELS = frozenset({BEST, RANDOM})
"""``best`` plays the highest-scoring valid play, ``random`` any valid play."""
BOT_CANDIDATES = 24
"""Plays a bot offers the dictionary at once; the first all-valid one is played."""


@dataclass(frozen=True)
class BotPlay:
    placements: tuple[Placement, ...]
    score: int


@dataclass(frozen=True)
class BotExchange:
    tile: str


@dataclass(frozen=True)
class BotPass:
    pass


BotMove = BotPlay | BotExchange | BotPass


def _order(play: GeneratedPlay) -> tuple[int, tuple[tuple[int, int, str], ...]]:
    """Highest score first; ties broken by the squares and tiles, so the choice is stable."""
    return (-play.score, tuple((p.row, p.col, p.tile) for p in play.placements))


class UpwordsBot:
    """Builds its DAWG once from any iterable of words; then ``choose`` per turn."""

    def __init__(self, words: Iterable[str] | Dawg) -> None:
        self.lexicon = words if isinstance(words, Dawg) else Dawg(words)

    def plays(
        self, board: Board, rack: Sequence[str], *, plural_rule: bool = True
    ) -> list[GeneratedPlay]:
        """Every legal play of ``rack``, best first, single-tile duplicates removed."""
        seen: set[frozenset[Placement]] = set()
        out: list[GeneratedPlay] = []
        for play in sorted(
            generate(board, rack, self.lexicon, plural_rule=plural_rule), key=_order
        ):
            key = frozenset(play.placements)
            if key not in seen:
                seen.add(key)
                out.append(play)
        return out

    def best_play(
        self, board: Board, rack: Sequence[str], *, plural_rule: bool = True
    ) -> GeneratedPlay | None:
        best: GeneratedPlay | None = None
        for play in generate(board, rack, self.lexicon, plural_rule=plural_rule):
            if best is None or _order(play) < _order(best):
                best = play
        return best

    def choose(self, seen: PlayerView) -> BotMove:
        """The bot's move for the seat whose view this is."""
        if seen.rack is None or seen.phase is not Phase.PLAYING:
            return BotPass()
        best = self.best_play(seen.board, seen.rack, plural_rule=seen.config.plural_rule)
        if best is not None:
            return BotPlay(best.placements, best.score)
        if seen.bag_count > 0 and not seen.retry and seen.rack:
            return BotExchange(self.worst_tile(seen.rack))
        return BotPass()

    def doubts(self, words: Iterable[str]) -> tuple[str, ...]:
        """Words the bot would challenge (not in its own word list)."""
        return tuple(w for w in words if w not in self.lexicon)

    @staticmethod
    def worst_tile(rack: Sequence[str]) -> str:
        """The tile to give back: the rarest in the bag's make-up (hardest to use)."""
        return min(rack, key=lambda t: (tiles.DISTRIBUTION[t], t))


def first_valid(
    seat: int,
    candidates: Sequence[BotPlay],
    formed: Sequence[Sequence[str]],
    verdicts: Mapping[str, bool],
) -> Play | None:
    """The first candidate all of whose words (``formed``, one list per candidate) the
    dictionary accepted, carrying those verdicts (None: no candidate is valid)."""
    for candidate, words in zip(candidates, formed, strict=True):
        if all(verdicts[w] for w in words):
            return Play(seat, candidate.placements, {w: True for w in words})
    return None


def no_valid_play(seen: PlayerView, seat: int, insert_position: int) -> Exchange | Pass:
    """The bot's move when none of its plays is valid: give back its worst tile, if it may
    (the bag has tiles, it is not a retry), else pass."""
    if seen.bag_count > 0 and not seen.retry and seen.rack:
        return Exchange(seat, UpwordsBot.worst_tile(seen.rack), insert_position)
    return Pass(seat)


def answer_pending(
    bot: UpwordsBot, state: UpwordsState, seat: int
) -> Challenge | AcceptPlay | None:
    """A bot's answer to another seat's pending play: a challenge if the bot doubts a word
    (its verdicts still empty: the dictionary's are the caller's to ask), accepting it if it
    is final, else None (play on)."""
    pending = state.pending
    if pending is None or pending.seat == seat:
        return None
    if bot.doubts(pending.words):
        return Challenge(seat, {})
    return AcceptPlay(seat) if state.pending_is_final() else None


def candidates(bot: UpwordsBot, seen: PlayerView, level: str, rng: random.Random) -> list[BotPlay]:
    """The plays a bot of ``level`` offers (at most ``BOT_CANDIDATES``): the best first, or
    in a random order below ``best``."""
    if seen.rack is None:
        return []
    plays = bot.plays(seen.board, seen.rack, plural_rule=seen.config.plural_rule)
    found = [BotPlay(p.placements, p.score) for p in plays]
    if level != BEST:
        rng.shuffle(found)
    return found[:BOT_CANDIDATES]


def checked_words(
    state: UpwordsState, seat: int, plays: Sequence[BotPlay]
) -> list[list[str]] | None:
    """The words each of ``plays`` forms, for the dictionary (None: no check, word checking is
    the players', not automatic)."""
    if plays and state.config.word_checking is not WordChecking.AUTO:
        return None
    return [words_formed(state, Play(seat, c.placements)) for c in plays]


def chosen_play(
    state: UpwordsState,
    seat: int,
    plays: Sequence[BotPlay],
    formed: Sequence[Sequence[str]] | None,
    verdicts: Mapping[str, bool],
    insert_position: int,
) -> Play | Exchange | Pass:
    """The bot's move among ``plays``: the first whose words (``formed``) are all valid, the
    first at all when nothing is checked (``formed`` None), else an exchange or a pass."""
    if formed is None:
        return Play(seat, plays[0].placements)
    chosen = first_valid(seat, plays, formed, verdicts)
    return chosen if chosen is not None else no_valid_play(view(state, seat), seat, insert_position)


@dataclass(frozen=True)
class Offer:
    """The plays a bot offers the dictionary (``candidates``) and the words each forms
    (``checked_words``; None: word checking is the players', nothing is asked)."""

    plays: list[BotPlay]
    formed: list[list[str]] | None

    @property
    def words(self) -> list[str]:
        """Every word to ask the dictionary about, in one batch."""
        return [w for words in self.formed or () for w in words]

    def chosen(
        self, state: UpwordsState, seat: int, verdicts: Mapping[str, bool], insert_position: int
    ) -> Play | Exchange | Pass:
        """The bot's move, given the dictionary's ``verdicts`` on ``words`` (``chosen_play``)."""
        return chosen_play(state, seat, self.plays, self.formed, verdicts, insert_position)


def bot_turn(
    bot: UpwordsBot, state: UpwordsState, seat: int, level: str, rng: random.Random
) -> Challenge | AcceptPlay | Offer:
    """A bot's turn (a search of seconds): its answer to another seat's pending play (a
    challenge still to carry the dictionary's verdicts), else the plays it offers."""
    answer = answer_pending(bot, state, seat)
    if answer is not None:
        return answer
    plays = candidates(bot, view(state, seat), level, rng)
    return Offer(plays, checked_words(state, seat, plays))
