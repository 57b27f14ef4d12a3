import nats
import psycopg
import pytest

pytestmark = pytest.mark.integration


def test_database_is_a_fresh_postgres(database_url: str) -> None:
    with psycopg.connect(database_url) as conn:
        row = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
    assert row == (0,)


async def test_nats_has_jetstream(nats_url: str) -> None:
    nc = await nats.connect(nats_url)
    try:
        info = await nc.jetstream().account_info()
        assert info.limits is not None
    finally:
        await nc.close()
