"""Upwords (Hasbro 10x10) as a pure decider, with a move-generating bot.

Flow of a game: ``CreateGame`` (the service supplies two full shuffles of the
bag) -> ``GameCreated``; then each turn the seat to move sends ``Play``,
``Pass`` or ``Exchange``. Word checking stays pure: the service calls
``words_formed(state, play)``, asks its dictionary, and passes the answers as
``verdicts`` (``auto`` mode, in ``Play``; ``challenge`` mode, in ``Challenge``).
"""

from parlor.rules.upwords.board import CENTRE, MAX_HEIGHT, SIZE, Board
from parlor.rules.upwords.config import (
    RECORDED_BEFORE_VERSIONS,
    RULES_VERSION,
    UpwordsConfig,
    WordChecking,
    rules_for_new_game,
)
from parlor.rules.upwords.crossword import (
    FormedWord,
    PlayCheck,
    check_play,
    validate_play,
    words_formed,
)
from parlor.rules.upwords.events import (
    ChallengeFailed,
    DrawRound,
    Event,
    GameCreated,
    GameEnded,
    Passed,
    PlayAccepted,
    PlayerResigned,
    PlayerTimedOut,
    PlayWithdrawn,
    TileExchanged,
    TilesDrawn,
    WordPlayed,
)
from parlor.rules.upwords.game import (
    UPWORDS,
    GameResult,
    UpwordsDecider,
    check_meant_play,
    exchange_positions,
    insert_position,
    pending_words,
    tile_counts,
)
from parlor.rules.upwords.moves import (
    AcceptPlay,
    Challenge,
    Command,
    CreateGame,
    Exchange,
    Pass,
    Placement,
    Play,
    Resign,
    TimeOut,
)
from parlor.rules.upwords.state import PendingPlay, Phase, UpwordsState
from parlor.rules.upwords.tiles import DISTRIBUTION, QU, full_bag
from parlor.rules.upwords.view import PlayerView, event_for, public_event, secret_fields, view

__all__ = [
    "CENTRE",
    "DISTRIBUTION",
    "MAX_HEIGHT",
    "QU",
    "RECORDED_BEFORE_VERSIONS",
    "RULES_VERSION",
    "SIZE",
    "UPWORDS",
    "AcceptPlay",
    "Board",
    "Challenge",
    "ChallengeFailed",
    "Command",
    "CreateGame",
    "DrawRound",
    "Event",
    "Exchange",
    "FormedWord",
    "GameCreated",
    "GameEnded",
    "GameResult",
    "Pass",
    "Passed",
    "PendingPlay",
    "Phase",
    "Placement",
    "Play",
    "PlayAccepted",
    "PlayCheck",
    "PlayWithdrawn",
    "PlayerResigned",
    "PlayerTimedOut",
    "PlayerView",
    "Resign",
    "TileExchanged",
    "TilesDrawn",
    "TimeOut",
    "UpwordsConfig",
    "UpwordsDecider",
    "UpwordsState",
    "WordChecking",
    "WordPlayed",
    "check_meant_play",
    "check_play",
    "event_for",
    "exchange_positions",
    "full_bag",
    "insert_position",
    "pending_words",
    "public_event",
    "rules_for_new_game",
    "secret_fields",
    "tile_counts",
    "validate_play",
    "view",
    "words_formed",
]
