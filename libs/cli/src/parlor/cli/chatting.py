"""Chat in the terminal: ``/say <text>`` in ``parlor play`` (the game's players' room) and
``parlor watch`` (its spectators' room), and the others' messages printed as they come."""

from __future__ import annotations

from contextlib import aclosing
from typing import Any

from rich.console import Console
from rich.markup import escape

from parlor.cli import session as sessions
from parlor.client import ParlorError
from parlor.client.chat import players_room, spectators_room

SAY = "/say"


def said(line: str) -> str | None:
    """The text of a ``/say <text>`` line (its case kept); None for any other line."""
    stripped = line.strip()
    if stripped.lower() == SAY or stripped.lower().startswith(SAY + " "):
        return stripped[len(SAY) :].strip()
    return None


def shown(item: Any, me: str) -> str | None:
    """A room's item as a line to print, None for what is not shown (one's own messages,
    which were printed as sent)."""
    kind = item.WhichOneof("item")
    if kind == "message" and item.message.author != me:
        text = "(deleted)" if item.message.deleted else item.message.text
        return f"[cyan]{escape(item.message.author)}:[/] {escape(text)}"
    if kind == "timed_out":
        return f"[dim]{escape(item.timed_out.player_id)} is timed out of this room[/]"
    if kind == "closed":
        return "[dim]the room is closed[/]"
    return None


def transcript(title: str, items: list[Any]) -> str:
    """A room's messages as plain text, one a line: ``[time] author: text``."""
    lines = [f"# {title}"]
    for item in items:
        if item.WhichOneof("item") != "message":
            continue
        m = item.message
        text = "(deleted)" if m.deleted else m.text
        lines.append(f"[{m.posted_at.ToDatetime():%Y-%m-%d %H:%M:%S}] {m.author}: {text}")
    return "\n".join(lines) + "\n"


class Interleaved:
    """A game's rooms' messages, printed between its events in a replay: each before the
    first event recorded after it was posted."""

    def __init__(self, messages: list[tuple[str, Any]], out: Console) -> None:
        self.messages = sorted(messages, key=lambda m: m[1].posted_at.ToNanoseconds())
        self.out = out

    @classmethod
    async def read(cls, parlor: Any, game_type: str, game_id: str, out: Console) -> Interleaved:
        """Both rooms as the caller may read them now (a room refused is said, and left out)."""
        messages = []
        for title, room in (
            ("players", players_room(game_type, game_id)),
            ("spectators", spectators_room(game_type, game_id)),
        ):
            try:
                items = await parlor.chat.history(room)
            except ParlorError as exc:
                out.print(f"[dim]{title}' room: {escape(sessions.describe(exc))}[/]")
                continue
            messages += [(title, i.message) for i in items if i.WhichOneof("item") == "message"]
        return cls(messages, out)

    def print_until(self, at: Any) -> None:
        """Print the messages posted up to ``at`` (a Timestamp; None: all that are left)."""
        limit = None if at is None else at.ToNanoseconds()
        while self.messages and (
            limit is None or self.messages[0][1].posted_at.ToNanoseconds() <= limit
        ):
            title, m = self.messages.pop(0)
            text = "(deleted)" if m.deleted else m.text
            self.out.print(f"[cyan]{title}: {escape(m.author)}:[/] {escape(text)}")


async def rooms_text(parlor: Any, game_type: str, game_id: str) -> str:
    """The game's two rooms as the caller may read them now; a room refused says why."""
    out = []
    for title, room in (
        ("players' room", players_room(game_type, game_id)),
        ("spectators' room", spectators_room(game_type, game_id)),
    ):
        try:
            out.append(transcript(title, await parlor.chat.history(room)))
        except ParlorError as exc:
            out.append(f"# {title}: {sessions.describe(exc)}\n")
    return "".join(out)


async def follow(parlor: Any, room: Any, me: str, out: Console) -> None:
    """Print the room's messages from others as they come, until cancelled; a refusal (a
    seat and its game's spectators' room, chat not served) is said once."""
    try:
        async with aclosing(parlor.chat.watch(room)) as items:
            async for item in items:
                line = shown(item, me)
                if line is not None:
                    out.print(line)
    except ParlorError as exc:
        out.print(f"[dim]chat: {escape(sessions.describe(exc))}[/]")


async def say(parlor: Any, room: Any, text: str, out: Console) -> None:
    try:
        message = await parlor.chat.say(room, text)
    except ParlorError as exc:
        out.print(f"[red]{escape(sessions.describe(exc))}[/]")
        return
    out.print(f"[cyan]you:[/] {escape(message.text)}")
