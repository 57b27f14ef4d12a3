"""A word game's component (Upwords, Take Four): the game host's, with a dictionary client.

A word game's rules list the words a command is decided by and take the dictionary's
verdicts on them (their ``WordChecks``, the game's declared ``words``); its servicer, given
the dictionary client (``GameService(..., dictionary=...)``, ``words.WordAnswers``), asks
about all of them in one batch, inside the command, so the verdicts are about the very state
the command is decided on (after a conflict the host decides again from the new state: a
verdict is never stale). Its component gets a dictionary client with a token of the
service's own (``serve(host, directory, dictionary)`` makes its servicer)::

    async with word_game_component(GAME, load(DictionarySettings), serve) as component:
        yield component
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from parlor.directory.projection import Directory
from parlor.gamehost.host.host import GameHost
from parlor.gamehost.pipeline.games import GameType
from parlor.gamehost.wiring.component import Served, game_component
from parlor.gamehost.words.words import AUDIENCE, Dictionary, DictionarySettings
from parlor.kit.auth import AuthSettings
from parlor.kit.server import Component
from parlor.kit.settings import load

WordServe = Callable[[GameHost[Any, Any, Any], Directory, Dictionary], Served]
"""(the game's host, its directory, the dictionary client) -> its servicer and work."""


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
