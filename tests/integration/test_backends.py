import nats
import psycopg
import pytest

pytestmark = pytest.mark.integration


def test_each_session_has_its_own_scratch_database(database_url: str) -> None:
    with psycopg.connect(database_url) as conn:
        row = conn.execute("SELECT current_database()").fetchone()
    assert row is not None
    assert row[0].startswith("parlor_test_")


async def test_nats_has_jetstream(nats_url: str) -> None:
    nc = await nats.connect(nats_url)
    try:
        info = await nc.jetstream().account_info()
        assert info.limits is not None
    finally:
        await nc.close()
