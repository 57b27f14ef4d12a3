"""HTTP/2 keepalive pings on every gRPC connection Parlor makes or takes.

A peer that dies without closing its TCP connection (its node lost, its process frozen, a
network partition) answers nothing and sends no FIN, and the other side waits for TCP to
give up: minutes to hours. A quiet stream (a ``WatchGame`` between moves) sends nothing
that could notice, so the bridge kept the browser's stream open, sent it SSE keepalives,
and never told it the game's service was gone. gRPC's keepalive (gRFC A8) pings a
connection every ``seconds`` and closes it when the answer has not come within
``timeout_seconds``: every call on it then ends ``UNAVAILABLE``, and a channel connects
again. Pings go on connections without calls too, so an idle channel finds out before its
next call waits on a dead connection, and a server frees the streams of a client that died.

A server must take what its clients send: gRPC counts a ping that comes sooner than its
``grpc.http2.min_ping_interval_without_data_ms`` (5 minutes by default) after the last
one, while it has sent no data, as a strike, and after two it closes the connection
(GOAWAY ``too_many_pings``), failing every call on it; a quiet stream is exactly that case.
Parlor's servers take a ping every ``PERMITTED_SECONDS`` (5 s, as etcd's
``--grpc-keepalive-min-time``), or every half of ``seconds`` when that is shorter, so their
own channels, set alike, are never refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from parlor.kit.settings import SettingsError, setting

PERMITTED_SECONDS = 5.0
"""Clients may ping a Parlor server this often (docs/clients.md tells other clients)."""


@dataclass(frozen=True)
class KeepaliveSettings:
    seconds: float = setting(
        "PARLOR_GRPC_KEEPALIVE_SECONDS",
        "how often each gRPC connection, client or server side, is pinged to find a peer that"
        " died without closing it",
        20.0,
    )
    timeout_seconds: float = setting(
        "PARLOR_GRPC_KEEPALIVE_TIMEOUT_SECONDS",
        "how long a ping's answer may take before the connection is closed and its calls end"
        " UNAVAILABLE",
        10.0,
    )

    def __post_init__(self) -> None:
        for env, value in (
            ("PARLOR_GRPC_KEEPALIVE_SECONDS", self.seconds),
            ("PARLOR_GRPC_KEEPALIVE_TIMEOUT_SECONDS", self.timeout_seconds),
        ):
            if not 0 < value < math.inf:  # nan too
                raise SettingsError(f"{env}: must be a number of seconds above 0, got {value!r}")

    def channel_options(self) -> list[tuple[str, int]]:
        """A client channel's: ping every ``seconds``, with or without calls in flight."""
        return [
            ("grpc.keepalive_time_ms", _ms(self.seconds)),
            ("grpc.keepalive_timeout_ms", _ms(self.timeout_seconds)),
            # what grpcio (1.85) closes the connection by: a ping unanswered this long (a
            # minute by default); keepalive_timeout_ms alone left a frozen peer's stream open
            ("grpc.http2.ping_timeout_ms", _ms(self.timeout_seconds)),
            ("grpc.keepalive_permit_without_calls", 1),
            # gRPC stops pinging after 2 pings with no data sent (its default): a quiet stream
            # would be watched for 2 pings only
            ("grpc.http2.max_pings_without_data", 0),
        ]

    def server_options(self) -> list[tuple[str, int]]:
        """A server's: ping its clients alike, and take their pings (see above)."""
        permitted = min(PERMITTED_SECONDS, self.seconds / 2)
        return [
            *self.channel_options(),
            ("grpc.http2.min_ping_interval_without_data_ms", _ms(permitted)),
        ]


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))
