"""Settings from the environment, typed, failing fast with a message naming the setting.

A settings class is a frozen dataclass whose fields carry ``setting(...)``
metadata. ``load(cls)`` reads ``os.environ``; a missing required setting or an
unparsable value raises ``SettingsError`` naming the variable, at start-up,
never later. Every setting is listed in ``REGISTRY`` so the docs and the
Kubernetes manifests can be checked against the code.
"""

from __future__ import annotations

import dataclasses
import os
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

_MISSING: Any = dataclasses.MISSING


class SettingsError(ValueError):
    """A setting is missing or malformed; the message names the variable and what is expected."""


@dataclass(frozen=True)
class SettingInfo:
    env: str
    help: str
    default: object
    owner: str


REGISTRY: dict[str, SettingInfo] = {}


def setting(env: str, help: str, default: Any = _MISSING) -> Any:
    """A dataclass field read from the environment variable ``env``."""
    meta = {"env": env, "help": help}
    if default is _MISSING:
        return field(metadata=meta)
    if isinstance(default, list | dict | set):
        raise TypeError("use a tuple for sequence defaults")
    return field(default=default, metadata=meta)


def _parse_bool(raw: str) -> bool:
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ValueError("expected one of true/false, 1/0, yes/no, on/off")


def _parser(tp: Any) -> Callable[[str], Any]:
    if tp is bool:
        return _parse_bool
    if tp in (int, float, str):
        return typing.cast(Callable[[str], Any], tp)
    if tp is Path:
        return Path
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType) and type(None) in args:
        inner = _parser(next(a for a in args if a is not type(None)))
        return lambda raw: None if raw == "" else inner(raw)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = _parser(args[0])
        return lambda raw: tuple(item(p.strip()) for p in raw.split(",") if p.strip())
    if origin is typing.Literal:
        allowed = {str(a) for a in args}

        def literal(raw: str) -> str:
            if raw not in allowed:
                raise ValueError(f"expected one of {sorted(allowed)}")
            return raw

        return literal
    raise TypeError(f"unsupported setting type {tp!r}")


def register(cls: type[Any]) -> type[Any]:
    """Record every setting of ``cls`` in REGISTRY (done by ``load`` too)."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        env = f.metadata.get("env")
        if env is None:
            continue
        _parser(hints[f.name])  # fail at import for unsupported types
        default: object = f.default if f.default is not dataclasses.MISSING else None
        REGISTRY.setdefault(env, SettingInfo(env, f.metadata["help"], default, cls.__qualname__))
    return cls


def load(cls: type[T], environ: Mapping[str, str] | None = None) -> T:
    """Build ``cls`` from the environment; raise SettingsError naming any bad setting."""
    environ = os.environ if environ is None else environ
    register(cls)
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    problems: list[str] = []
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        env = f.metadata.get("env")
        if env is None:
            continue
        raw = environ.get(env)
        if raw is None:
            if f.default is dataclasses.MISSING:
                problems.append(f"{env} is required ({f.metadata['help']})")
            continue
        try:
            values[f.name] = _parser(hints[f.name])(raw)
        except ValueError as exc:
            problems.append(f"{env}={raw!r} is invalid: {exc} ({f.metadata['help']})")
    if problems:
        raise SettingsError("bad settings: " + "; ".join(problems))
    return cls(**values)


DEFAULT_DATABASE_POOL_SIZE = 40
"""A server's connections to PostgreSQL when none is set; N workers share it out, at least 5
each (``parlor.kit.connections``): ``make run``'s two workers 20 each, which a 500-game
human-pace load needs (at 5 each its players' first reads waited out the pools' 2 s and
heard UNAVAILABLE)."""
MIN_STREAM_MAX_AGE_HOURS = 1.0
"""The shortest ``PARLOR_NATS_STREAM_MAX_AGE_HOURS`` but 0: above the relay's dedupe window."""
MAX_STREAM_REPLICAS = 5
"""The most servers JetStream keeps a stream on (``PARLOR_NATS_STREAM_REPLICAS``)."""
MAX_EVENT_PARTITIONS = 1024
"""The most partitions the event store's order splits into (``PARLOR_EVENT_PARTITIONS``;
``parlor.eventstore.partitions.MAX_PARTITIONS``)."""


@dataclass(frozen=True)
class BackendSettings:
    """Where the event store and the bus are; every stateful service reads these."""

    database_url: str = setting(
        "PARLOR_DATABASE_URL", "PostgreSQL URL, e.g. postgresql://user:pass@host:5432/parlor"
    )
    nats_url: str = setting(
        "PARLOR_NATS_URL",
        "NATS URL with JetStream, e.g. nats://host:4222; several servers comma-separated",
    )
    database_pool_size: int = setting(
        "PARLOR_DATABASE_POOL_SIZE",
        "the most connections a server opens to PostgreSQL: every pool, the relay and its"
        " LISTEN of all its processes together (at least 5 a process; --workers N splits it,"
        " and unset it is 40, or 5 a worker when N > 8)",
        DEFAULT_DATABASE_POOL_SIZE,
    )
    event_partitions: int = setting(
        "PARLOR_EVENT_PARTITIONS",
        "partitions the event store's global order is split into, each with its own append"
        " lock, relay lease and consumers' cursors (1 to 1024; 1: one order, as before); the"
        " same in every service of a database, and raise it only: streams stay in the"
        " partition their first event went to",
        1,
    )
    nats_stream: str = setting(
        "PARLOR_NATS_STREAM", "JetStream stream that holds every published event", "PARLOR_EVENTS"
    )
    nats_subject_prefix: str = setting(
        "PARLOR_NATS_SUBJECT_PREFIX",
        "first tokens of every event subject: <prefix>.<game type>.<game id>.<event>",
        "parlor.events",
    )
    nats_stream_max_age_hours: float = setting(
        "PARLOR_NATS_STREAM_MAX_AGE_HOURS",
        "hours the JetStream stream keeps each event (the store keeps them all): a consumer"
        " away longer misses what expired meanwhile (0: for ever, the stream grows without"
        " bound; else at least 1)",
        72.0,
    )
    nats_stream_replicas: int = setting(
        "PARLOR_NATS_STREAM_REPLICAS",
        "servers of NATS's cluster the JetStream stream is kept on (its replicas, 1 to 5): 3 on"
        " a 3-node cluster outlives a node; at most the cluster's JetStream servers, 1 for a"
        " NATS without a cluster (NATS makes no stream otherwise)",
        1,
    )
    nats_user: str = setting("PARLOR_NATS_USER", "this service's NATS user (empty: none)", "")
    nats_password: str = setting("PARLOR_NATS_PASSWORD", "the NATS user's password", "")
    nats_creds_file: str = setting(
        "PARLOR_NATS_CREDS_FILE", "a NATS .creds file (user JWT and nkey seed) instead", ""
    )
    nats_tls_ca_file: str = setting(
        "PARLOR_NATS_TLS_CA_FILE",
        "CA certificate that signs NATS's TLS certificate (use a tls:// PARLOR_NATS_URL)",
        "",
    )

    def __post_init__(self) -> None:
        hours = self.nats_stream_max_age_hours
        if not (hours == 0 or hours >= MIN_STREAM_MAX_AGE_HOURS):
            raise SettingsError(
                f"PARLOR_NATS_STREAM_MAX_AGE_HOURS={hours:g} is invalid: 0 (for ever) or at"
                f" least {MIN_STREAM_MAX_AGE_HOURS:g} (the relay's dedupe window is 10 minutes)"
            )
        if not 1 <= self.event_partitions <= MAX_EVENT_PARTITIONS:
            raise SettingsError(
                f"PARLOR_EVENT_PARTITIONS={self.event_partitions} is invalid: the event store's"
                f" order splits into 1 to {MAX_EVENT_PARTITIONS} partitions"
            )
        if not 1 <= self.nats_stream_replicas <= MAX_STREAM_REPLICAS:
            raise SettingsError(
                f"PARLOR_NATS_STREAM_REPLICAS={self.nats_stream_replicas} is invalid: JetStream"
                f" keeps a stream on 1 to {MAX_STREAM_REPLICAS} servers"
            )

    @property
    def nats_stream_max_age(self) -> float:
        """The hours in seconds, as ``JetStreamBus(max_age=...)`` takes them."""
        return self.nats_stream_max_age_hours * 3600.0
