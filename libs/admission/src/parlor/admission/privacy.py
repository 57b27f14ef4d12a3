"""Who may find and watch a game: private games, spectator invites, players found by id.

A game is public or private, chosen when it is created and never changed:

- ``CreateGame`` makes a public game unless ``private`` is set; a matchmaking game is public,
  a private lobby's game (``MatchFormed.lobby``) private.
- A public game is listed to everyone (``ListGames``) and anyone may read it (``GetGame``,
  ``WatchGame``, ``GetHistory``, ``ReplayGame``, ``ExportGame``).
- A private game is listed only to its seats, and read only by its seats, platform services
  and callers who name its spectator invite (``invite`` on the read requests): a random
  token (256 bits) drawn when the game is created, given to its seats alone
  (``CreateGameResponse.spectator_invite``, ``GetGameResponse.spectator_invite``) to share
  as they like. Anyone else is answered ``NOT_FOUND`` ``GAME_NOT_FOUND``, word for word what
  a game that does not exist gets: a private game's existence is not revealed.

A player is found by their id (``ListGames`` with ``player_id``) only in the games where they
chose to be (``CreateGame``'s ``findable``, for the creator's seats); a player always finds
their own games, and services find everyone's. A listed game still shows all its seats (its
players are public, as in ``GetGame``): ``findable`` governs following a player by id.

The choice is recorded in the metadata of the game's creating events (``extra``: with the
seats' consent, ``parlor.matchrecords.consent``), which the game directory folds with
``SeatsTaken``. The invite is stored there too, and kept off the bus (``redacted``: the
relay publishes events' metadata as NATS headers), so only the store and the seats hold it.
"""

from __future__ import annotations

import hmac
import json
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from parlor.core.errors import NotFound
from parlor.kit.auth import Identity

VISIBILITY = "visibility"
PRIVATE = "private"
INVITE = "invite"
FINDABLE = "findable"
MAX_INVITE = 64
"""The longest invite a request may name (``bounds``); an issued one is 43 characters."""


@dataclass(frozen=True, slots=True)
class Privacy:
    """A game's choices, as its creating events' metadata records them."""

    private: bool = False
    invite: str = ""
    findable: tuple[str, ...] = ()

    @classmethod
    def chosen(cls, private: bool, findable: Iterable[str] = ()) -> Privacy:
        """A new game's: a private one gets a fresh invite."""
        invite = secrets.token_urlsafe(32) if private else ""
        return cls(private, invite, tuple(dict.fromkeys(findable)))

    @classmethod
    def of(cls, extra: Mapping[str, str] | None) -> Privacy:
        """The choices a game's metadata records (a game from before them: public, no one
        findable by id)."""
        extra = extra or {}
        try:
            findable = json.loads(extra.get(FINDABLE, "[]"))
        except ValueError:
            findable = []
        return cls(
            extra.get(VISIBILITY) == PRIVATE,
            extra.get(INVITE, ""),
            tuple(p for p in findable if isinstance(p, str)),
        )

    def extra(self) -> dict[str, str]:
        """The metadata recording these choices."""
        out: dict[str, str] = {}
        if self.private:
            out[VISIBILITY] = PRIVATE
            out[INVITE] = self.invite
        if self.findable:
            out[FINDABLE] = json.dumps(list(self.findable))
        return out

    def admits(self, caller: Identity, players: Iterable[str], invite: str = "") -> bool:
        """Whether ``caller`` may read the game: public, or a seat, a service or the invite."""
        if not self.private or caller.is_service or caller.player_id in set(players):
            return True
        return (
            bool(invite)
            and bool(self.invite)
            and hmac.compare_digest(invite.encode(), self.invite.encode())
        )


def redacted(extra: Mapping[str, str]) -> Mapping[str, str]:
    """Metadata as it may leave the store (onto the bus): without the spectator invite."""
    if INVITE not in extra:
        return extra
    return {k: v for k, v in extra.items() if k != INVITE}


def unknown_game(category: str, game_id: str) -> NotFound:
    """What a caller who may not see a private game is told: what a missing game's caller is
    (``GameHost``'s own ``GAME_NOT_FOUND``)."""
    return NotFound(f"no {category} game with id {game_id}", reason="GAME_NOT_FOUND")
