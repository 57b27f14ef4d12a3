"""A game's privacy as its metadata records it, and what of it may leave the store."""

from __future__ import annotations

import datetime as dt

from parlor.admission.privacy import INVITE, Privacy
from parlor.eventstore import RecordedEvent
from parlor.eventstore.bus import event_headers
from parlor.eventstore.events import Metadata
from parlor.kit.auth import SERVICE_ROLE, Identity
from parlor.runtime.outbox import category_lane


def recorded(extra: dict[str, str]) -> RecordedEvent:
    return RecordedEvent(
        "connect4x4-g1",
        1,
        7,
        "t",
        b"x",
        1,
        Metadata(actor="ada", extra=extra),
        dt.datetime.now(dt.UTC),
    )


def test_a_private_games_invite_never_reaches_the_bus() -> None:
    privacy = Privacy.chosen(private=True, findable=["ada"])
    event = recorded({"consent": "creator", **privacy.extra()})
    published = category_lane("connect4x4").redact(event)
    assert published is not None
    headers = event_headers(published)
    assert privacy.invite not in str(headers)
    assert INVITE not in published.metadata.extra
    assert Privacy.of(published.metadata.extra).private  # the rest of the record travels
    assert event.metadata.extra[INVITE] == privacy.invite  # the stored event is untouched
    public = recorded({"consent": "creator"})
    assert category_lane("connect4x4").redact(public) is public


def test_who_may_read_a_private_game() -> None:
    privacy = Privacy.chosen(private=True)
    again = Privacy.of(privacy.extra())
    assert again == privacy
    assert len(privacy.invite) >= 40
    assert Privacy.chosen(private=True).invite != privacy.invite
    seats = ("ada", "bot:random")
    assert again.admits(Identity("ada"), seats)
    assert again.admits(Identity("service:x", roles=(SERVICE_ROLE,)), seats)
    assert again.admits(Identity("bob"), seats, privacy.invite)
    for wrong in ("", privacy.invite[:-1], privacy.invite + "x", "é"):
        assert not again.admits(Identity("bob"), seats, wrong)
    assert Privacy().admits(Identity("bob"), seats)  # public
    assert Privacy.of({"findable": "not json"}).findable == ()
