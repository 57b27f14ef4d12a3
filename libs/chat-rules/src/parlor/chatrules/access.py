"""Who may write and read each room, decided from facts the event store holds.

Rooms: the lobby's (one for the platform), and two per game: its **players' room** (its
seats) and its **spectators' room** (kibitz). The facts (``GameFacts``) are the game's as its
own stream records them: its seats, whether it has finished, whether its game type hides
information (Upwords' racks, Take Four's hands: ``GameType.public`` is set), and whether
the caller is admitted to a private game (``parlor.admission.privacy``). Nothing a client
says about a game is believed.

Writing:

- the lobby: anyone with a token;
- a players' room: its seats only (``PERMISSION_DENIED CHAT_NOT_SEATED``);
- a spectators' room: anyone admitted to the game who holds no seat in it; its seats
  only after the game has ended (``PERMISSION_DENIED CHAT_SEAT_IN_KIBITZ`` before).

Reading (``Reading``):

- the lobby: everyone, at once;
- a players' room: its seats at once; anyone else admitted to the game at once in a game
  that hides nothing; in a game that hides information, only after
  ``Visibility.players_delay_seconds`` (operator setting), or by default (None) not at all
  while the game runs: a player's words are shown to spectators once it has ended;
- a spectators' room: never to a seat while its game runs (``PERMISSION_DENIED
  CHAT_SEAT_IN_KIBITZ``); to its seats after the end unless the operator turned that off
  (``Visibility.kibitz_after_game``; ``PERMISSION_DENIED CHAT_KIBITZ_HIDDEN``); to
  spectators at once.

Moderators (role ``moderator`` or ``admin``) and platform services read every room as a
spectator does and see its reports and moderation; a moderator who holds a seat in a game is a
seat there (no role opens the spectators' room to a player during their own game).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from parlor.core.errors import PermissionDenied


class Kind(enum.Enum):
    LOBBY = "lobby"
    PLAYERS = "players"
    SPECTATORS = "spectators"


@dataclass(frozen=True)
class GameFacts:
    """A game as its stream records it."""

    seats: tuple[str, ...]
    finished: bool
    hides_information: bool


@dataclass(frozen=True)
class Viewer:
    player_id: str
    moderator: bool = False
    service: bool = False


@dataclass(frozen=True)
class Visibility:
    """The operator's choices about what crosses between a game's rooms."""

    players_delay_seconds: float | None = None
    """How long after it is posted a player's message in a game that hides information is
    shown to spectators; None (the default): not while the game runs."""
    kibitz_after_game: bool = True
    """Whether a game's seats may read its spectators' room once it has ended."""


@dataclass(frozen=True)
class Reading:
    """What a viewer is shown of a room: messages posted ``delay`` seconds ago or more
    (None: only once the game has ended; 0: at once), and whether reports are shown."""

    delay: float | None = 0.0
    moderation: bool = False


def seated(viewer: Viewer, game: GameFacts | None) -> bool:
    return game is not None and viewer.player_id in game.seats


def may_write(kind: Kind, game: GameFacts | None, viewer: Viewer) -> None:
    """Nothing if ``viewer`` may post in the room; ``PermissionDenied`` with a reason if not."""
    if kind is Kind.LOBBY:
        return
    assert game is not None
    if kind is Kind.PLAYERS:
        if not seated(viewer, game):
            raise PermissionDenied(
                "only the game's seats write in its players' room", reason="CHAT_NOT_SEATED"
            )
        return
    if seated(viewer, game) and not game.finished:
        raise PermissionDenied(
            "a seat may not use the spectators' room while its game runs",
            reason="CHAT_SEAT_IN_KIBITZ",
        )


def reading(kind: Kind, game: GameFacts | None, viewer: Viewer, visibility: Visibility) -> Reading:
    """What ``viewer`` reads of the room, or ``PermissionDenied`` with a reason."""
    overseer = (viewer.moderator or viewer.service) and not seated(viewer, game)
    if kind is Kind.LOBBY:
        return Reading(0.0, overseer)
    assert game is not None
    if kind is Kind.PLAYERS:
        if seated(viewer, game) or game.finished or not game.hides_information:
            return Reading(0.0, overseer)
        return Reading(visibility.players_delay_seconds, overseer)
    if seated(viewer, game):
        if not game.finished:
            raise PermissionDenied(
                "a seat may not read the spectators' room while its game runs",
                reason="CHAT_SEAT_IN_KIBITZ",
            )
        if not visibility.kibitz_after_game:
            raise PermissionDenied(
                "this platform does not show a game's spectators' room to its players",
                reason="CHAT_KIBITZ_HIDDEN",
            )
    return Reading(0.0, overseer)


def may_moderate(viewer: Viewer, game: GameFacts | None) -> None:
    """Moderators time out, delete and close; a seat never moderates its own game's rooms."""
    if not (viewer.moderator or viewer.service) or seated(viewer, game):
        raise PermissionDenied(
            "only a moderator (a role operators grant) does this", reason="CHAT_NOT_MODERATOR"
        )
