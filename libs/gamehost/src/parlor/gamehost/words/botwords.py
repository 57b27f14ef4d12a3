"""The word list a word game's bots play from, and their index of it, built once per process.

A bot's index of its words (Upwords' word graph, Take Four's crossword index) takes seconds
to build, so it is built once per process and word list, however many services start (tests
start many). The bots search in the process's bot workers (``thinking``), so that is where
the games build it (``built_index`` inside the search function, the first time a worker
searches for that word list); ``index_once`` gets one in a thread, for what must have it in
the serving process (a benchmark's helper player). The dictionary service still judges every
word a bot plays.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from parlor.gamehost.bots.once import BuiltOnce
from parlor.lexicon import enable1, load_lexicon

T = TypeVar("T")

_BUILT: dict[tuple[Callable[..., Any], str], Any] = {}
_LOCK = threading.Lock()


def bot_words(words_file: str = "") -> Iterable[str]:
    """The words of a word list file (empty: the packaged ENABLE list)."""
    return (load_lexicon(words_file) if words_file else enable1()).words()


def built_index(build: Callable[[Iterable[str]], T], words_file: str = "") -> T:
    """``build`` of the bots' words (``bot_words``), built once per process and word list."""
    with _LOCK:
        key = (build, words_file)
        if key not in _BUILT:
            _BUILT[key] = build(bot_words(words_file))
        built: T = _BUILT[key]
        return built


def index_once(build: Callable[[Iterable[str]], T], words_file: str = "") -> BuiltOnce[T]:
    """``built_index(build, words_file)``, got with ``await get()``: built in a worker thread
    the first time (or the process's already built one)."""
    return BuiltOnce(functools.partial(built_index, build, words_file))
