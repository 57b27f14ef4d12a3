"""A word game's moves carry the dictionary's verdicts on the very state they are decided on,
and its bots' index of their words is built once per process and word list."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from parlor.gamehost.record.command import Command, expires_in
from parlor.gamehost.wire.service import deadline
from parlor.gamehost.words.botwords import index_once
from parlor.gamehost.words.words import Dictionary, WordAnswers

WORDS = {"cat", "dog"}


@dataclass(frozen=True)
class Say:
    """A command deciding on its words (none: it needs no dictionary)."""

    seat: int
    words: tuple[str, ...] = ()
    verdicts: Mapping[str, bool] | None = None


class SayChecks:
    def words_to_check(self, state: Any, command: Say) -> Collection[str]:
        return command.words

    def attach_verdicts(self, state: Any, command: Say, verdicts: Mapping[str, bool]) -> Say:
        return dataclasses.replace(command, verdicts=dict(verdicts))


class Words(Dictionary):
    """Answers from ``WORDS``, noting each batch: (lexicon, words, the caller's time left)."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, tuple[str, ...], float | None]] = []

    async def verdicts(
        self, lexicon_id: str, words: Collection[str], remaining: float | None = None
    ) -> dict[str, bool]:
        self.asked.append((lexicon_id, tuple(words), remaining))
        return {w: w in WORDS for w in words}


def table(lexicon: str) -> Any:
    return SimpleNamespace(game=SimpleNamespace(config=SimpleNamespace(lexicon=lexicon)))


class Context:
    def time_remaining(self) -> float:
        return 2.5


async def test_a_declared_moves_command_carries_the_verdicts_on_its_words_in_one_batch() -> None:
    words = Words()
    service = WordAnswers(words, SayChecks())
    command = Command(
        "ada",
        lambda table, seat: Say(seat, ("cat", "zzz")),
        asks=True,
        expires=expires_in(deadline(Context())),
    )
    said = await dataclasses.replace(command, seat=1).made(table("lex-1"), service.with_verdicts)
    assert said == Say(1, ("cat", "zzz"), {"cat": True, "zzz": False})
    # the game's lexicon, the caller's time left (2.5 s at the edge, less by now)
    assert words.asked == [("lex-1", ("cat", "zzz"), pytest.approx(2.5, abs=0.5))]


async def test_a_command_that_needs_no_words_asks_the_dictionary_nothing() -> None:
    words = Words()
    service = WordAnswers(words, SayChecks())
    command = Command("ada", lambda table, seat: Say(seat), seat=0, asks=True)
    assert await command.made(table("lex-1"), service.with_verdicts) == Say(0)
    assert await service.with_verdicts(table("lex-2").game, Say(3, ("dog",))) == Say(
        3, ("dog",), {"dog": True}
    )
    assert words.asked == [("lex-2", ("dog",), None)]


async def test_the_bots_index_is_built_once_per_word_list_however_many_ask(tmp_path: Path) -> None:
    builds: list[frozenset[str]] = []

    def build(words: Iterable[str]) -> frozenset[str]:
        built = frozenset(words)
        builds.append(built)
        return built

    short, other = tmp_path / "short.txt", tmp_path / "other.txt"
    short.write_text("cat\ndog\n")
    other.write_text("emu\n")
    first, again = index_once(build, str(short)), index_once(build, str(short))
    assert await first.get() == frozenset({"cat", "dog"})
    assert await again.get() is await first.get()
    assert await index_once(build, str(other)).get() == frozenset({"emu"})
    assert builds == [frozenset({"cat", "dog"}), frozenset({"emu"})]
