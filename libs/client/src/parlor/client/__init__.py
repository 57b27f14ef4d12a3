"""``parlor-client``: typed async calls to a Parlor platform (grpc.aio).

async with ParlorClient("localhost:50051") as parlor:
    me = await parlor.sign_in_as_guest("Ada")
    game = await parlor.takefour.create_game([me, "bot:easy"])
"""

from parlor.client.chat import ChatClient
from parlor.client.client import DEFAULT_TARGET, ParlorClient
from parlor.client.errors import (
    Aborted,
    AlreadyExists,
    Cancelled,
    FailedPrecondition,
    Internal,
    InvalidArgument,
    NotFound,
    ParlorError,
    PermissionDenied,
    ResourceExhausted,
    Unauthenticated,
    Unavailable,
    Unimplemented,
    error_from,
)
from parlor.client.games import GAME_TYPES, GameApi, GameClient, game_api
from parlor.client.identity import IdentityClient
from parlor.client.matchmaking import MatchmakingClient
from parlor.client.retry import NO_RETRY, RetryPolicy
from parlor.client.tournaments import TournamentClient

__all__ = [
    "DEFAULT_TARGET",
    "GAME_TYPES",
    "NO_RETRY",
    "Aborted",
    "AlreadyExists",
    "Cancelled",
    "ChatClient",
    "FailedPrecondition",
    "GameApi",
    "GameClient",
    "IdentityClient",
    "Internal",
    "InvalidArgument",
    "MatchmakingClient",
    "NotFound",
    "ParlorClient",
    "ParlorError",
    "PermissionDenied",
    "ResourceExhausted",
    "RetryPolicy",
    "TournamentClient",
    "Unauthenticated",
    "Unavailable",
    "Unimplemented",
    "error_from",
    "game_api",
]
