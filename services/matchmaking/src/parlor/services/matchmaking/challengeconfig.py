"""A challenge's game configuration, checked when the challenge is made.

A challenge may carry the game type's own ``Config`` (the message its ``CreateGame``
takes: Connect 4x4's players, first seat and blockers rule, Take Four's target and round
limit, Upwords' options), serialized (``CreateChallengeRequest.config``; the game type
says which message it is). It is checked here, at the edge, before anything is stored, so
an invalid one is refused when the challenge is made and never when it is accepted: the
game must take a Config, the bytes must decode as it, every field must be within its
declared bounds (``parlor.kit.bounds``), and the seat fields the platform knows
(``players``, ``first_seat``), where the game's Config has them and they are set, must fit
the challenge's seats. ``INVALID_ARGUMENT BAD_CONFIG`` otherwise (a field out of its
bounds: the bounds' own reason). Then the game's own create (``GameType.create``, the pure
``parlor.rules.<game>.hosting``) is asked to make its create command of it for the
challenge's seats, so what the game would refuse at the match (Connect 4x4's
``INVALID_PLAYER_COUNT``) is refused now, with the game's reason.

The challenge keeps the bytes (base64, in ``ChallengeIssued.config``) and its match
carries them (``MatchFormed.config``).
"""

from __future__ import annotations

import base64

from google.protobuf import unknown_fields
from google.protobuf.message import DecodeError, Message

from parlor.core.errors import InvalidArgument, ParlorError
from parlor.gametypes.catalogue import CataloguedGame
from parlor.kit import bounds


def _refuse(message: str) -> InvalidArgument:
    return InvalidArgument(message, reason="BAD_CONFIG")


def config_type(game: CataloguedGame) -> type[Message] | None:
    """The game's Config message (None: the game takes no configuration)."""
    config = getattr(game.proto, "Config", None) if game.proto is not None else None
    return config if isinstance(config, type) and issubclass(config, Message) else None


def checked_config(game: CataloguedGame, raw: bytes, seats: int, bots: int = 0) -> str:
    """``raw`` checked for a challenge of ``game`` with ``seats`` seats (the last ``bots`` of
    them bots), as the challenge keeps it (base64; empty: none given, the game's defaults)."""
    if not raw:
        return ""
    kind = config_type(game)
    if kind is None:
        raise _refuse(f"{game.name} takes no configuration")
    config = kind()
    try:
        config.ParseFromString(raw)
    except DecodeError as error:
        raise _refuse(f"the configuration is not a {kind.DESCRIPTOR.full_name}") from error
    if len(unknown_fields.UnknownFieldSet(config)):
        raise _refuse(f"the configuration has fields a {kind.DESCRIPTOR.full_name} has not")
    bounds.check(config, "config")
    fields = kind.DESCRIPTOR.fields_by_name
    players = getattr(config, "players", 0) if "players" in fields else 0
    if players and players != seats:
        raise _refuse(f"the configuration says {players} players; the challenge seats {seats}")
    first = getattr(config, "first_seat", 0) if "first_seat" in fields else 0
    if first >= seats:
        raise _refuse(f"first_seat is a seat, 0 to {seats - 1}")
    if game.hosting is not None and game.config_of is not None:
        players = tuple(f"seat-{i}" for i in range(seats))
        try:
            game.create(config, players, tuple(i >= seats - bots for i in range(seats)))
        except ParlorError:
            raise  # the game's own refusal, with its reason
        except (ValueError, TypeError) as error:
            raise _refuse(f"{game.name} cannot be made with this configuration") from error
    return base64.b64encode(raw).decode("ascii")


def config_bytes(stored: str) -> bytes:
    """What ``checked_config`` kept, as the bytes again (empty: none was given)."""
    return base64.b64decode(stored) if stored else b""
