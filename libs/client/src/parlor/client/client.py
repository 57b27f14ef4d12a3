"""The connection to a Parlor platform: one channel, the bearer token, the retry policy.

The channel pings its connection (gRPC keepalive) every ``keepalive_seconds`` and gives it
up when a ping is not answered within half that: a server that died without closing the
connection (its host lost, its process frozen) would otherwise leave a ``watch`` waiting for
ever, since a quiet stream sends nothing that could notice. The call then fails
``UNAVAILABLE`` (``parlor.client.Unavailable``), and ``watch`` resumes on a new connection.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any, TypeVar

import grpc

from parlor.client.chat import ChatClient
from parlor.client.errors import error_from
from parlor.client.games import GameClient, game_api
from parlor.client.identity import IdentityClient
from parlor.client.matchmaking import MatchmakingClient
from parlor.client.retry import RetryPolicy, call_with_retries
from parlor.client.retry import idempotent as is_idempotent
from parlor.client.tournaments import TournamentClient

if TYPE_CHECKING:
    from parlor.connect4x4.v1.connect4x4_pb2_grpc import Connect4x4ServiceAsyncStub
    from parlor.takefour.v1.takefour_pb2_grpc import TakeFourServiceAsyncStub
    from parlor.upwords.v1.upwords_pb2_grpc import UpwordsServiceAsyncStub

Q = TypeVar("Q")
R = TypeVar("R")

DEFAULT_TARGET = "localhost:50051"
KEEPALIVE_SECONDS = 20.0
"""Parlor's servers take a ping every 5 s at most; one sent sooner is answered GOAWAY."""


def keepalive_options(seconds: float) -> list[tuple[str, int]]:
    """A channel's options to ping every ``seconds``, even with no call in flight, and give
    the connection up when an answer takes over half that."""
    every, timeout = round(seconds * 1000), round(seconds * 500)
    return [
        ("grpc.keepalive_time_ms", every),
        ("grpc.keepalive_timeout_ms", timeout),
        ("grpc.http2.ping_timeout_ms", timeout),  # what grpcio closes a connection by
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.max_pings_without_data", 0),  # else 2 pings, then none on a quiet stream
    ]


class ParlorClient:
    """Every Parlor API over one ``grpc.aio`` channel, as one player (the token's subject).

    Use it as an async context manager (``async with ParlorClient(target) as parlor``), or
    call :meth:`close`. Without a token, get one with :meth:`sign_in_as_guest`.
    """

    def __init__(
        self,
        target: str = DEFAULT_TARGET,
        token: str | None = None,
        *,
        retry: RetryPolicy | None = None,
        credentials: grpc.ChannelCredentials | None = None,
        channel: grpc.aio.Channel | None = None,
        keepalive_seconds: float | None = KEEPALIVE_SECONDS,
    ) -> None:
        """``keepalive_seconds``: how often the connection is pinged (None: never; at least
        5, as Parlor's servers take no more); a ``channel`` given is used as it is."""
        self.target = target
        self.token = token
        self.retry = retry or RetryPolicy()
        if channel is None:
            options = keepalive_options(keepalive_seconds) if keepalive_seconds else []
            if credentials is None:
                channel = grpc.aio.insecure_channel(target, options=options)
            else:
                channel = grpc.aio.secure_channel(target, credentials, options=options)
        self.channel = channel
        self.identity = IdentityClient(self)
        self.matchmaking = MatchmakingClient(self)
        self.chat = ChatClient(self)
        self.tournaments = TournamentClient(self)
        self._games: dict[str, GameClient[Any]] = {}

    async def __aenter__(self) -> ParlorClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self.channel.close()

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.token}"),) if self.token else ()

    async def sign_in_as_guest(self, display_name: str = "") -> str:
        """Ask the platform for a guest token and call as that guest from now on; its id."""
        issued = await self.identity.issue_guest_token(display_name)
        self.token = issued.token
        return str(issued.player_id)

    # -- games ---------------------------------------------------------------------------------

    def game(self, game_type: str) -> GameClient[Any]:
        """The client of a game type's service (``"takefour"``); KeyError if unknown here."""
        if game_type not in self._games:
            self._games[game_type] = GameClient(self, game_api(game_type))
        return self._games[game_type]

    @property
    def connect4x4(self) -> GameClient[Connect4x4ServiceAsyncStub]:
        return self.game("connect4x4")

    @property
    def takefour(self) -> GameClient[TakeFourServiceAsyncStub]:
        return self.game("takefour")

    @property
    def upwords(self) -> GameClient[UpwordsServiceAsyncStub]:
        return self.game("upwords")

    # -- the call layer ------------------------------------------------------------------------

    async def call(
        self,
        method: grpc.aio.UnaryUnaryMultiCallable[Q, R],
        request: Q,
        *,
        idempotent: bool | None = None,
        name: str = "",
    ) -> R:
        """One unary call with the token; retried per :attr:`retry` when it is idempotent.

        ``idempotent`` defaults to: a read by its ``name`` (``GetGame``...), or a request
        carrying a ``command_id``. Failures raise :class:`parlor.client.ParlorError`.
        """
        safe = is_idempotent(name, request) if idempotent is None else idempotent

        async def attempt(deadline: float | None) -> R:
            return await method(request, metadata=self.metadata, timeout=deadline)

        return await call_with_retries(attempt, self.retry, safe)

    async def stream(
        self, method: grpc.aio.UnaryStreamMultiCallable[Q, R], request: Q
    ) -> AsyncGenerator[R, None]:
        """A server stream's items (no retry: see ``GameClient.watch`` for one that resumes)."""
        call = method(request, metadata=self.metadata, timeout=None)
        try:
            async for item in call:
                yield item
        except grpc.RpcError as exc:
            raise error_from(exc) from exc
        finally:
            call.cancel()
