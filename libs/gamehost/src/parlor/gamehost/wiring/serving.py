"""A game's service, declared: built from the game's value and its wire, one way for every game.

A game's service module names its ``Serving`` once, beside its ``GAME`` and ``WIRE``::

    SERVING = Serving(GAME, WIRE)

and registers ``SERVING.component`` under ``parlor.services`` (its pyproject), as its
``GAME`` under ``parlor.game_types``. From it come the game's gRPC servicer
(``SERVING.servicer(host, ...)``: ``GameService`` built from the value and the wire, which
tests and tools call too) and its component (``game_component``, or a word game's
``word_game_component``, given ``dictionary``: a word game's). What a game adds is
declared, not written out: a wire drawing from the servicer's secure random (Upwords' returned
tiles: ``wire`` as a function of it), bots made with the dictionary client (``bots``),
settings of its own, loaded when its component starts, and the work its servicer starts with
(``start``: Take Four's queue and bot runner). A word game's component loads its dictionary
client's settings in its own module (``dictionary=lambda: load(DictionarySettings)``): only
the word games' deployments set them (tests/deploy reads which service loads which).
"""

from __future__ import annotations

import contextlib
import functools
import random
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from parlor.directory.projection import Directory
from parlor.gamehost.host.host import GameHost
from parlor.gamehost.pipeline.games import GameType
from parlor.gamehost.pipeline.turns import Bots
from parlor.gamehost.wire.service import GameService
from parlor.gamehost.wire.wire import Wire
from parlor.gamehost.wiring.component import Served, game_component
from parlor.gamehost.wiring.wordgame import word_game_component
from parlor.gamehost.words.words import Dictionary, DictionarySettings
from parlor.kit.server import Component
from parlor.kit.settings import load

MakeBots = Callable[[Any, str, random.Random], Bots]
"""(the dictionary client, the word list file the bots play from, the servicer's random) ->
the bots the pipeline plays (Upwords': its word graph and the dictionary's verdicts)."""
Start = Callable[[Callable[..., GameService[Any, Any]], Any], Served]
"""(the servicer, made with the options given, the service's settings) -> it and its work."""


def _served(make: Callable[..., GameService[Any, Any]], settings: Any) -> Served:
    return Served(make())


@dataclass(frozen=True)
class Serving:
    """How a game is served (see the module's notes): ``wire``, or the wire of the
    servicer's random; ``bots`` (default: the game's value's); ``settings`` (a
    ``kit.settings`` dataclass) loaded when the component starts and handed to ``start``;
    ``dictionary``, a word game's: its dictionary client's settings, loaded then."""

    game: GameType[Any, Any, Any]
    wire: Wire[Any, Any] | Callable[[random.Random], Wire[Any, Any]]
    bots: MakeBots | None = None
    settings: type | None = None
    start: Start = _served
    dictionary: Callable[[], DictionarySettings] | None = None

    def servicer(
        self,
        host: Any,
        dictionary: Dictionary | None = None,
        *,
        chance: random.Random | None = None,
        bot_words: str = "",
        **options: Any,
    ) -> GameService[Any, Any]:
        """The game's gRPC servicer on ``host`` (``GameService``'s ``options``), a word
        game's given its dictionary client; ``chance`` draws what the wire and the bots
        draw (a secure random unless a test's); ``bot_words``: the word list file the
        bots play from (empty: their packaged one)."""
        drawn = chance if chance is not None else secrets.SystemRandom()
        wire = self.wire if isinstance(self.wire, Wire) else self.wire(drawn)
        if self.bots is not None:
            options["bots"] = self.bots(dictionary, bot_words, drawn)
        if dictionary is not None:
            options["dictionary"] = dictionary
        return GameService(host, game=self.game, wire=wire, **options)

    @contextlib.asynccontextmanager
    async def component(self) -> AsyncIterator[Component]:
        """The game's component (``parlor.services``): its servicer, on the game host's
        set-up, started with the work ``start`` gives it."""
        settings = load(self.settings) if self.settings is not None else None

        def serve(
            host: GameHost[Any, Any, Any], directory: Directory, dictionary: Any = None
        ) -> Served:
            make = functools.partial(self.servicer, host, dictionary, directory=directory)
            return self.start(make, settings)

        if self.dictionary is None:
            async with game_component(self.game, serve) as component:
                yield component
        else:
            words = self.dictionary()
            async with word_game_component(self.game, words, serve) as component:
                yield component
