"""What the word games (Upwords, Take Four) share around their moves, written once.

A word game's rules list the words a command is decided by and take the dictionary's
verdicts on them (their ``WordChecks``); the service asks the dictionary about all of them
in one batch, inside the command, so the verdicts are about the very state the command is
decided on (after a conflict the host decides again from the new state: a verdict is never
stale). Its component gets a dictionary client with a token of the service's own
(``serve(host, directory, dictionary)`` makes its servicer)::

    async with word_game_component(GAME, load(DictionarySettings), serve) as component:
        yield component
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any, TypeVar

from parlor.gamehost.command import Answer
from parlor.gamehost.component import Served, game_component
from parlor.gamehost.directory import Directory, GameList
from parlor.gamehost.games import GameType
from parlor.gamehost.host import GameHost
from parlor.gamehost.opener import Settle
from parlor.gamehost.queue import GameQueue
from parlor.gamehost.seating import Table
from parlor.gamehost.service import GameService
from parlor.gamehost.words import AUDIENCE, Dictionary, DictionarySettings, WordChecks
from parlor.kit.auth import AuthSettings
from parlor.kit.server import Component
from parlor.kit.settings import load

T = TypeVar("T", bound=Table[Any])
E = TypeVar("E")
C = TypeVar("C")

Remaining = Callable[[], float | None]
"""The caller's time left (None: no deadline), read when the dictionary is asked."""
WordServe = Callable[[GameHost[Any, Any, Any], Directory, Dictionary], Served]
"""(the game's host, its directory, the dictionary client) -> its servicer and work."""


class WordGameService(GameService[T, E]):
    """A word game's servicer: every declared move's command carries the dictionary's
    verdicts on the words it is decided by (``word_checks``: the rules' ``WordChecks``; a
    command that needs none asks nothing). The game's state has its lexicon's id at
    ``config.lexicon``."""

    word_checks: WordChecks[Any, Any]

    def __init__(
        self,
        host: GameHost[T, Any, E],
        dictionary: Dictionary,
        directory: GameList | None = None,
        queue: GameQueue | None = None,
    ) -> None:
        super().__init__(host, directory, queue)
        self.dictionary = dictionary

    async def with_lexicon(self, config: Any, deadline: float | None) -> Any:
        """A new game's ``config`` (a dataclass) with the dictionary's id of the lexicon it
        names ("": the dictionary's default): the game records the very list it is played by."""
        return replace(config, lexicon=await self.dictionary.lexicon_id(config.lexicon, deadline))

    async def settled(self, create: Any, deadline: float | None) -> Any:
        """A new game's create command with its lexicon's id (``with_lexicon``)."""
        return replace(create, config=await self.with_lexicon(create.config, deadline))

    async def with_verdicts(self, game: Any, command: C, remaining: Remaining = lambda: None) -> C:
        """``command`` carrying the verdicts it needs on ``game`` (one batch, bounded by
        ``remaining``)."""
        lexicon = game.config.lexicon
        return await self.dictionary.attach(self.word_checks, lexicon, game, command, remaining)

    def create_answers(self) -> Settle:
        """A new game's create carries its lexicon's id (``settled``)."""
        return self.settled

    def outside_answers(self) -> Answer:
        """Every command that asks (``Command.asks``: every declared move's, a bot runner's,
        a move written out by hand that says so) carries its verdicts on the state it is
        decided on."""
        return self.with_verdicts


@contextlib.asynccontextmanager
async def word_game_component(
    game: GameType[Any, Any, Any], words: DictionarySettings, serve: WordServe
) -> AsyncIterator[Component]:
    """``game_component`` of a word game whose servicer ``serve`` also gives the dictionary
    client (``words``' target and timeout, a token of the game's own; in ``extra`` as
    ``dictionary``), closed when the component stops. The game's service loads ``words``
    (``load(DictionarySettings)``): only the word games' deployments set them. Its
    declaration says it calls the dictionary (``GameType.calls``), so that its deployment
    has a key to sign that token with."""
    if AUDIENCE not in game.calls:
        raise ValueError(
            f"{game.name} calls the dictionary: its declaration needs calls=('dictionary',)"
        )
    async with Dictionary.of(words, load(AuthSettings), game.name) as dictionary:

        def served(host: GameHost[Any, Any, Any], directory: Directory) -> Served:
            made = serve(host, directory, dictionary)
            made.extra.setdefault("dictionary", dictionary)
            return made

        async with game_component(game, served) as component:
            yield component
