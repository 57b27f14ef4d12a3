"""Group commit: the appends of concurrent writers in one process share one transaction.

Appends are serialised by the append lock, so each transaction pays its WAL
flush alone. While one batch is in the database, new appends queue up; the next
batch takes them all in one call to ``parlor_append``, which still checks each
append on its own (expected version, command id) and returns one outcome each.
A lone writer waits for nobody: its append goes at once, from its own task.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from parlor.eventstore.arrays import ByteaArray, Int4Array, Int8Array, JsonbArray, TextArray
from parlor.eventstore.events import NewEvent

# ``now()`` is the transaction's timestamp: the very ``recorded_at`` the function stored.
APPEND_SQL = (
    "SELECT r_request, r_outcome, r_first_version, r_last_version, r_first_position, "
    "r_last_position, now() FROM parlor_append(%(partition)s::smallint, "
    "%(stream_ids)s::text[], %(expected)s::bigint[], %(command_ids)s::text[], "
    "%(requests)s::integer[], %(offsets)s::integer[], %(types)s::text[], "
    "%(schema_versions)s::integer[], %(data)s::bytea[], %(actors)s::text[], "
    "%(causation_ids)s::text[], %(correlation_ids)s::text[], %(extras)s::jsonb[], "
    "%(fingerprints)s::text[])"
)

Outcome = tuple[str, Any, Any, Any, Any, Any]
"""(outcome, first_version, last_version, first_position, last_position, recorded_at)."""

Execute = Callable[[str, dict[str, Any]], Awaitable[list[tuple[Any, ...]]]]


@dataclass(frozen=True, slots=True)
class AppendRequest:
    stream_id: str
    expected_version: int
    command_id: str | None
    events: Sequence[NewEvent]
    fingerprint: str | None = None


def batch_params(requests: Sequence[AppendRequest], partition: int = 0) -> dict[str, Any]:
    """Flatten appends of one partition into the arrays ``parlor_append`` takes."""
    stream_ids: list[str] = []
    expected: list[int] = []
    command_ids: list[str | None] = []
    fingerprints: list[str | None] = []
    indexes: list[int] = []
    offsets: list[int] = []
    types: list[str] = []
    schema_versions: list[int] = []
    data: list[bytes] = []
    actors: list[str | None] = []
    causation_ids: list[str | None] = []
    correlation_ids: list[str | None] = []
    extras: list[str | None] = []
    for index, request in enumerate(requests, start=1):
        stream_ids.append(request.stream_id)
        expected.append(request.expected_version)
        command_ids.append(request.command_id)
        fingerprints.append(request.fingerprint if request.command_id is not None else None)
        for offset, event in enumerate(request.events, start=1):
            meta = event.metadata
            indexes.append(index)
            offsets.append(offset)
            types.append(event.type)
            schema_versions.append(event.schema_version)
            data.append(bytes(event.data))
            actors.append(meta.actor)
            causation_ids.append(meta.causation_id)
            correlation_ids.append(meta.correlation_id)
            extras.append(json.dumps(dict(meta.extra)) if meta.extra else None)
    return {
        "partition": partition,
        "stream_ids": TextArray(stream_ids),
        "expected": Int8Array(expected),
        "command_ids": _nullable(command_ids),
        "requests": Int4Array(indexes),
        "offsets": Int4Array(offsets),
        "types": TextArray(types),
        "schema_versions": Int4Array(schema_versions),
        "data": ByteaArray(data),
        "actors": _nullable(actors),
        "causation_ids": _nullable(causation_ids),
        "correlation_ids": _nullable(correlation_ids),
        "extras": _nullable(extras, JsonbArray),
        "fingerprints": _nullable(fingerprints),
    }


def _nullable(
    values: list[str | None], array: type[TextArray | JsonbArray] = TextArray
) -> TextArray | JsonbArray | None:
    """An all-NULL column travels as one NULL (unnest and subscripts give NULLs)."""
    return array(values) if any(v is not None for v in values) else None


def outcomes(rows: list[tuple[Any, ...]]) -> dict[int, Outcome]:
    return {row[0]: (row[1], row[2], row[3], row[4], row[5], row[6]) for row in rows}


class GroupCommit:
    """Queues appends and sends them to the database in batches, one batch at a time.

    One per partition of the global order: a batch takes its partition's lock, so the
    batches of different partitions go to the database side by side.
    """

    def __init__(self, execute: Execute, max_batch: int = 256, partition: int = 0) -> None:
        self._execute = execute
        self.partition = partition
        self._max_batch = max_batch
        self._pending: list[tuple[AppendRequest, asyncio.Future[Outcome]]] = []
        self._busy = False  # a call is in the database; new appends queue up
        self._drainer: asyncio.Task[None] | None = None

    async def submit(self, request: AppendRequest) -> Outcome:
        if self._busy:
            future: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
            self._pending.append((request, future))
            return await future
        # Nobody in the database: go at once, in the caller's own task.
        self._busy = True
        try:
            rows = await self._execute(APPEND_SQL, batch_params([request], self.partition))
            return outcomes(rows)[1]
        finally:
            self._hand_over()

    def _hand_over(self) -> None:
        """After a call: send what queued meanwhile as the next batch, or go idle."""
        if self._pending:
            self._drainer = asyncio.create_task(self._drain(), name="parlor-group-commit")
        else:
            self._busy = False

    async def _drain(self) -> None:
        try:
            while self._pending:
                batch = self._pending[: self._max_batch]
                del self._pending[: self._max_batch]
                await self._send(batch)
        finally:
            self._busy = False

    async def _send(self, batch: list[tuple[AppendRequest, asyncio.Future[Outcome]]]) -> None:
        try:
            rows = await self._execute(
                APPEND_SQL, batch_params([r for r, _ in batch], self.partition)
            )
        except asyncio.CancelledError:
            for _, future in batch:
                future.cancel()
            raise
        except Exception as exc:
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        found = outcomes(rows)
        for index, (_, future) in enumerate(batch, start=1):
            if not future.done():
                future.set_result(found[index])

    async def close(self) -> None:
        if self._drainer is not None and not self._drainer.done():
            await asyncio.wait({self._drainer})
