"""``ListGames`` with ``my_turn_first``: the caller's games in progress, ordered by turn.

The games the caller still holds in progress (the directory's, as ``in_progress_only``
lists them) are read each as it stands now (``GameHost.load``: whose turn it is lives in
the game's own state, by its rules' ``to_move``, and the deadline in its clocks), then
ordered: those waiting for one of the caller's seats first, the earliest deadline first
(none running: after those with one), then the rest, newest first; ties by game id. A
summary says ``to_move`` and, where a clock runs, the caller's ``deadline``.

A player holds few games in progress (the open-games cap, 20 a game type by default), so
the whole list is read and ordered for each page; a page token is the order key of the
previous page's last game (``t|...``), so a page continues after it even if the games
moved meanwhile (a game whose turn changed may then be seen twice, or not at all, across
pages, as in any listing of a changing order).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from parlor.core.errors import InvalidArgument, Unavailable
from parlor.directory.listed import MAX_PAGE, GameList, Listed
from parlor.gamehost.table.timestamps import set_timestamp
from parlor.gamehost.wire.listing import fill_summary, finished_filter, moment
from parlor.kit.auth import Identity

MAX_MY_GAMES = 2000
"""The most of a caller's games in progress one ordered listing reads."""

Turn = Callable[[str], Awaitable[tuple[bool, dt.datetime | None]]]
"""A game's turn for the caller: (waiting for one of their seats, that seat's deadline)."""

Key = tuple[int, int, int, int, str]


@dataclass(frozen=True, slots=True)
class Waiting:
    """One of the caller's games with its turn."""

    listed: Listed
    to_move: bool
    deadline: dt.datetime | None

    @property
    def key(self) -> Key:
        """Its place: waiting for the caller first, earliest deadline first (none: last of
        those), then the others newest first; ties by game id."""
        created = _micros(self.listed.created_at)
        if self.to_move:
            if self.deadline is None:
                return (0, 1, 0, -created, self.listed.game_id)
            return (0, 0, _micros(self.deadline), -created, self.listed.game_id)
        return (1, 0, 0, -created, self.listed.game_id)


def ordered(games: Sequence[Waiting]) -> list[Waiting]:
    return sorted(games, key=lambda game: game.key)


def token_of(key: Key) -> str:
    return "t|" + "|".join(str(part) for part in key)


def key_of(token: str) -> Key | None:
    """The order key a ``my_turn_first`` page token continues after; a malformed one (or one
    of the newest-first listing) is refused."""
    if not token:
        return None
    parts = token.split("|", 5)
    try:
        if len(parts) != 6 or parts[0] != "t" or "\x00" in parts[5]:
            raise ValueError(token)
        return (int(parts[1]), int(parts[2]), int(parts[3]), int(parts[4]), parts[5])
    except ValueError:
        raise InvalidArgument("malformed page_token", reason="INVALID_PAGE_TOKEN") from None


async def list_my_turn_first(
    directory: GameList | None, request: Any, response: type[Any], caller: Identity, turn: Turn
) -> Any:
    """Answer ``caller``'s ``ListGamesRequest`` with ``my_turn_first``: one page of their games
    in progress, ordered by turn (``Waiting.key``)."""
    if directory is None:
        raise Unavailable("this replica keeps no game directory", reason="NO_DIRECTORY")
    if caller.is_service or not caller.player_id:
        raise InvalidArgument(
            "my_turn_first orders a player's own games: call as that player",
            reason="MY_TURN_NEEDS_PLAYER",
        )
    if request.player_id and request.player_id != caller.player_id:
        raise InvalidArgument(
            "my_turn_first lists the caller's own games: leave player_id empty",
            reason="MY_TURN_OWN_GAMES",
        )
    if finished_filter(request) is True:
        raise InvalidArgument(
            "my_turn_first lists games in progress: not with finished_only",
            reason="CONFLICTING_FILTERS",
        )
    size = request.page_size or 50
    after = key_of(request.page_token)
    mine: list[Listed] = []
    before: tuple[dt.datetime, str] | None = None
    while len(mine) < MAX_MY_GAMES:
        page = await directory.list(
            player_id=caller.player_id,
            since=moment(request, "created_after"),
            until=moment(request, "created_before"),
            finished=False,
            limit=MAX_PAGE,
            before=before,
            viewer=caller.player_id,
        )
        mine += page
        if len(page) < MAX_PAGE:
            break
        before = (page[-1].created_at, page[-1].game_id)
    games = []
    for listed in mine:
        to_move, deadline = await turn(listed.game_id)
        games.append(Waiting(listed, to_move, deadline))
    rest = [game for game in ordered(games) if after is None or game.key > after]
    out = response()
    for game in rest[:size]:
        summary = out.games.add()
        fill_summary(summary, game.listed)
        summary.to_move = game.to_move
        if game.deadline is not None:
            set_timestamp(summary.deadline, game.deadline)
    if len(rest) > size:
        out.next_page_token = token_of(rest[size - 1].key)
    return out


def _micros(at: dt.datetime) -> int:
    return int(at.timestamp() * 1_000_000)
