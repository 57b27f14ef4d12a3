"""The TypeScript client's and the web client's lists of games, from the registry.

``@parlor/client`` types every game's calls (``parlor.upwords.play(...)``,
``watchGame("takefour", ...)``) from ``GAME_SERVICES``: each game type's service descriptor,
which protoc-gen-es generates from the game's proto into ``src/gen``. That list must be
known when the package is compiled, so it is a file, written with the deploy lists by
``python -m parlor.devinfra.gamelists`` from each registered game's proto file and service,
and checked by tests/deploy/test_deploy_gamelists.py like them.

The web client draws each game with a board of its own (``web/src/<game>.ts``, exporting
``<game>``: its ``GameKind``); ``web/src/boards.ts`` lists the boards of the registered games
that have one, written the same way. The seat ranges and bots the lobby offers are not in
the web client: it asks matchmaking (``ListGameTypes``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

FILE = Path("clients/typescript/src/games.ts")
BOARDS = Path("web/src/boards.ts")
HEAD = """\
// The game services by game type, as matchmaking names the types, and each game's messages
// as a namespace (`upwords.Game`, ...). Written from the registry of games (the
// parlor.game_types entry points) by `python -m parlor.devinfra.gamelists`, which
// tests/deploy/test_deploy_gamelists.py checks: not edited by hand.
"""


@dataclass(frozen=True)
class ClientGame:
    name: str  # "upwords": the game type, and the client's property
    service: str  # "parlor.upwords.v1.UpwordsService"
    proto: str  # "parlor/upwords/v1/upwords.proto": the file that declares it

    @property
    def descriptor(self) -> str:
        """The name protoc-gen-es gives the service's descriptor (the proto's name)."""
        return self.service.rpartition(".")[2]

    @property
    def module(self) -> str:
        """Where protoc-gen-es writes the proto's code, as the client imports it."""
        return f"./gen/{self.proto.removesuffix('.proto')}_pb.js"


def games_ts(games: Sequence[ClientGame]) -> str:
    """The text of ``games.ts``: ``GAME_SERVICES`` and the games' namespaces, in name order."""
    lines = [HEAD.rstrip("\n")]
    lines += [f'import {{ {g.descriptor} }} from "{g.module}";' for g in games]
    lines += ["", "export const GAME_SERVICES: {"]
    lines += [f"  readonly {g.name}: typeof {g.descriptor};" for g in games]
    lines += ["} = {"]
    lines += [f"  {g.name}: {g.descriptor}," for g in games]
    lines += ["};", ""]
    lines += [f'export * as {g.name} from "{g.module}";' for g in games]
    return "\n".join(lines) + "\n"


BOARDS_HEAD = """\
// The boards of the web client, one per game that has one (web/src/<game>.ts): the lobby
// offers those of them matchmaking lists, and the play and replay pages draw with them.
// Written from the registry of games by `python -m parlor.devinfra.gamelists`, which
// tests/deploy/test_deploy_gamelists.py checks: not edited by hand.
"""


def boards_ts(names: Sequence[str]) -> str:
    """The text of ``web/src/boards.ts``: the boards of the games ``names``, in name order."""
    lines = [BOARDS_HEAD.rstrip("\n")]
    lines += [f'import {{ {name} }} from "./{name}";' for name in names]
    lines += ["", f"export const BOARDS = [{', '.join(names)}] as const;"]
    return "\n".join(lines) + "\n"
