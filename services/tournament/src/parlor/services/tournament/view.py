"""Between the wire and the rules: a request's settings for ``Create``, a state as a view."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from parlor.common.v1 import common_pb2
from parlor.core.errors import InvalidArgument
from parlor.gametypes.catalogue import CataloguedGame
from parlor.gametypes.timecontrol import TimeControl
from parlor.tournamentrules import (
    ARENA,
    INVITE,
    OPEN,
    SWISS,
    GameScored,
    PlayerBerserked,
    PlayerJoined,
    PlayerPaused,
    PlayerRejoined,
    PlayerRemoved,
    PlayerWithdrew,
    Settings,
    TablesPaired,
    TournamentCreated,
    TournamentFinished,
    TournamentStarted,
    standings,
)
from parlor.tournamentrules.scoring import STREAK
from parlor.tournamentrules.state import FINISHED, PAUSED, REMOVED, RUNNING, WITHDRAWN
from parlor.tournaments.v1 import tournaments_pb2 as pb

FORMATS = {pb.FORMAT_ARENA: ARENA, pb.FORMAT_SWISS: SWISS}
FORMAT_OF = {v: k for k, v in FORMATS.items()}
KINDS = {
    common_pb2.TimeControl.KIND_NONE: "none",
    common_pb2.TimeControl.KIND_PER_MOVE: "per_move",
    common_pb2.TimeControl.KIND_FISCHER: "fischer",
}


def _bad(field: str, message: str) -> InvalidArgument:
    return InvalidArgument(message, reason="BAD_SETTINGS", metadata={"field": field})


def settings_of(request: pb.Settings, types: Mapping[str, CataloguedGame]) -> Settings:
    """The rules' settings from a request's (the rules check them again in ``Create``)."""
    if request.format not in FORMATS:
        raise _bad("format", "choose FORMAT_ARENA or FORMAT_SWISS")
    if request.game_type not in types:
        raise InvalidArgument(
            f"unknown game type; one of {sorted(types)}", reason="UNKNOWN_GAME_TYPE"
        )
    game = types[request.game_type]
    control = request.time_control
    if control.kind == common_pb2.TimeControl.KIND_UNSPECIFIED:
        default: TimeControl = game.default_time_control
        control = default.to_proto()
    kind = KINDS.get(control.kind)
    if kind is None:
        raise _bad("time_control", "tournament games are timed per move, Fischer, or not")
    initial = control.initial_seconds if kind == "fischer" else control.move_seconds
    if kind == "none":
        initial = 1
    if initial == 0:
        raise _bad("time_control", "a clock starts with at least a second")
    fields: dict[str, Any] = {}
    if request.HasField("late_entry_until_round"):
        fields["late_entry_until_round"] = request.late_entry_until_round
    if request.HasField("bye_points"):
        fields["bye_points"] = request.bye_points
    if request.HasField("berserk_min_moves"):
        fields["berserk_min_moves"] = request.berserk_min_moves
    return Settings(
        format=FORMATS[request.format],
        game_type=request.game_type,
        max_players=request.max_players,
        table_size=request.table_size or 2,
        name=request.name,
        rounds=request.rounds,
        duration_ms=request.duration_seconds * 1000,
        berserk=request.berserk,
        points_by_place=tuple(request.points_by_place),
        clock_initial_ms=initial * 1000,
        clock_increment_ms=control.increment_seconds * 1000 if kind == "fischer" else 0,
        clock_kind=kind,
        rated=request.rated,
        access=INVITE if request.access == pb.ACCESS_INVITE else OPEN,
        **fields,
    )


def settings_pb(settings: Settings) -> pb.Settings:
    kind = {v: k for k, v in KINDS.items()}[settings.clock_kind]
    seconds = settings.clock_initial_ms // 1000
    control = common_pb2.TimeControl(kind=kind)
    if settings.clock_kind == "fischer":
        control.initial_seconds = seconds
        control.increment_seconds = settings.clock_increment_ms // 1000
    elif settings.clock_kind == "per_move":
        control.move_seconds = seconds
    out = pb.Settings(
        name=settings.name,
        format=FORMAT_OF[settings.format],
        game_type=settings.game_type,
        table_size=settings.table_size,
        max_players=settings.max_players,
        rounds=settings.rounds,
        duration_seconds=settings.duration_ms // 1000,
        berserk=settings.berserk,
        berserk_min_moves=settings.berserk_min_moves,
        points_by_place=list(settings.points_by_place),
        time_control=control,
        rated=settings.rated,
        access=pb.ACCESS_INVITE if settings.access == INVITE else pb.ACCESS_OPEN,
    )
    if settings.is_swiss:
        out.late_entry_until_round = settings.late_entry_until_round
        out.bye_points = settings.bye_points
    return out


def stamp(at_ms: int) -> Timestamp | None:
    if at_ms < 0:
        return None
    out = Timestamp()
    out.FromMilliseconds(at_ms)
    return out


def status_of(state: Any) -> pb.Status.ValueType:
    if state.phase == FINISHED:
        return pb.STATUS_FINISHED
    if state.phase == RUNNING:
        return pb.STATUS_RUNNING
    return pb.STATUS_UPCOMING


def standings_of(state: Any) -> list[pb.Standing]:
    """The rules' standings (``parlor.tournamentrules.standings``)."""
    return [
        pb.Standing(
            rank=s.rank,
            player_id=s.player,
            points=s.points,
            tie_breaks=[value for _, value in s.tie_breaks],
            tie_break_names=[name for name, _ in s.tie_breaks],
            games=s.games,
            is_bot=s.is_bot,
            withdrawn=s.withdrawn,
            on_streak=state.streak.get(s.player, 0) >= STREAK,
        )
        for s in standings(state)
    ]


def table_of(game: Any) -> pb.Table:
    places = {p: place for p, place, *_ in game.scores}
    return pb.Table(
        game_id=game.game_id,
        seats=list(game.seats),
        places=[places.get(p, 0) for p in game.seats] if game.scored else [],
        scored=game.scored,
    )


def round_of(state: Any, number: int, tables: Any, byes: Any) -> pb.Round:
    return pb.Round(
        number=number,
        tables=[table_of(state.games[game_id]) for game_id, _ in tables if game_id in state.games],
        byes=[player for player, _ in byes],
    )


def entrant_of(player: str, entrant: Any) -> pb.Entrant:
    return pb.Entrant(
        player_id=player,
        display_name=player,
        is_bot=entrant.is_bot,
        withdrawn=entrant.status == WITHDRAWN,
        paused=entrant.status == PAUSED,
        removed=entrant.status == REMOVED,
    )


def tournament_of(tournament_id: str, state: Any, version: int) -> pb.Tournament:
    settings = state.rules
    out = pb.Tournament(
        tournament_id=tournament_id,
        settings=settings_pb(settings),
        organiser=state.organiser,
        status=status_of(state),
        entrants=[entrant_of(p, e) for p, e in state.entrants.items()],
        standings=standings_of(state),
        rounds=[round_of(state, r.number, r.tables, r.byes) for r in state.rounds],
        version=version,
    )
    for name, at in (
        ("created_at", state.created_at_ms),
        ("started_at", state.started_at_ms),
        ("ends_at", state.arena_ends_at_ms),
        ("finished_at", state.finished_at_ms),
    ):
        when = stamp(at)
        if when is not None:
            getattr(out, name).CopyFrom(when)
    return out


def summary_of(tournament_id: str, state: Any) -> pb.TournamentSummary:
    settings = state.rules
    return pb.TournamentSummary(
        tournament_id=tournament_id,
        name=settings.name,
        format=FORMAT_OF[settings.format],
        game_type=settings.game_type,
        status=status_of(state),
        entrants=len(state.playing()),
        max_players=settings.max_players,
        created_at=stamp(state.created_at_ms),
    )


CHANGES: dict[type, pb.ChangeKind.ValueType] = {
    TournamentCreated: pb.CHANGE_KIND_CREATED,
    PlayerJoined: pb.CHANGE_KIND_JOINED,
    PlayerWithdrew: pb.CHANGE_KIND_WITHDREW,
    PlayerRemoved: pb.CHANGE_KIND_REMOVED,
    PlayerPaused: pb.CHANGE_KIND_PAUSED,
    PlayerRejoined: pb.CHANGE_KIND_REJOINED,
    TournamentStarted: pb.CHANGE_KIND_STARTED,
    TablesPaired: pb.CHANGE_KIND_PAIRED,
    PlayerBerserked: pb.CHANGE_KIND_BERSERKED,
    GameScored: pb.CHANGE_KIND_SCORED,
    TournamentFinished: pb.CHANGE_KIND_FINISHED,
}


def change_of(position: int, event: Any) -> pb.Change:
    out = pb.Change(
        position=position,
        kind=CHANGES.get(type(event), pb.CHANGE_KIND_UNSPECIFIED),
        at=stamp(event.at_ms),
        player_id=getattr(event, "player", ""),
        game_id=getattr(event, "game_id", ""),
        reason=getattr(event, "reason", ""),
    )
    if isinstance(event, TablesPaired):
        out.round.CopyFrom(
            pb.Round(
                number=event.round,
                tables=[pb.Table(game_id=g, seats=list(seats)) for g, seats in event.tables],
                byes=[player for player, _ in event.byes],
            )
        )
    elif isinstance(event, GameScored):
        out.round.CopyFrom(
            pb.Round(
                number=event.round,
                tables=[
                    pb.Table(
                        game_id=event.game_id,
                        seats=[s[0] for s in event.scores],
                        places=[s[1] for s in event.scores],
                        scored=True,
                    )
                ],
            )
        )
    return out
