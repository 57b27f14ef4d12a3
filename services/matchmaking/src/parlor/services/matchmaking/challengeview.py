"""A challenge as the API shows it (``parlor.challenges.v1.Challenge``) and the enums'
mapping to the decider's words."""

from __future__ import annotations

from datetime import UTC, datetime

from google.protobuf.timestamp_pb2 import Timestamp

from parlor.challenges.v1 import challenges_pb2 as pb
from parlor.common.v1 import common_pb2
from parlor.gametypes.seats import shown_as_bot
from parlor.services.matchmaking.challenge import (
    CANCELLED,
    DECLINED,
    EXPIRED,
    FIRST,
    FIXED,
    LAPSED,
    MATCHED,
    PENDING,
    RANDOM,
    SECOND,
    Challenge,
)
from parlor.services.matchmaking.challengeconfig import config_bytes
from parlor.services.matchmaking.games import time_control_from_json

SEAT_CHOICE = {
    pb.SEAT_CHOICE_UNSPECIFIED: RANDOM,
    pb.SEAT_CHOICE_RANDOM: RANDOM,
    pb.SEAT_CHOICE_FIRST: FIRST,
    pb.SEAT_CHOICE_SECOND: SECOND,
}
SEAT_CHOICE_PB = {RANDOM: pb.SEAT_CHOICE_RANDOM, FIRST: pb.SEAT_CHOICE_FIRST}
SEAT_CHOICE_PB |= {SECOND: pb.SEAT_CHOICE_SECOND, FIXED: pb.SEAT_CHOICE_ROTATED}
STATUS = {
    PENDING: pb.CHALLENGE_STATUS_PENDING,
    MATCHED: pb.CHALLENGE_STATUS_MATCHED,
    DECLINED: pb.CHALLENGE_STATUS_DECLINED,
    CANCELLED: pb.CHALLENGE_STATUS_CANCELLED,
    EXPIRED: pb.CHALLENGE_STATUS_EXPIRED,
    LAPSED: pb.CHALLENGE_STATUS_LAPSED,
}
DECLINE = {
    pb.DECLINE_REASON_UNSPECIFIED: "generic",
    pb.DECLINE_REASON_TOO_FAST: "too_fast",
    pb.DECLINE_REASON_TOO_SLOW: "too_slow",
    pb.DECLINE_REASON_NOT_NOW: "not_now",
    pb.DECLINE_REASON_NOT_THIS_GAME: "not_this_game",
}
DECLINE_PB = {v: k for k, v in DECLINE.items()}


def timestamp(seconds: float) -> Timestamp:
    """Seconds since the epoch as a protobuf timestamp."""
    out = Timestamp()
    out.FromDatetime(datetime.fromtimestamp(seconds, UTC))
    return out


def challenge_pb(state: Challenge) -> pb.Challenge:
    issued = state.issued
    assert issued is not None
    return pb.Challenge(
        challenge_id=issued.challenge_id,
        challenger_id=issued.challenger,
        challenger_name=issued.challenger_name,
        game_type=issued.game_type,
        invitee_ids=issued.invitees,
        open_seats=issued.open_seats,
        bots=issued.bots,
        time_control=time_control_from_json(issued.time_control, issued.game_type).to_proto(),
        seat_choice=SEAT_CHOICE_PB[issued.seat_choice],
        rated=issued.rated,
        status=STATUS[state.status],
        created_at=timestamp(issued.created_at),
        expires_at=timestamp(issued.expires_at),
        accepted_ids=[issued.challenger, *(p for p, _ in state.accepted)],
        declined_by=state.declined_by,
        decline_reason=DECLINE_PB.get(state.decline_reason, pb.DECLINE_REASON_UNSPECIFIED),
        match_id=state.match_id,
        seats=[
            common_pb2.Seat(index=i, player_id=p, display_name=n, bot=shown_as_bot(p))
            for i, (p, n) in enumerate(state.seats)
        ],
        rematch_of=issued.rematch_of,
        config=config_bytes(issued.config),
    )
