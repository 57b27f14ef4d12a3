"""A room's decider, who reads and writes which room, and a player's mutes and blocks."""

from __future__ import annotations

import pytest

from parlor.chatrules import (
    PREFS,
    ROOMS,
    Close,
    Delete,
    GameFacts,
    Kind,
    Limits,
    MessageDeleted,
    MessagePosted,
    Post,
    Prefs,
    Reading,
    Report,
    Room,
    SetBlock,
    SetChat,
    SetMute,
    TimeOut,
    Viewer,
    Visibility,
    may_moderate,
    may_write,
    reading,
)
from parlor.core.decider import execute, replay
from parlor.core.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    ParlorError,
    PermissionDenied,
    ResourceExhausted,
)


def post(room: Room, n: int, author: str = "ada", at: float = 0.0) -> Room:
    state, _ = execute(ROOMS, room, Post(f"m{n}", author, f"hello {n}", at))
    return state


def refusal(room: Room, command: object) -> ParlorError:
    with pytest.raises(ParlorError) as refused:
        ROOMS.decide(room, command)  # type: ignore[arg-type]
    return refused.value


def test_a_flood_from_one_player_is_limited_then_let_through_after_the_window() -> None:
    room = Room(limits=Limits(per_player=3, per_room=100, window_seconds=10))
    for n in range(3):
        room = post(room, n, at=n)
    limited = refusal(room, Post("m9", "ada", "again", 3.0))
    assert isinstance(limited, ResourceExhausted)
    assert limited.reason == "CHAT_RATE_LIMITED"
    assert limited.metadata["retry_after_seconds"] == "7"
    post(room, 9, author="bob", at=3.0)  # another player is not held back by ada
    post(room, 10, at=10.5)  # the first post has left the window


def test_a_room_takes_only_so_many_messages_from_everyone() -> None:
    room = Room(limits=Limits(per_player=5, per_room=4, window_seconds=10))
    for n in range(4):
        room = post(room, n, author=f"p{n}", at=1.0)
    busy = refusal(room, Post("x", "p9", "hi", 2.0))
    assert isinstance(busy, ResourceExhausted)
    assert busy.reason == "CHAT_ROOM_BUSY"


def test_a_timeout_stops_posts_until_it_ends() -> None:
    room = post(Room(), 1)
    room, events = execute(ROOMS, room, TimeOut("ada", 60, "mod", "spam", 10.0))
    assert events[0].until == 70.0
    timed = refusal(room, Post("m2", "ada", "hi", 69.0))
    assert isinstance(timed, PermissionDenied)
    assert (timed.reason, timed.metadata["until"]) == ("CHAT_TIMED_OUT", "70")
    post(room, 3, at=70.0)
    assert isinstance(refusal(room, TimeOut("ada", 0, "mod", "", 1.0)), InvalidArgument)


def test_a_deleted_message_stays_and_replays_as_deleted() -> None:
    room = post(post(Room(), 1), 2)
    room, events = execute(ROOMS, room, Delete("m1", "mod", "rude", 5.0))
    assert events == [MessageDeleted("m1", "mod", "rude", 5.0)]
    assert ROOMS.decide(room, Delete("m1", "mod", "again", 6.0)) == []  # once
    assert isinstance(refusal(room, Delete("nope", "mod", "", 6.0)), NotFound)
    history = [
        MessagePosted("m1", "ada", "hello 1", 0.0),
        MessagePosted("m2", "ada", "hello 2", 0.0),
        *events,
    ]
    replayed = replay(ROOMS, history)
    assert replayed.messages == ("m1", "m2")
    assert replayed.deleted == frozenset({"m1"})


def test_a_report_keeps_the_messages_before_it() -> None:
    room = Room()
    for n in range(8):
        room = post(room, n, at=n * 10.0)
    (report,) = ROOMS.decide(room, Report("m7", "bob", "look", 9.0))
    assert report.context == ("m2", "m3", "m4", "m5", "m6")  # type: ignore[union-attr]
    assert isinstance(refusal(room, Report("m99", "bob", "", 9.0)), NotFound)
    assert isinstance(refusal(room, Report("m1", "bob", "x" * 201, 9.0)), InvalidArgument)


def test_a_closed_room_takes_nothing_more() -> None:
    room, _ = execute(ROOMS, post(Room(), 1), Close("mod", "done", 3.0))
    assert ROOMS.is_terminal(room)
    for command in (Post("m2", "ada", "hi", 4.0), Delete("m1", "mod", "", 4.0)):
        closed = refusal(room, command)
        assert isinstance(closed, FailedPrecondition)
        assert closed.reason == "CHAT_ROOM_CLOSED"


# -- who reads and writes ---------------------------------------------------------------------

RUNNING = GameFacts(("ada", "bob"), finished=False, hides_information=True)
ENDED = GameFacts(("ada", "bob"), finished=True, hides_information=True)
OPEN = GameFacts(("ada", "bob"), finished=False, hides_information=False)
ADA, CYD = Viewer("ada"), Viewer("cyd")
MOD, SEATED_MOD = Viewer("mia", moderator=True), Viewer("ada", moderator=True)


def denied(call: object, *args: object) -> str:
    with pytest.raises(PermissionDenied) as refused:
        call(*args)  # type: ignore[operator]
    return refused.value.reason


def test_the_players_room_is_its_seats() -> None:
    may_write(Kind.PLAYERS, RUNNING, ADA)
    assert denied(may_write, Kind.PLAYERS, RUNNING, CYD) == "CHAT_NOT_SEATED"
    assert denied(may_write, Kind.PLAYERS, RUNNING, MOD) == "CHAT_NOT_SEATED"
    assert reading(Kind.PLAYERS, RUNNING, ADA, Visibility()) == Reading(0.0)


def test_spectators_read_the_players_room_of_a_game_that_hides_nothing_at_once() -> None:
    assert reading(Kind.PLAYERS, OPEN, CYD, Visibility()).delay == 0.0


def test_spectators_read_a_word_games_players_room_after_the_delay_or_the_end() -> None:
    assert reading(Kind.PLAYERS, RUNNING, CYD, Visibility()).delay is None  # the default
    assert reading(Kind.PLAYERS, RUNNING, CYD, Visibility(players_delay_seconds=90)).delay == 90
    assert reading(Kind.PLAYERS, ENDED, CYD, Visibility()).delay == 0.0


def test_the_spectators_room_is_never_a_seats_while_the_game_runs() -> None:
    may_write(Kind.SPECTATORS, RUNNING, CYD)
    for viewer in (ADA, SEATED_MOD):
        assert denied(may_write, Kind.SPECTATORS, RUNNING, viewer) == "CHAT_SEAT_IN_KIBITZ"
        assert denied(reading, Kind.SPECTATORS, RUNNING, viewer, Visibility()) == (
            "CHAT_SEAT_IN_KIBITZ"
        )
    assert reading(Kind.SPECTATORS, ENDED, ADA, Visibility()) == Reading(0.0)
    may_write(Kind.SPECTATORS, ENDED, ADA)
    hidden = Visibility(kibitz_after_game=False)
    assert denied(reading, Kind.SPECTATORS, ENDED, ADA, hidden) == "CHAT_KIBITZ_HIDDEN"


def test_moderators_moderate_rooms_of_games_they_do_not_play() -> None:
    may_moderate(MOD, RUNNING)
    assert reading(Kind.SPECTATORS, RUNNING, MOD, Visibility()).moderation
    assert denied(may_moderate, SEATED_MOD, RUNNING) == "CHAT_NOT_MODERATOR"
    assert denied(may_moderate, CYD, None) == "CHAT_NOT_MODERATOR"
    assert not reading(Kind.LOBBY, None, CYD, Visibility()).moderation


# -- mutes and blocks -------------------------------------------------------------------------


def test_mutes_blocks_and_chat_off() -> None:
    prefs, _ = execute(PREFS, Prefs(), SetMute("ada", "bob", True))
    assert prefs.hides("bob")
    assert not prefs.hides("cyd")
    assert PREFS.decide(prefs, SetMute("ada", "bob", True)) == []
    prefs, _ = execute(PREFS, prefs, SetBlock("ada", "cyd", True))
    prefs, _ = execute(PREFS, prefs, SetMute("ada", "bob", False))
    assert prefs.hides("cyd")
    assert not prefs.hides("bob")
    prefs, _ = execute(PREFS, prefs, SetChat(False))
    assert not prefs.enabled
    with pytest.raises(InvalidArgument):
        PREFS.decide(prefs, SetMute("ada", "ada", True))
