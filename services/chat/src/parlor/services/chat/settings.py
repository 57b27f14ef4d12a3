"""The chat service's settings (every one documented in deploy/README.md)."""

from __future__ import annotations

from dataclasses import dataclass

from parlor.chatrules import Limits, Policy, Visibility
from parlor.chatrules.text import MAX_CHARACTERS
from parlor.kit.settings import setting


@dataclass(frozen=True)
class ChatSettings:
    max_characters: int = setting(
        "PARLOR_CHAT_MAX_CHARACTERS",
        "the longest chat message, in characters after NFC normalisation",
        MAX_CHARACTERS,
    )
    links_allowed: bool = setting(
        "PARLOR_CHAT_LINKS_ALLOWED", "whether chat messages may hold links", False
    )
    filtered_words: tuple[str, ...] = setting(
        "PARLOR_CHAT_FILTERED_WORDS",
        "words a chat message may not hold (comma-separated, compared casefolded as whole"
        " words); empty by default",
        (),
    )
    per_player: int = setting(
        "PARLOR_CHAT_PLAYER_MESSAGES",
        "messages one player may post in a room per PARLOR_CHAT_WINDOW_SECONDS",
        5,
    )
    per_room: int = setting(
        "PARLOR_CHAT_ROOM_MESSAGES",
        "messages a room takes per PARLOR_CHAT_WINDOW_SECONDS, from everyone",
        60,
    )
    window_seconds: float = setting(
        "PARLOR_CHAT_WINDOW_SECONDS", "the window of the chat rate limits", 10.0
    )
    players_delay_seconds: float = setting(
        "PARLOR_CHAT_PLAYERS_DELAY_SECONDS",
        "in games that hide information (Upwords, Take Four), how long after it is posted a"
        " player's message is shown to spectators; negative (the default): not until the game"
        " has ended",
        -1.0,
    )
    kibitz_after_game: bool = setting(
        "PARLOR_CHAT_KIBITZ_AFTER_GAME",
        "whether a game's players may read its spectators' room once it has ended",
        True,
    )

    def policy(self) -> Policy:
        return Policy(self.max_characters, self.links_allowed, self.filtered_words)

    def limits(self) -> Limits:
        return Limits(self.per_player, self.per_room, self.window_seconds)

    def visibility(self) -> Visibility:
        delay = None if self.players_delay_seconds < 0 else self.players_delay_seconds
        return Visibility(delay, self.kibitz_after_game)
