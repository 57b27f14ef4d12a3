"""Who sits in a seat, as every part of the platform tells it: a person, Parlor's own bot
(``bot:<level>``, moved by the platform, no clock) or a registered bot account
(``botacct-<32 hex>``, a player's seat whose clock runs), both shown as a bot in every view
(docs/bots.md). A game's table of seats (``parlor.gamehost.table.table``) is made of these."""

from __future__ import annotations

import re
from dataclasses import dataclass

BOT_PREFIX = "bot:"
BOT_ACCOUNT_PREFIX = "botacct-"
_BOT_ACCOUNT = re.compile(r"^botacct-[0-9a-f]{32}$")


def is_bot_account(player_id: str) -> bool:
    """The id of a registered bot account (docs/bots.md): matchmaking issues them, and a
    token for one only to the bot itself (its secret exchanged), so only the bot can ever
    act in a seat under such an id, and no person's id has that form."""
    return bool(_BOT_ACCOUNT.match(player_id))


def shown_as_bot(player_id: str) -> bool:
    """Whether a seat under this id is a bot's, Parlor's own or a bot account's (the game
    directory's listings, which keep seats' ids: the same as ``Seat.shown_as_bot`` of the
    recorded seat, whose ``bot_account`` is set for exactly these ids)."""
    return player_id.startswith(BOT_PREFIX) or is_bot_account(player_id)


@dataclass(frozen=True, slots=True)
class Seat:
    player_id: str
    name: str = ""
    bot_account: bool = False
    """Held by a registered bot account (recorded in ``SeatsTaken`` as the seat's ``bot``):
    a player's seat whose clock runs, shown as a bot (``shown_as_bot``)."""

    @property
    def is_bot(self) -> bool:
        """One of Parlor's own bots (``bot:<level>``), which the platform moves."""
        return self.player_id.startswith(BOT_PREFIX)

    @property
    def shown_as_bot(self) -> bool:
        """What every view says of the seat: a bot, Parlor's own or a bot account."""
        return self.is_bot or self.bot_account

    @property
    def bot_level(self) -> str | None:
        return self.player_id[len(BOT_PREFIX) :] if self.is_bot else None
