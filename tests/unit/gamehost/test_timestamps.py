"""``set_timestamp`` writes what protobuf's ``FromDatetime`` writes, for aware and naive times."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from google.protobuf.timestamp_pb2 import Timestamp
from hypothesis import given
from hypothesis import strategies as st

from parlor.gamehost.table.timestamps import set_timestamp

ZONES = st.sampled_from(
    [None, UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=8))]
)


@given(st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2200, 1, 1)), ZONES)
def test_the_same_seconds_and_nanos_as_from_datetime(at: datetime, zone: timezone | None) -> None:
    at = at if zone is None else at.replace(tzinfo=zone)
    expected, written = Timestamp(), Timestamp()
    expected.FromDatetime(at)
    set_timestamp(written, at)
    assert (written.seconds, written.nanos) == (expected.seconds, expected.nanos)
