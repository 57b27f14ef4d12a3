"""``ListGames`` for any game service: a request's filters in, one page of summaries out.

Every game's proto has its own ``ListGamesRequest`` / ``GameSummary`` /
``ListGamesResponse`` with the same fields (Connect 4x4's came first); this
module reads and fills them by field name, so each service's RPC is one call to
``list_games``. A page token is ``<created_at ISO>|<game id>`` of the last game
of the previous page (keyset pagination over the directory's time index).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, TypeVar

from parlor.common.v1 import common_pb2
from parlor.core.errors import InvalidArgument, Unavailable
from parlor.directory.listed import GameList, Listed
from parlor.gamehost.table.timestamps import set_timestamp
from parlor.gametypes.seats import shown_as_bot
from parlor.kit.auth import Identity

R = TypeVar("R")


MAX_PLAYER_ID = 128


def page_cursor(token: str) -> tuple[dt.datetime, str] | None:
    """The (created_at, game id) a page token continues after; a malformed one is refused."""
    if not token:
        return None
    at, _, game_id = token.partition("|")
    try:
        if "\x00" in game_id:  # PostgreSQL text cannot hold it: never a game id
            raise ValueError(game_id)
        return dt.datetime.fromisoformat(at), game_id
    except ValueError:
        raise InvalidArgument("malformed page_token", reason="INVALID_PAGE_TOKEN") from None


def player_filter(player_id: str) -> str | None:
    """The player a listing is filtered by (None: everyone's); one no seat could hold is refused.

    Checked here, not by the database: a NUL byte would fail in PostgreSQL as an error of
    the server's, not the client's.
    """
    if not player_id:
        return None
    if len(player_id) > MAX_PLAYER_ID or "\x00" in player_id:
        raise InvalidArgument(
            f"player_id must be 1 to {MAX_PLAYER_ID} characters, without NUL",
            reason="INVALID_PLAYER_ID",
        )
    return player_id


def finished_filter(request: Any) -> bool | None:
    """True: finished games only, False: games in progress only, None: all.

    A game's proto from before ``in_progress_only`` has only ``finished_only``."""
    in_progress_only = getattr(request, "in_progress_only", False)
    if request.finished_only and in_progress_only:
        raise InvalidArgument(
            "finished_only and in_progress_only exclude each other: set one, or neither for all",
            reason="CONFLICTING_FILTERS",
        )
    if request.finished_only:
        return True
    return False if in_progress_only else None


def page_token(last: Listed) -> str:
    return f"{last.created_at.isoformat()}|{last.game_id}"


def moment(request: Any, field: str) -> dt.datetime | None:
    """A timestamp field of a request, if set; a malformed one is the client's error."""
    if not request.HasField(field):
        return None
    try:
        return getattr(request, field).ToDatetime(dt.UTC)  # type: ignore[no-any-return]
    except (ValueError, OverflowError) as exc:
        raise InvalidArgument(
            f"{field} is not a valid time: {exc}", reason="INVALID_TIME"
        ) from None


def fill_summary(out: Any, game: Listed) -> None:
    """Write one listed game into a game's ``GameSummary`` message."""
    out.game_id = game.game_id
    out.seats.extend(
        common_pb2.Seat(index=i, player_id=p, display_name=n, bot=shown_as_bot(p))
        for i, (p, n) in enumerate(zip(game.players, game.names, strict=True))
    )
    out.finish_reason = game.finish_reason
    if "private" in out.DESCRIPTOR.fields_by_name:
        out.private = game.private
    out.version = game.last_version
    set_timestamp(out.created_at, game.created_at)
    if game.finished_at is not None:
        set_timestamp(out.finished_at, game.finished_at)


async def list_games(
    directory: GameList | None, request: Any, response: type[R], caller: Identity
) -> R:
    """Answer ``caller``'s ``ListGamesRequest`` from ``directory`` with a ``response`` message:
    what they may see of it (``Listed.shown_to``: private games to their seats, a player by
    id where they chose to be found; services everything)."""
    if directory is None:
        raise Unavailable("this replica keeps no game directory", reason="NO_DIRECTORY")
    size = request.page_size or 50
    listed = await directory.list(
        player_id=player_filter(request.player_id),
        since=moment(request, "created_after"),
        until=moment(request, "created_before"),
        finished=finished_filter(request),
        limit=size,
        before=page_cursor(request.page_token),
        viewer=None if caller.is_service else caller.player_id,
    )
    out: Any = response()
    for game in listed:
        fill_summary(out.games.add(), game)
    if len(listed) == size:
        out.next_page_token = page_token(listed[-1])
    return out  # type: ignore[no-any-return]
