"""The platform's Prometheus metrics beside the gRPC ones (``parlor.kit.metrics``), in one place.

Every library and service counts into these, so the dashboard and the alert rules in
``deploy/kustomize/components/monitoring`` have one list of names to follow (and
``tests/deploy`` checks every name they use is defined here or in the kit).
"""

from __future__ import annotations

from typing import TypeVar

from prometheus_client import Counter, Gauge, Histogram

Metric = TypeVar("Metric", Counter, Gauge, Histogram)

_CHILDREN: dict[tuple[object, tuple[str, ...]], object] = {}


def labelled(metric: Metric, *values: str) -> Metric:
    """``metric.labels(*values)``, looked up once for each set of values (``labels`` takes a
    lock and builds its key on every call; the hot paths count several times per move).
    For label values from a small set: game types, categories, outcomes."""
    key = (metric, values)
    child = _CHILDREN.get(key)
    if child is None:
        child = _CHILDREN[key] = metric.labels(*values)
    return child  # type: ignore[return-value]


LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
WAIT_BUCKETS = (0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800)

# -- the relay (transactional outbox) ---------------------------------------------------------

RELAY_LAG_EVENTS = Gauge(
    "parlor_relay_lag_events",
    "Events committed to the store but not yet published by this relay (store head minus the "
    "relay's checkpoint).",
    ["relay"],
)
RELAY_LAG_SECONDS = Gauge(
    "parlor_relay_lag_seconds",
    "Age of the oldest committed event this relay has not published yet (0 when caught up).",
    ["relay"],
)
RELAY_LEADER = Gauge(
    "parlor_relay_leader",
    "1 if this replica leads (publishes for) the relay, else 0; the sum over replicas is 1.",
    ["relay"],
)
RELAY_PUBLISHED = Counter(
    "parlor_relay_published_total", "Events this replica's relay published.", ["relay"]
)

# -- consumers (durable JetStream consumers) ----------------------------------------------

CONSUMER_PENDING = Gauge(
    "parlor_consumer_pending",
    "Messages waiting for a durable consumer after the last one it fetched (JetStream's "
    "num_pending; 0 after a fetch that found nothing).",
    ["consumer"],
)
CONSUMER_HANDLED = Counter(
    "parlor_consumer_handled_total",
    "Messages a durable consumer finished: acked, or nak'ed for redelivery.",
    ["consumer", "outcome"],
)
CONSUMER_UP = Gauge(
    "parlor_consumer_up",
    "1 while a durable consumer's fetches succeed (empty ones too), 0 while they fail and it "
    "subscribes again (NATS away, or the consumer, its stream or the server's store lost).",
    ["consumer"],
)
CONSUMER_RECOVERIES = Counter(
    "parlor_consumer_recoveries_total",
    "Times a durable consumer was subscribed again (the consumer and stream made again where "
    "missing) after its fetches failed, by the class of the first failure.",
    ["consumer", "error"],
)
EVENTS_SET_ASIDE = Counter(
    "parlor_events_set_aside_total",
    "Messages a consumer or relay gave up on (dead letters, refused matches), by reason.",
    ["consumer", "reason"],
)


def set_aside(consumer: str, reason: str) -> None:
    """Count one message set aside (dead-lettered or dropped) by ``consumer``."""
    EVENTS_SET_ASIDE.labels(consumer, reason).inc()


# -- health -----------------------------------------------------------------------------------

HEALTH_SERVING = Gauge(
    "parlor_health_serving",
    "1 while a gRPC health name of this process reports SERVING, else 0: '' (the process), "
    "each service's name (its readiness: it takes commands), 'parlor.bus' (NATS and the "
    "consumers on it).",
    ["service"],
)


# -- games ------------------------------------------------------------------------------------

GAME_COMMANDS = Counter(
    "parlor_game_commands_total",
    "Commands the game host handled, by game type and outcome: applied (events appended), "
    "repeated (a known command id), unchanged (nothing to append) or refused.",
    ["game_type", "outcome"],
)
GAME_COMMAND_SECONDS = Histogram(
    "parlor_game_command_seconds",
    "Time to decide and append one command (moves and creations), conflicts retried included.",
    ["game_type"],
    buckets=LATENCY_BUCKETS,
)
GAMES_STARTED = Counter("parlor_games_started_total", "Games created.", ["game_type"])
GAMES_FINISHED = Counter("parlor_games_finished_total", "Games finished.", ["game_type"])
APPENDS = Counter(
    "parlor_game_appends_total",
    "Appends asked of the event store (conflicts, decided again, included), by category.",
    ["category"],
)
CONFLICTS = Counter(
    "parlor_append_conflicts_total",
    "Appends refused because another writer moved the stream first (the game host decides "
    "again on the newer state).",
    ["category"],
)
WATCHERS = Gauge(
    "parlor_watchers", "Watch streams open on this replica, by game type.", ["game_type"]
)

# -- matchmaking --------------------------------------------------------------------------------

MATCHMAKING_WAIT_SECONDS = Histogram(
    "parlor_matchmaking_wait_seconds",
    "Time from a ticket's creation to the match that seated it.",
    ["game_type"],
    buckets=WAIT_BUCKETS,
)
