"""`parlor play` seats you under the name in your token when you give no --name."""

from __future__ import annotations

from parlor.cli.session import Session
from parlor.kit.auth import AuthSettings, generate_private_key, issue_token

AUTH = AuthSettings(private_key=generate_private_key())


def test_the_session_reads_the_tokens_name_and_subject() -> None:
    where = Session("localhost:1", issue_token(AUTH, "guest-1", "Ada"))
    assert where.player_id == "guest-1"
    assert where.name == "Ada"
