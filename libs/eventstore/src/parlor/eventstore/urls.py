"""Database URLs: settings give plain ``postgresql://``; SQLAlchemy and psycopg want their own."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

_SCHEMES = (
    "postgresql",
    "postgres",
    "postgresql+psycopg",
    "postgresql+psycopg2",
    "postgresql+asyncpg",
)


def sqlalchemy_url(url: str) -> str:
    """``postgresql://...`` -> ``postgresql+psycopg://...`` (psycopg 3, async capable)."""
    return _with_scheme(url, "postgresql+psycopg")


def libpq_url(url: str) -> str:
    """``postgresql+psycopg://...`` -> ``postgresql://...`` for raw psycopg connections."""
    return _with_scheme(url, "postgresql")


def _with_scheme(url: str, scheme: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in _SCHEMES:
        raise ValueError(f"not a PostgreSQL URL: {parts.scheme}://...")
    return urlunsplit((scheme, parts.netloc, parts.path, parts.query, parts.fragment))
