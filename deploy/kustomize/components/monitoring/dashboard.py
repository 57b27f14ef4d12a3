"""Writes dashboard.json (the Grafana dashboard) beside this file: ``python dashboard.py``.

The dashboard is generated so its panels stay regular; tests/deploy checks the JSON is
what this script writes and that every metric it queries exists in the code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
WIDTH, HEIGHT = 8, 8


def panel(title: str, unit: str, *targets: tuple[str, str], description: str = "") -> dict[str, Any]:
    return {
        "type": "timeseries",
        "title": title,
        "description": description,
        "datasource": DATASOURCE,
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "options": {"legend": {"displayMode": "list", "placement": "bottom"}},
        "targets": [
            {"datasource": DATASOURCE, "expr": expr, "legendFormat": legend, "refId": chr(65 + i)}
            for i, (expr, legend) in enumerate(targets)
        ],
    }


ERRORS = 'grpc_code=~"UNKNOWN|INTERNAL|UNAVAILABLE|DEADLINE_EXCEEDED|DATA_LOSS"'
DICTIONARY = 'grpc_service="parlor.dictionary.v1.DictionaryService"'

ROWS: list[tuple[str, list[dict[str, Any]]]] = [
    (
        "RPCs",
        [
            panel(
                "Calls per second",
                "reqps",
                ("sum by (grpc_method) (rate(grpc_server_handled_total[$__rate_interval]))", "{{grpc_method}}"),
            ),
            panel(
                "Server errors per RPC",
                "percentunit",
                (
                    f"sum by (grpc_service, grpc_method) (rate(grpc_server_handled_total{{{ERRORS}}}[$__rate_interval]))"
                    " / sum by (grpc_service, grpc_method) (rate(grpc_server_handled_total[$__rate_interval]))",
                    "{{grpc_method}}",
                ),
                description="Share of calls ending INTERNAL, UNAVAILABLE, DEADLINE_EXCEEDED, UNKNOWN or DATA_LOSS.",
            ),
            panel(
                "p99 call latency",
                "s",
                (
                    "histogram_quantile(0.99, sum by (le, grpc_method) (rate(grpc_server_handling_seconds_bucket[$__rate_interval])))",
                    "{{grpc_method}}",
                ),
            ),
        ],
    ),
    (
        "Games",
        [
            panel(
                "Moves per second by game type",
                "ops",
                (
                    'sum by (game_type) (rate(parlor_game_commands_total{outcome="applied"}[$__rate_interval]))',
                    "{{game_type}}",
                ),
                (
                    'sum by (game_type) (rate(parlor_game_commands_total{outcome="refused"}[$__rate_interval]))',
                    "{{game_type}} refused",
                ),
            ),
            panel(
                "Games started and finished",
                "ops",
                ("sum by (game_type) (rate(parlor_games_started_total[$__rate_interval]))", "{{game_type}} started"),
                ("sum by (game_type) (rate(parlor_games_finished_total[$__rate_interval]))", "{{game_type}} finished"),
            ),
            panel(
                "Move latency (decide and append)",
                "s",
                (
                    "histogram_quantile(0.99, sum by (le, game_type) (rate(parlor_game_command_seconds_bucket[$__rate_interval])))",
                    "{{game_type}} p99",
                ),
                (
                    "histogram_quantile(0.5, sum by (le, game_type) (rate(parlor_game_command_seconds_bucket[$__rate_interval])))",
                    "{{game_type}} p50",
                ),
            ),
            panel(
                "Conflicts retried",
                "ops",
                ("sum by (category) (rate(parlor_append_conflicts_total[$__rate_interval]))", "{{category}}"),
                description="Appends that lost a race for a stream's version; the game host decided again.",
            ),
            panel(
                "Watchers connected",
                "short",
                ("sum by (game_type) (parlor_watchers)", "{{game_type}}"),
            ),
        ],
    ),
    (
        "Events: relay and consumers",
        [
            panel(
                "Relay lag (seconds behind)",
                "s",
                ("max by (relay) (parlor_relay_lag_seconds)", "{{relay}}"),
            ),
            panel(
                "Relay lag (events not yet published)",
                "short",
                ("max by (relay) (parlor_relay_lag_events)", "{{relay}}"),
            ),
            panel(
                "Relay leaders (1 expected)",
                "short",
                ("sum by (relay) (parlor_relay_leader)", "{{relay}}"),
            ),
            panel(
                "Consumer lag (messages pending)",
                "short",
                ("max by (consumer) (parlor_consumer_pending)", "{{consumer}}"),
            ),
            panel(
                "Consumers fetching (replicas up)",
                "short",
                ("sum by (consumer) (parlor_consumer_up)", "{{consumer}}"),
                (
                    "count by (consumer) (parlor_consumer_up == 0)",
                    "{{consumer}}: replicas that cannot fetch",
                ),
                description="Replicas whose durable consumer fetches; one that cannot is "
                "subscribing again (NATS away, or the consumer lost) and parlor.bus says why.",
            ),
            panel(
                "Messages handled",
                "ops",
                (
                    "sum by (consumer, outcome) (rate(parlor_consumer_handled_total[$__rate_interval]))",
                    "{{consumer}} {{outcome}}",
                ),
            ),
            panel(
                "Events set aside",
                "short",
                (
                    "sum by (consumer, reason) (increase(parlor_events_set_aside_total[$__range]))",
                    "{{consumer}} {{reason}}",
                ),
                (
                    "sum by (relay) (increase(parlor_relay_dead_letters_total[$__range]))",
                    "relay {{relay}}: dead letters",
                ),
                description="Messages consumers gave up on, and events relays set aside as dead letters.",
            ),
        ],
    ),
    (
        "Matchmaking and the dictionary",
        [
            panel(
                "Matchmaking wait",
                "s",
                (
                    "histogram_quantile(0.5, sum by (le, game_type) (rate(parlor_matchmaking_wait_seconds_bucket[$__rate_interval])))",
                    "{{game_type}} p50",
                ),
                (
                    "histogram_quantile(0.95, sum by (le, game_type) (rate(parlor_matchmaking_wait_seconds_bucket[$__rate_interval])))",
                    "{{game_type}} p95",
                ),
            ),
            panel(
                "Dictionary latency (as the word games see it)",
                "s",
                (
                    f"histogram_quantile(0.99, sum by (le, grpc_method) (rate(grpc_client_handling_seconds_bucket{{{DICTIONARY}}}[$__rate_interval])))",
                    "{{grpc_method}} p99",
                ),
            ),
            panel(
                "Dictionary calls",
                "reqps",
                (
                    f"sum by (grpc_method, grpc_code) (rate(grpc_client_handled_total{{{DICTIONARY}}}[$__rate_interval]))",
                    "{{grpc_method}} {{grpc_code}}",
                ),
            ),
        ],
    ),
]


def dashboard() -> dict[str, Any]:
    panels: list[dict[str, Any]] = []
    y = 0
    for title, row in ROWS:
        panels.append(
            {"type": "row", "title": title, "collapsed": False, "gridPos": {"x": 0, "y": y, "w": 24, "h": 1}, "panels": []}
        )
        y += 1
        for i, item in enumerate(row):
            item["gridPos"] = {"x": (i % 3) * WIDTH, "y": y + (i // 3) * HEIGHT, "w": WIDTH, "h": HEIGHT}
        panels.extend(row)
        y += ((len(row) + 2) // 3) * HEIGHT
    for number, item in enumerate(panels, start=1):
        item["id"] = number
    return {
        "uid": "parlor-platform",
        "title": "Parlor platform",
        "description": "RPCs, games, the relay and consumers, matchmaking and the dictionary.",
        "tags": ["parlor"],
        "timezone": "utc",
        "schemaVersion": 39,
        "version": 1,
        "editable": True,
        "refresh": "30s",
        "time": {"from": "now-6h", "to": "now"},
        "templating": {
            "list": [
                {
                    "name": "datasource",
                    "label": "Prometheus",
                    "type": "datasource",
                    "query": "prometheus",
                    "current": {},
                }
            ]
        },
        "annotations": {"list": []},
        "panels": panels,
    }


def render() -> str:
    return json.dumps(dashboard(), indent=2) + "\n"


if __name__ == "__main__":
    (Path(__file__).parent / "dashboard.json").write_text(render())
