"""ChatService's rules over the event store, run on the in-memory store and on PostgreSQL.

The game's facts are what its own stream records: a ``SeatsTaken`` (with its privacy in the
metadata, as the game host writes it) and a ``GameFinished``, appended here as the game host
appends them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator

import pytest

from parlor.admission.privacy import Privacy
from parlor.chat.v1 import chat_pb2 as pb
from parlor.common.v1 import common_pb2
from parlor.core.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    ParlorError,
    PermissionDenied,
    ResourceExhausted,
)
from parlor.directory.listed import GAME_FINISHED, SEATS_TAKEN
from parlor.eventstore import NO_STREAM, EventStore, Metadata, NewEvent
from parlor.gamehost.pipeline.games import games
from parlor.kit import auth
from parlor.kit.auth import Identity
from parlor.runtime.bells import GameBells
from parlor.services.chat.facts import Games
from parlor.services.chat.rooms import Rooms
from parlor.services.chat.servicer import ChatServicer
from parlor.services.chat.settings import ChatSettings


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@contextlib.contextmanager
def calling(player: str, *roles: str) -> Iterator[None]:
    token = auth.bind(Identity(player, roles=roles))
    try:
        yield
    finally:
        auth.unbind(token)


def servicer(store: EventStore, clock: Clock, **settings: object) -> ChatServicer:
    chosen = ChatSettings(**settings)  # type: ignore[arg-type]
    rooms = Rooms(store, chosen.limits())
    return ChatServicer(
        rooms, Games(store, games()), chosen, GameBells(), clock=clock, wait_seconds=0.2
    )


async def new_game(
    store: EventStore, unique: str, game_type: str = "upwords", private: bool = False
) -> tuple[str, str]:
    """A game of ada and bob as its stream begins; its id and its spectator invite."""
    game_id = f"g{unique}{game_type}"
    privacy = Privacy.chosen(private)
    seats = common_pb2.SeatsTaken(
        seats=[common_pb2.Seat(player_id="ada"), common_pb2.Seat(player_id="bob")]
    )
    event = NewEvent(
        SEATS_TAKEN, seats.SerializeToString(), metadata=Metadata(extra=privacy.extra())
    )
    await store.append(f"{game_type}-{game_id}", [event], NO_STREAM)
    return game_id, privacy.invite


async def end_game(store: EventStore, game_id: str, game_type: str = "upwords") -> None:
    finished = common_pb2.GameFinished(reason="RESIGNED").SerializeToString()
    await store.append(f"{game_type}-{game_id}", [NewEvent(GAME_FINISHED, finished)], -1)


def room(kind: int, game_id: str = "", game_type: str = "upwords", invite: str = "") -> pb.Room:
    if kind == pb.ROOM_KIND_LOBBY:
        return pb.Room(kind=kind)
    return pb.Room(kind=kind, game_type=game_type, game_id=game_id, invite=invite)


LOBBY = room(pb.ROOM_KIND_LOBBY)


async def say(
    chat: ChatServicer, who: str, where: pb.Room, text: str = "", **kw: object
) -> pb.ChatMessage:
    with calling(who):
        reply = await chat.PostMessage(pb.PostMessageRequest(room=where, text=text, **kw), None)  # type: ignore[arg-type]
    return reply.message


async def refused(call: object) -> ParlorError:
    with pytest.raises(ParlorError) as error:
        await call  # type: ignore[misc]
    return error.value


@contextlib.asynccontextmanager
async def watching(
    chat: ChatServicer, who: str, where: pb.Room, after: int = 0, *roles: str
) -> AsyncIterator[asyncio.Queue[pb.WatchRoomResponse]]:
    """A watch of ``where`` as ``who``, its items put on a queue as they come."""
    items: asyncio.Queue[pb.WatchRoomResponse] = asyncio.Queue()
    failed: list[BaseException] = []

    async def run() -> None:
        with calling(who, *roles):
            try:
                async for item in chat.WatchRoom(
                    pb.WatchRoomRequest(room=where, after_version=after), None
                ):
                    items.put_nowait(item)
            except ParlorError as error:
                failed.append(error)
                items.put_nowait(pb.WatchRoomResponse())

    task = asyncio.create_task(run())
    try:
        yield items
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def next_item(items: asyncio.Queue[pb.WatchRoomResponse]) -> pb.WatchRoomResponse:
    return await asyncio.wait_for(items.get(), 30)


async def texts_until(items: asyncio.Queue[pb.WatchRoomResponse], last: str) -> list[str]:
    """The texts of the messages watched, up to the one that says ``last``."""
    seen: list[str] = []
    while not seen or seen[-1] != last:
        item = await next_item(items)
        if item.WhichOneof("item") == "message":
            seen.append(item.message.text)
    return seen


class TestChatService:
    async def test_the_lobby_takes_anyones_messages_and_presets(
        self, chat_store: EventStore, unique: str
    ) -> None:
        chat = servicer(chat_store, Clock())
        first = await say(chat, f"ada{unique}", LOBBY, "  hello\u0301 ")
        assert first.text == "hellό" or first.text.startswith("hell")
        preset = await say(chat, f"bob{unique}", LOBBY, preset=pb.PRESET_GOOD_LUCK)
        assert (preset.text, preset.preset) == ("Good luck", pb.PRESET_GOOD_LUCK)
        both = await refused(say(chat, f"bob{unique}", LOBBY, "hi", preset=pb.PRESET_THANKS))
        assert both.reason == "CHAT_TEXT_AND_PRESET"
        bidi = await refused(say(chat, f"bob{unique}", LOBBY, "evil\u202e"))
        assert (type(bidi), bidi.reason) == (InvalidArgument, "CHAT_BIDI_OVERRIDE")
        nowhere = await refused(say(chat, "bob", pb.Room(), "hi"))
        assert nowhere.reason == "CHAT_NO_ROOM"

    async def test_a_command_id_posts_once_and_is_the_posters_own(
        self, chat_store: EventStore, unique: str
    ) -> None:
        chat = servicer(chat_store, Clock())
        game_id, _ = await new_game(chat_store, unique)
        players = room(pb.ROOM_KIND_PLAYERS, game_id)
        once = await say(chat, "ada", players, "hi", command_id="c-1")
        again = await say(chat, "ada", players, "hi", command_id="c-1")
        assert once == again
        bobs = await say(chat, "bob", players, "hi", command_id="c-1")  # his own id space
        assert bobs.author == "bob"
        assert bobs.message_id != once.message_id

    async def test_the_players_room_is_its_seats_read_from_the_games_stream(
        self, chat_store: EventStore, unique: str
    ) -> None:
        chat = servicer(chat_store, Clock())
        game_id, _ = await new_game(chat_store, unique)
        await say(chat, "ada", room(pb.ROOM_KIND_PLAYERS, game_id), "good luck")
        outsider = await refused(say(chat, "cyd", room(pb.ROOM_KIND_PLAYERS, game_id), "psst"))
        assert (type(outsider), outsider.reason) == (PermissionDenied, "CHAT_NOT_SEATED")
        nothing = await refused(say(chat, "ada", room(pb.ROOM_KIND_PLAYERS, "nope"), "hi"))
        assert (type(nothing), nothing.reason) == (NotFound, "GAME_NOT_FOUND")
        kind = await refused(say(chat, "ada", room(pb.ROOM_KIND_PLAYERS, game_id, "chess"), "x"))
        assert kind.reason == "UNKNOWN_GAME_TYPE"

    async def test_a_private_games_rooms_are_a_missing_games_to_outsiders(
        self, chat_store: EventStore, unique: str
    ) -> None:
        chat = servicer(chat_store, Clock())
        game_id, invite = await new_game(chat_store, unique, private=True)
        kibitz = room(pb.ROOM_KIND_SPECTATORS, game_id)
        hidden = await refused(say(chat, "cyd", kibitz, "hi"))
        missing = await refused(say(chat, "cyd", room(pb.ROOM_KIND_SPECTATORS, "g-none"), "hi"))
        assert (hidden.reason, type(hidden)) == (missing.reason, type(missing))
        await say(chat, "cyd", room(pb.ROOM_KIND_SPECTATORS, game_id, invite=invite), "hi")

    async def test_kibitz_never_reaches_a_seat_while_the_game_runs_and_does_after(
        self, chat_store: EventStore, unique: str
    ) -> None:
        chat = servicer(chat_store, Clock())
        game_id, _ = await new_game(chat_store, unique)
        kibitz = room(pb.ROOM_KIND_SPECTATORS, game_id)
        await say(chat, "cyd", kibitz, "ada should play QI")
        seat = await refused(say(chat, "ada", kibitz, "hello?"))
        assert seat.reason == "CHAT_SEAT_IN_KIBITZ"
        async with watching(chat, "ada", kibitz) as items:
            await next_item(items)
        with calling("ada"):
            watch = chat.WatchRoom(pb.WatchRoomRequest(room=kibitz), None)
            error = await refused(watch.__anext__())
        assert (type(error), error.reason) == (PermissionDenied, "CHAT_SEAT_IN_KIBITZ")
        await end_game(chat_store, game_id)
        async with watching(chat, "ada", kibitz) as items:
            assert await texts_until(items, "ada should play QI") == ["ada should play QI"]

    async def test_a_word_games_players_room_reaches_spectators_only_after_the_end(
        self, chat_store: EventStore, unique: str
    ) -> None:
        chat = servicer(chat_store, Clock())
        game_id, _ = await new_game(chat_store, unique)
        players = room(pb.ROOM_KIND_PLAYERS, game_id)
        await say(chat, "ada", players, "nice move")
        async with watching(chat, "cyd", players) as items:
            await say(chat, "bob", players, "thanks")
            await asyncio.sleep(0.5)  # not a timing assertion: nothing may come, however long
            assert items.empty()
            await end_game(chat_store, game_id)
            assert await texts_until(items, "thanks") == ["nice move", "thanks"]

    async def test_with_a_delay_spectators_read_each_message_once_it_has_passed(
        self, chat_store: EventStore, unique: str
    ) -> None:
        clock = Clock()
        chat = servicer(chat_store, clock, players_delay_seconds=60.0)
        game_id, _ = await new_game(chat_store, unique)
        players = room(pb.ROOM_KIND_PLAYERS, game_id)
        await say(chat, "ada", players, "one")
        clock.now += 30
        await say(chat, "ada", players, "two")
        async with watching(chat, "cyd", players) as items:
            await asyncio.sleep(0.5)
            assert items.empty()
            clock.now += 30  # "one" is 60 s old, "two" 30 s
            assert await texts_until(items, "one") == ["one"]
            await asyncio.sleep(0.5)
            assert items.empty()
            clock.now += 30
            assert await texts_until(items, "two") == ["two"]

    async def test_a_game_that_hides_nothing_shows_its_players_room_at_once(
        self, chat_store: EventStore, unique: str
    ) -> None:
        chat = servicer(chat_store, Clock())
        game_id, _ = await new_game(chat_store, unique, "connect4x4")
        players = room(pb.ROOM_KIND_PLAYERS, game_id, "connect4x4")
        await say(chat, "ada", players, "gl")
        async with watching(chat, "cyd", players) as items:
            assert await texts_until(items, "gl") == ["gl"]

    async def test_a_flood_is_limited_with_a_reason(
        self, chat_store: EventStore, unique: str
    ) -> None:
        chat = servicer(chat_store, Clock(), per_player=5)
        flooder = f"ann{unique}"
        outcomes: list[str] = []
        for n in range(20):  # a bounded flood
            try:
                await say(chat, flooder, LOBBY, f"spam {n}")
                outcomes.append("OK")
            except ResourceExhausted as limited:
                outcomes.append(limited.reason)
                assert int(limited.metadata["retry_after_seconds"]) >= 1
        assert outcomes == ["OK"] * 5 + ["CHAT_RATE_LIMITED"] * 15

    async def test_a_muted_or_blocked_players_messages_never_arrive(
        self, chat_store: EventStore, unique: str
    ) -> None:
        chat = servicer(chat_store, Clock())
        game_id, _ = await new_game(chat_store, unique, "connect4x4")
        players = room(pb.ROOM_KIND_PLAYERS, game_id, "connect4x4")
        with calling("ada"):
            await chat.MutePlayer(pb.MutePlayerRequest(player_id="bob", mute=True), None)
        with calling("cyd"):
            await chat.BlockPlayer(pb.BlockPlayerRequest(player_id="bob", block=True), None)
        await say(chat, "bob", players, "you cannot hear me")
        await say(chat, "ada", players, "quiet here")
        async with watching(chat, "ada", players) as items:
            assert await texts_until(items, "quiet here") == ["quiet here"]
        async with watching(chat, "cyd", players) as items:  # blocked: gone from cyd's view
            assert await texts_until(items, "quiet here") == ["quiet here"]
        with calling("ada"):  # ada blocks cyd: hers are gone from cyd's view
            await chat.BlockPlayer(pb.BlockPlayerRequest(player_id="cyd", block=True), None)
        with calling("cyd"):  # and cyd lets bob back in
            await chat.BlockPlayer(pb.BlockPlayerRequest(player_id="bob", block=False), None)
        async with watching(chat, "cyd", players) as items:
            await say(chat, "bob", players, "last")
            assert await texts_until(items, "last") == ["you cannot hear me", "last"]

    async def test_chat_switched_off_shows_and_posts_nothing(
        self, chat_store: EventStore, unique: str
    ) -> None:
        chat = servicer(chat_store, Clock())
        me = f"dee{unique}"
        with calling(me):
            await chat.SetChatEnabled(pb.SetChatEnabledRequest(enabled=False), None)
        off = await refused(say(chat, me, LOBBY, "hi"))
        assert (type(off), off.reason) == (FailedPrecondition, "CHAT_OFF")

    async def test_a_timeout_stops_a_players_messages_until_it_ends(
        self, chat_store: EventStore, unique: str
    ) -> None:
        clock = Clock()
        chat = servicer(chat_store, clock)
        game_id, _ = await new_game(chat_store, unique)
        kibitz = room(pb.ROOM_KIND_SPECTATORS, game_id)
        request = pb.TimeOutPlayerRequest(room=kibitz, player_id="cyd", seconds=300, reason="spam")
        with calling("cyd"):
            not_mod = await refused(chat.TimeOutPlayer(request, None))
        assert not_mod.reason == "CHAT_NOT_MODERATOR"
        with calling("ada", "moderator"):  # a moderator who plays: a seat, not a moderator
            assert (await refused(chat.TimeOutPlayer(request, None))).reason == "CHAT_NOT_MODERATOR"
        with calling("mia", "moderator"):
            await chat.TimeOutPlayer(request, None)
        timed = await refused(say(chat, "cyd", kibitz, "but"))
        assert (type(timed), timed.reason) == (PermissionDenied, "CHAT_TIMED_OUT")
        clock.now += 299
        assert (await refused(say(chat, "cyd", kibitz, "but"))).reason == "CHAT_TIMED_OUT"
        clock.now += 1
        await say(chat, "cyd", kibitz, "back")

    async def test_a_deleted_message_replays_as_deleted_and_moderation_is_logged(
        self, chat_store: EventStore, unique: str
    ) -> None:
        chat = servicer(chat_store, Clock())
        game_id, _ = await new_game(chat_store, unique)
        kibitz = room(pb.ROOM_KIND_SPECTATORS, game_id)
        rude = await say(chat, "cyd", kibitz, "rude words")
        await say(chat, "dan", kibitz, "hey")
        with calling("dan"):
            await chat.ReportMessage(
                pb.ReportMessageRequest(room=kibitz, message_id=rude.message_id, reason="rude"),
                None,
            )
        with calling("mia", "moderator"):
            await chat.DeleteMessage(
                pb.DeleteMessageRequest(room=kibitz, message_id=rude.message_id, reason="rude"),
                None,
            )
        async with watching(chat, "eve", kibitz) as items:
            first = await next_item(items)
            assert first.message.deleted
            assert first.message.text == ""
            assert first.message.message_id == rude.message_id
            kinds = [(await next_item(items)).WhichOneof("item") for _ in range(2)]
            assert kinds == ["message", "deleted"]  # the report is the moderators' alone
        with calling("mia", "moderator"):
            log = await chat.GetModerationLog(pb.GetModerationLogRequest(room=kibitz), None)
            await chat.CloseRoom(pb.CloseRoomRequest(room=kibitz, reason="enough"), None)
        assert [e.WhichOneof("item") for e in log.entries] == ["reported", "deleted"]
        assert log.entries[0].reported.by == "dan"
        assert log.entries[1].deleted.by == "mia"
        closed = await refused(say(chat, "cyd", kibitz, "hello?"))
        assert (type(closed), closed.reason) == (FailedPrecondition, "CHAT_ROOM_CLOSED")
        with calling("cyd"):
            nope = await refused(
                chat.GetModerationLog(pb.GetModerationLogRequest(room=kibitz), None)
            )
        assert nope.reason == "CHAT_NOT_MODERATOR"

    async def test_a_watch_resumes_after_its_last_version_missing_and_repeating_nothing(
        self, chat_store: EventStore, unique: str
    ) -> None:
        """Two replicas (two services with their own caches and bells) on one store."""
        one, two = servicer(chat_store, Clock()), servicer(chat_store, Clock())
        game_id, _ = await new_game(chat_store, unique, "connect4x4")
        players = room(pb.ROOM_KIND_PLAYERS, game_id, "connect4x4")
        viewer = f"cyd{unique}"  # muted and blocked by no one
        for n in range(3):
            await say(one, "ada", players, f"m{n}")
        async with watching(two, viewer, players) as items:
            seen = [await next_item(items) for _ in range(3)]
        last = seen[-1].version
        for n in range(3, 6):
            await say(one, "bob", players, f"m{n}")
        async with watching(two, "cyd", players, last) as items:
            rest = await texts_until(items, "m5")
        assert [s.message.text for s in seen] + rest == [f"m{n}" for n in range(6)]

    async def test_a_long_room_is_watched_in_reads_of_its_own_size_in_order(
        self, chat_store: EventStore, unique: str
    ) -> None:
        chat = servicer(chat_store, Clock(), per_player=1000, per_room=1000)
        game_id, _ = await new_game(chat_store, unique, "connect4x4")
        players = room(pb.ROOM_KIND_PLAYERS, game_id, "connect4x4")
        sent = [f"m{n}" for n in range(300)]  # more than one read (READ_AT_ONCE)
        for text in sent:
            await say(chat, "ada", players, text)
        async with watching(chat, f"eve{unique}", players) as items:
            assert await texts_until(items, "m299") == sent

    async def test_a_rooms_history_comes_in_pages_as_the_caller_may_see_it(
        self, chat_store: EventStore, unique: str
    ) -> None:
        chat = servicer(chat_store, Clock())
        game_id, _ = await new_game(chat_store, unique)
        players = room(pb.ROOM_KIND_PLAYERS, game_id)
        for text in ("one", "two", "three"):
            await say(chat, "ada", players, text)
        pages, after = [], 0
        with calling("bob"):
            while True:
                page = await chat.GetRoomHistory(
                    pb.GetRoomHistoryRequest(room=players, after_version=after, limit=2), None
                )
                if page.version == after:
                    break
                pages.append([i.message.text for i in page.items])
                after = page.version
        assert pages == [["one", "two"], ["three"]]
        with calling("cyd"):  # a spectator of a word game in play: nothing yet
            held = await chat.GetRoomHistory(pb.GetRoomHistoryRequest(room=players), None)
        assert (list(held.items), held.version) == ([], 0)
