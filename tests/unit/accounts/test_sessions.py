"""Sign-ins are completed once before they expire; a session's rotated tokens never come back."""

from __future__ import annotations

from parlor.accounts import (
    SESSION_EVENT_TYPES,
    Session,
    SessionRevoked,
    SessionRotated,
    SessionStarted,
    SignIn,
    SignInBegun,
    SignInUsed,
    decode,
    encode,
    evolve_session,
    evolve_sign_in,
    session_verdict,
    sign_in_verdict,
)


def test_a_sign_in_is_completed_once_before_it_expires() -> None:
    assert sign_in_verdict(SignIn(), 0) == "unknown"
    begun = evolve_sign_in(SignIn(), SignInBegun("idp", "https://x/cb", "n", "v", 100))
    assert sign_in_verdict(begun, 99) == "ok"
    assert sign_in_verdict(begun, 100) == "expired"
    assert sign_in_verdict(evolve_sign_in(begun, SignInUsed(50)), 60) == "used"


def test_a_session_takes_only_its_current_token() -> None:
    session = evolve_session(Session(), SessionStarted("acct-1", "h1", 0, 100))
    assert session_verdict(Session(), "h1", 0) == "unknown"
    assert session_verdict(session, "h1", 10) == "ok"
    assert session_verdict(session, "other", 10) == "unknown"
    assert session_verdict(session, "h1", 100) == "expired"
    rotated = evolve_session(session, SessionRotated("h2", 10, 200))
    assert session_verdict(rotated, "h2", 150) == "ok"
    assert session_verdict(rotated, "h1", 20) == "reused"
    revoked = evolve_session(rotated, SessionRevoked(30, "token_reused"))
    assert session_verdict(revoked, "h2", 40) == "revoked"
    assert revoked.player_id == "acct-1"


def test_a_session_remembers_its_client_and_when_it_was_last_used() -> None:
    session = evolve_session(Session(), SessionStarted("acct-1", "h1", 5, 100, "Firefox"))
    assert (session.started_at, session.last_used_at, session.client) == (5, 5, "Firefox")
    rotated = evolve_session(session, SessionRotated("h2", 40, 200))
    assert (rotated.started_at, rotated.last_used_at, rotated.expires_at) == (5, 40, 200)
    # sessions stored before clients were recorded read as having said nothing
    old = decode(
        SESSION_EVENT_TYPES,
        "SessionStarted",
        b'{"player_id":"acct-1","token_hash":"h","started_at":1,"expires_at":2}',
    )
    assert old == SessionStarted("acct-1", "h", 1, 2, "")
    assert decode(SESSION_EVENT_TYPES, *encode(rotated_event := SessionRotated("h", 1, 2))) == (
        rotated_event
    )
