"""A game read as its caller may see it: ``GetGame``, ``GetHistory``, ``WatchGame``,
``ReplayGame`` and ``ExportGame`` for every game (the gRPC servicer translates the wire to
them and back), and whose turn a listing asks (``turn_of``).

Every read first admits its caller (``admit``): a private game is shown to its seats, the
platform's services and the holders of its spectator invite only (``privacy``); anyone else
is told it does not exist. A game matchmaking has formed but this replica has not created
yet is waited for (``once_created``) rather than answered ``NOT_FOUND``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from datetime import UTC, datetime
from types import ModuleType
from typing import Any, Generic, TypeVar

from google.protobuf.message import Message

from parlor.admission.privacy import Privacy, unknown_game
from parlor.common.v1 import common_pb2
from parlor.core.errors import InvalidArgument, NotFound
from parlor.directory.listed import SEATS_TAKEN
from parlor.gamehost.host.host import GameHost, Recorded
from parlor.gamehost.pipeline.games import GameType
from parlor.gamehost.pipeline.turns import Exports
from parlor.gamehost.table.clocks import set_clocks, shows_clocks
from parlor.gamehost.table.codec import seat_pb
from parlor.gamehost.table.seating import TABLE_EVENTS, GameFinished, Table
from parlor.gamehost.wire.export import export_parts, with_seat_tags
from parlor.gamehost.wire.pictures import Pictures
from parlor.gamehost.wire.replay import check_seen, entitlement, play_back
from parlor.kit import auth
from parlor.matchrecords.consent import recorded_match

T = TypeVar("T", bound=Table[Any])
E = TypeVar("E")
R = TypeVar("R")

MAX_PRIVACY_KEPT = 10_000
"""Games whose ``privacy`` a service keeps read (all forgotten when full)."""

MAX_HISTORY_PAGE = 1000
"""The most events one ``GetHistory`` response holds (its ``page_size``; 0 means this):
a longer range is answered a page at a time (``next_from_version``)."""


def viewer_seat(table: Table[Any], identity: auth.Identity) -> int | None:
    """The caller's first seat in the game (None: a spectator)."""
    mine = table.seats_of(identity.player_id)
    return mine[0] if mine else None


def answer(pb: ModuleType, name: str, **fields: Any) -> Any:
    """The game's response message ``name`` of those ``fields`` its proto has."""
    cls = getattr(pb, name)
    known = cls.DESCRIPTOR.fields_by_name
    return cls(**{k: v for k, v in fields.items() if k in known})


def invite_of(request: Any) -> str:
    """The spectator invite a read request names (a game's proto from before: none)."""
    return str(getattr(request, "invite", ""))


class Reads(Generic[T, E]):
    """The reads of one game type's games (its ``pb``: the responses' messages)."""

    matched_game_wait = 5.0
    """Seconds ``GetGame`` and ``WatchGame`` wait for a game matchmaking has formed and this
    service has not created yet (``once_created``), before ``NOT_FOUND``."""

    def __init__(
        self, host: GameHost[T, Any, E], game: GameType[Any, Any, Any], pictures: Pictures[T, E]
    ) -> None:
        assert game.proto is not None, f"{game.name} declares no proto"
        self.host, self.game, self.pictures, self.pb = host, game, pictures, game.proto
        self._privacy: dict[str, tuple[Privacy, tuple[str, ...]]] = {}

    # -- who may read ------------------------------------------------------------------------

    async def admit(self, game_id: str, me: auth.Identity, invite: str = "") -> Privacy:
        """The game's ``privacy``, if ``me`` may read it; ``unknown_game`` (a missing game's
        ``GAME_NOT_FOUND``) if it is private and they are no seat, service or invitee. A game
        not created yet passes (its read then finds it missing)."""
        privacy, players = await self.privacy(game_id)
        if not privacy.admits(me, players, invite):
            raise unknown_game(self.host.category, game_id)
        return privacy

    async def privacy(self, game_id: str) -> tuple[Privacy, tuple[str, ...]]:
        """A game's choices and players, from its first event (read once: they never change)."""
        known = self._privacy.get(game_id)
        if known is not None:
            return known
        first = await self.host.store.read_stream(self.host.stream_id(game_id), 1, 1)
        if not first or first[0].type != SEATS_TAKEN:
            return Privacy(), ()
        seats = common_pb2.SeatsTaken.FromString(first[0].data).seats
        known = (Privacy.of(first[0].metadata.extra), tuple(s.player_id for s in seats))
        if len(self._privacy) >= MAX_PRIVACY_KEPT:
            self._privacy.clear()
        self._privacy[game_id] = known
        return known

    async def is_private(self, game_id: str) -> bool:
        """Whether the game is private (the pipeline's answer to a stranger's command)."""
        return (await self.privacy(game_id))[0].private

    async def once_created(self, game_id: str, read: Callable[[], Awaitable[R]]) -> R:
        """``read()`` of a game; a game matchmaking has formed but this service has not
        created yet (its ``MatchFormed`` still on its way over the bus) is waited for, up to
        ``matched_game_wait`` seconds, rather than answered ``NOT_FOUND``: the players of a
        match ask for their game the moment their tickets say matched."""
        try:
            return await read()
        except NotFound as missing:
            if missing.reason != "GAME_NOT_FOUND":
                raise
            match = await recorded_match(self.host.store, game_id)
            if match is None or match.game_type != self.host.category:
                raise
            if not await self.host.created(game_id, self.matched_game_wait):
                raise
        return await read()

    # -- the reads ---------------------------------------------------------------------------

    async def get_game(self, request: Any, me: auth.Identity) -> Any:
        """The game now or at a version, as the caller may see it as the game stands now."""
        game_id, over = request.game_id, self.pictures.over
        current, now = await self.once_created(game_id, lambda: self.host.load(game_id))
        privacy = await self.admit(game_id, me, invite_of(request))
        if request.version and request.version != now:
            table, version = await self.host.load(game_id, request.version)
        else:
            table, version = current, now
        seen = entitlement(over(current), viewer_seat(current, me))
        game = self.pictures.game_message(game_id, version, table, seen.viewer, seen.everything)
        if version == now and not over(table) and shows_clocks(game):
            # A game in play now: remaining times as of this moment (a copy: pictures are
            # shared). A finished game's clocks are stopped, as of its last event.
            copy = type(game)()
            copy.CopyFrom(game)
            game = set_clocks(copy, self.pictures.clocks(table, self.host.now()))
        invite = privacy.invite if current.seats_of(me.player_id) else ""
        return answer(self.pb, "GetGameResponse", game=game, spectator_invite=invite)

    async def history(self, request: Any, me: auth.Identity) -> Any:
        """Events ``from_version..to_version``, at most ``page_size`` of them (at most
        ``MAX_HISTORY_PAGE``); ``next_from_version`` says where the next page starts."""
        size = getattr(request, "page_size", 0)
        if not 0 <= size <= MAX_HISTORY_PAGE:
            raise InvalidArgument(
                f"page_size must be 0 to {MAX_HISTORY_PAGE}",
                reason="INVALID_PAGE_SIZE",
                metadata={"field": "page_size", "limit": str(MAX_HISTORY_PAGE)},
            )
        if request.to_version and request.to_version < request.from_version:
            raise InvalidArgument("to_version comes before from_version", reason="INVALID_RANGE")
        await self.admit(request.game_id, me, invite_of(request))
        current, now = await self.host.load(request.game_id)
        first = request.from_version or 1
        check_seen(request.game_id, first - 1, now)
        seen = entitlement(self.pictures.over(current), viewer_seat(current, me))
        last = min(request.to_version or now, now)
        end = min(last, first + (size or MAX_HISTORY_PAGE) - 1)
        events = await self.pictures.events_read(
            request.game_id, first, end, seen.viewer, seen.everything
        )
        next_from = end + 1 if end < last else 0
        return answer(self.pb, "GetHistoryResponse", events=events, next_from_version=next_from)

    async def watch(self, request: Any, me: auth.Identity) -> AsyncGenerator[Any, None]:
        """Every event after ``after_version`` with the game after it, live, until the end;
        an ``after_version`` the game does not have is refused (``check_seen``)."""
        game_id, pictures = request.game_id, self.pictures
        # The game as it stands (cached, caught up with the store): who the caller is in it
        # decides what they see of every event, the past ones too.
        table, now, past, following = await self.once_created(
            game_id, lambda: self.host.opening(game_id, request.after_version)
        )
        await self.admit(game_id, me, invite_of(request))
        check_seen(game_id, request.after_version, now)
        over_already = pictures.over(table)
        viewer = viewer_seat(table, me)

        def shown(recorded: Recorded[Any], before: T, after: T) -> Any:
            everything = over_already or pictures.over(after)
            return answer(
                self.pb,
                "WatchGameResponse",
                event=pictures.event_message(recorded, before, viewer, everything),
                game=pictures.game_message(game_id, recorded.version, after, viewer, everything),
            )

        async with contextlib.aclosing(past), contextlib.aclosing(following):
            # The events the watcher has not seen, up to now: from the nearest kept state, a
            # page at a time (``opening``), each picture built as it is sent (and shared with
            # the other watchers of that version: ``game_message``), the loop free after each.
            async for recorded in past:
                yield shown(recorded, recorded.before, recorded.after)
                if isinstance(recorded.event, GameFinished):
                    return
                await asyncio.sleep(0)
            if over_already:
                return  # a finished game has nothing more to send
            async for recorded in following:
                before, table = table, self.host.folded(recorded, table)
                if recorded.version > request.after_version:
                    yield shown(recorded, before, table)
                if isinstance(recorded.event, GameFinished):
                    return

    async def replay(self, request: Any, me: auth.Identity) -> AsyncGenerator[Any, None]:
        """A finished game played back, everything shown (``play_back`` refuses a game in
        progress before anything is sent)."""
        await self.admit(request.game_id, me, invite_of(request))
        async for recorded, table in play_back(
            self.host, request.game_id, request.pace_ms, request.from_version or 1
        ):
            seen = entitlement(True, viewer_seat(table, me))
            yield answer(
                self.pb,
                "ReplayGameResponse",
                event=self.pictures.event_message(
                    recorded, recorded.before, seen.viewer, seen.everything
                ),
                game=self.pictures.game_message(
                    request.game_id, recorded.version, table, seen.viewer, seen.everything
                ),
            )

    async def export(self, request: Any, me: auth.Identity) -> Any:
        """The game's ``ExportGameResponse``: its notation after the seat tags (``export``)."""
        await self.admit(request.game_id, me, invite_of(request))
        table, version = await self.host.load(request.game_id)
        events = (await self.host.events(request.game_id))[:version]
        return self.exported(request.game_id, table, events)

    def exported(self, game_id: str, table: T, events: Sequence[E]) -> Message:
        """The seat tags, then the game's declared notation (``GameType.notation``) of its
        events without the platform's (seats, finish); the seats too where the response has
        them (Connect 4x4's). A game that writes its whole export itself (``turns.Exports``:
        Take Four's) is given its events, the seat tags and how it finished; its text goes
        under ``notation`` too where the response has it (the field's first name)."""
        if isinstance(self.game.hosting, Exports):
            own, tags, finished = export_parts(events)
            text = self.game.hosting.export(game_id, table.game, own, tags, finished)
            return answer(self.pb, "ExportGameResponse", text=text, notation=text)  # type: ignore[no-any-return]
        if self.game.notation is None:
            raise NotImplementedError(f"{self.game.name} declares no notation")
        record = self.game.notation([e for e in events if not isinstance(e, TABLE_EVENTS)])
        text = with_seat_tags(table.seats, [record] if isinstance(record, str) else record)
        response = self.pb.ExportGameResponse(text=text)
        if "seats" in response.DESCRIPTOR.fields_by_name:
            response.seats.extend(seat_pb(i, s) for i, s in enumerate(table.seats))
        return response  # type: ignore[no-any-return]

    async def turn_of(self, player_id: str, game_id: str) -> tuple[bool, datetime | None]:
        """Whether the game waits for one of ``player_id``'s seats now (its rules'
        ``to_move``), and the earliest deadline of those seats' running clocks."""
        table, _ = await self.host.load(game_id)
        if self.pictures.over(table):
            return False, None
        mine = set(table.seats_of(player_id)) & set(self.game.engine.to_move(table.game))
        if not mine:
            return False, None
        found = [
            clock.deadline.ToDatetime(UTC)
            for clock in self.pictures.clocks(table).seats
            if clock.seat in mine and clock.running and clock.HasField("deadline")
        ]
        return True, min(found) if found else None
