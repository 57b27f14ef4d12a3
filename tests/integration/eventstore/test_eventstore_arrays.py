"""The append's arrays, dumped by parlor.eventstore.arrays, are what PostgreSQL reads back."""

from __future__ import annotations

import json
from typing import Any

import psycopg
import pytest

from parlor.eventstore.arrays import ByteaArray, Int4Array, Int8Array, JsonbArray, TextArray

pytestmark = pytest.mark.integration

CASES: list[tuple[Any, str, list[Any]]] = [
    (TextArray, "text[]", ["a", "", "ünïcode ✓", None, "x" * 5000]),
    (TextArray, "text[]", []),
    (ByteaArray, "bytea[]", [b"", b"\x00\x01\xff", bytes(range(256))]),
    (Int4Array, "integer[]", [0, 1, -1, 2**31 - 1, -(2**31)]),
    (Int8Array, "bigint[]", [0, -1, 2**62, -(2**63)]),
    (JsonbArray, "jsonb[]", ['{"k": "v", "ü": "✓"}', None, "{}"]),
]


@pytest.mark.parametrize(("array", "sql_type", "values"), CASES)
async def test_each_array_reads_back_as_sent(
    database_url: str, array: Any, sql_type: str, values: list[Any]
) -> None:
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        for binary in (True, False):  # results either way; parameters always binary
            cursor = conn.cursor(binary=binary)
            await cursor.execute(f"SELECT %(v)s::{sql_type}", {"v": array(values)}, prepare=True)
            row = await cursor.fetchone()
            assert row is not None
            got = row[0]
            if sql_type == "jsonb[]":
                want = [None if v is None else json.loads(v) for v in values]
                assert got == want
            else:
                assert got == values
