"""Scoring's tables as rows (to compare live scoring with a rebuild) and waiting on gRPC."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import psycopg

TABLES = {
    "scoring_games": "stream_id",
    "scoring_results": "stream_id, seat",
    "scoring_ratings": "game_type, player_id",
    "scoring_pairs": "game_type, player_a, player_b",
    "scoring_aliases": "guest_id",
}
"""Every table scoring writes, with the order its rows are compared in."""


def snapshot(database_url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of scoring's tables, in a fixed order (floats as stored: exact)."""
    with psycopg.connect(database_url) as conn:
        return {
            table: conn.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
            for table, order in TABLES.items()
        }


async def eventually(probe: Callable[[], Awaitable[Any]], seconds: float = 20.0) -> Any:
    """Ask ``probe`` until it returns something truthy (NOT_FOUND counts as not yet)."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        try:
            found = await probe()
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.NOT_FOUND:
                raise
            found = None
        if found:
            return found
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("gave up waiting")
        await asyncio.sleep(0.05)
