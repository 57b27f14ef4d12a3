"""`/say` lines and the room's items as the terminal shows them (parlor.cli.chatting)."""

from __future__ import annotations

from parlor.chat.v1 import chat_pb2 as pb
from parlor.cli.chatting import said, shown


def test_a_say_line_keeps_its_case_and_other_lines_are_not_chat() -> None:
    assert said("/say Good luck, Bob!") == "Good luck, Bob!"
    assert said("  /SAY hi ") == "hi"
    assert said("/say") == ""
    assert said("/sayno") is None
    assert said("df") is None


def test_others_messages_are_shown_escaped_and_ones_own_are_not() -> None:
    theirs = pb.WatchRoomResponse(message=pb.ChatMessage(author="bob", text="[red]boo[/]"))
    line = shown(theirs, "ada")
    assert line is not None
    assert "\\[red]boo\\[/]" in line  # markup in a message is printed, not obeyed
    assert (
        shown(pb.WatchRoomResponse(message=pb.ChatMessage(author="ada", text="x")), "ada") is None
    )
    deleted = pb.WatchRoomResponse(message=pb.ChatMessage(author="bob", deleted=True))
    assert "(deleted)" in (shown(deleted, "ada") or "")
    assert shown(pb.WatchRoomResponse(closed=pb.RoomClosed(by="mia")), "ada") is not None
