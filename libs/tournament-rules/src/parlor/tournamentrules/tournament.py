"""A tournament as a decider: ``TOURNAMENTS: Decider[Tournament, Command, TournamentEvent]``.

``decide`` refuses with the project's errors and a reason from ``reasons``; ``evolve``
folds the facts. Pairing is ``pairing.propose`` (from the state and the command's seed),
scoring ``scoring.score``; what the driver must do next is ``queries.due``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from parlor.core.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
)
from parlor.tournamentrules import reasons
from parlor.tournamentrules.commands import (
    Berserk,
    Command,
    Create,
    Join,
    Pair,
    Pause,
    RecordResult,
    Rejoin,
    Remove,
    Start,
    Withdraw,
)
from parlor.tournamentrules.events import (
    GameScored,
    PlayerBerserked,
    PlayerJoined,
    PlayerPaused,
    PlayerRejoined,
    PlayerRemoved,
    PlayerWithdrew,
    TablesPaired,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
    TournamentStarted,
)
from parlor.tournamentrules.pairing import propose
from parlor.tournamentrules.queries import due
from parlor.tournamentrules.scoring import score
from parlor.tournamentrules.settings import INVITE, resolved
from parlor.tournamentrules.state import (
    ACTIVE,
    FINISHED,
    NEW,
    OPEN,
    PAUSED,
    REMOVED,
    RUNNING,
    WITHDRAWN,
    Entrant,
    Game,
    Round,
    Tournament,
)

MAX_REASON = 200
"""The longest reason a removal may give."""


class TournamentDecider:
    def initial_state(self) -> Tournament:
        return Tournament()

    def is_terminal(self, state: Tournament) -> bool:
        return state.phase == FINISHED

    # -- decide --------------------------------------------------------------------------

    def decide(self, state: Tournament, command: Command) -> Sequence[TournamentEvent]:
        if isinstance(command, Create):
            if state.phase != NEW:
                raise AlreadyExists(
                    "this tournament exists already", reason=reasons.TOURNAMENT_EXISTS
                )
            return [TournamentCreated(resolved(command.settings), command.organiser, command.at_ms)]
        if state.phase == NEW:
            raise NotFound("no such tournament", reason=reasons.TOURNAMENT_NOT_FOUND)
        if state.phase == FINISHED:
            raise FailedPrecondition("this tournament is over", reason=reasons.ALREADY_FINISHED)
        if isinstance(command, Join):
            return [self._join(state, command)]
        if isinstance(command, Withdraw):
            _entrant(state, command.player)
            return [PlayerWithdrew(command.player, command.at_ms)]
        if isinstance(command, Remove):
            return [self._remove(state, command)]
        if isinstance(command, Pause):
            entrant = _entrant(state, command.player)
            _running(state)
            if entrant.status == PAUSED:
                raise FailedPrecondition("already paused", reason=reasons.ALREADY_PAUSED)
            return [PlayerPaused(command.player, command.at_ms)]
        if isinstance(command, Rejoin):
            entrant = _entrant(state, command.player)
            if entrant.status != PAUSED:
                raise FailedPrecondition("not paused", reason=reasons.NOT_PAUSED)
            return [PlayerRejoined(command.player, command.at_ms)]
        if isinstance(command, Start):
            return [self._start(state, command)]
        if isinstance(command, Pair):
            return [self._pair(state, command)]
        if isinstance(command, Berserk):
            return [self._berserk(state, command)]
        if isinstance(command, RecordResult):
            return [self._record(state, command)]
        if due(state, command.at_ms) != "finish":
            raise FailedPrecondition(
                "the tournament cannot finish yet: rounds or games are left",
                reason=reasons.NOT_DUE,
            )
        return [TournamentFinished(command.at_ms)]

    def _join(self, state: Tournament, command: Join) -> PlayerJoined:
        settings = state.rules
        known = state.entrants.get(command.player)
        if known is not None:
            if known.status == REMOVED:
                raise PermissionDenied(
                    "you were removed from this tournament", reason=reasons.PLAYER_REMOVED
                )
            if known.status == WITHDRAWN:
                raise FailedPrecondition(
                    "you withdrew from this tournament", reason=reasons.ALREADY_WITHDRAWN
                )
            raise AlreadyExists("already registered", reason=reasons.ALREADY_REGISTERED)
        if settings.access == INVITE and not command.admitted:
            raise PermissionDenied(
                "this tournament admits by invitation only", reason=reasons.NOT_INVITED
            )
        if state.phase == RUNNING:
            if settings.is_swiss and len(state.rounds) >= settings.late_entry_until_round:
                raise FailedPrecondition(
                    f"entries closed when round {settings.late_entry_until_round} was paired",
                    reason=reasons.REGISTRATION_CLOSED,
                )
            if settings.is_arena and command.at_ms >= state.arena_ends_at_ms:
                raise FailedPrecondition(
                    "this arena's time is up", reason=reasons.REGISTRATION_CLOSED
                )
        if len(state.playing()) >= settings.max_players:
            raise FailedPrecondition(
                f"this tournament takes {settings.max_players} players",
                reason=reasons.TOURNAMENT_FULL,
            )
        return PlayerJoined(command.player, command.is_bot, command.at_ms)

    def _remove(self, state: Tournament, command: Remove) -> PlayerRemoved:
        if command.by != state.organiser and not command.by_operator:
            raise PermissionDenied(
                "only the organiser or an operator removes a player",
                reason=reasons.NOT_ORGANISER,
            )
        entrant = state.entrants.get(command.player)
        if entrant is None or entrant.status == REMOVED:
            raise FailedPrecondition("no such entrant", reason=reasons.NOT_REGISTERED)
        text = command.reason.strip()
        if len(text) > MAX_REASON:
            raise InvalidArgument(
                f"a reason holds at most {MAX_REASON} characters", reason=reasons.BAD_REASON
            )
        return PlayerRemoved(command.player, command.by, text, command.by_operator, command.at_ms)

    def _start(self, state: Tournament, command: Start) -> TournamentStarted:
        if command.by != state.organiser and not command.by_operator:
            raise PermissionDenied(
                "only the organiser or an operator starts it", reason=reasons.NOT_ORGANISER
            )
        if state.phase != OPEN:
            raise FailedPrecondition("it has started already", reason=reasons.ALREADY_STARTED)
        settings = state.rules
        least = settings.table_size if settings.is_arena else 2
        if len(state.playing()) < least:
            raise FailedPrecondition(
                f"a start needs at least {least} entrants", reason=reasons.NOT_ENOUGH_PLAYERS
            )
        return TournamentStarted(command.by, command.at_ms)

    def _pair(self, state: Tournament, command: Pair) -> TablesPaired:
        _running(state)
        proposal = propose(state, command.at_ms, command.seed)
        if proposal is None:
            raise FailedPrecondition("no pairing is due now", reason=reasons.NOTHING_TO_PAIR)
        tables, byes = proposal
        ids = command.game_ids[: len(tables)]
        if len(ids) < len(tables):
            raise InvalidArgument(
                f"this pairing needs {len(tables)} game ids",
                reason=reasons.NOT_ENOUGH_GAME_IDS,
                metadata={"needed": str(len(tables))},
            )
        if len(set(ids)) != len(ids) or any(not i or i in state.games for i in ids):
            raise InvalidArgument("each table needs a fresh game id", reason=reasons.GAME_ID_REUSED)
        return TablesPaired(
            len(state.rounds) + 1,
            tuple(zip(ids, tables, strict=True)),
            byes,
            command.seed,
            command.at_ms,
        )

    def _berserk(self, state: Tournament, command: Berserk) -> PlayerBerserked:
        settings = state.rules
        if not (settings.is_arena and settings.berserk):
            raise FailedPrecondition(
                "berserk is not allowed in this tournament", reason=reasons.BERSERK_NOT_ALLOWED
            )
        game = _game(state, command.game_id)
        if command.player not in game.seats:
            raise PermissionDenied("you do not sit at that game", reason=reasons.NOT_AT_TABLE)
        if game.scored:
            raise FailedPrecondition("that game is over", reason=reasons.BERSERK_NOT_ALLOWED)
        if command.player in game.berserk:
            raise FailedPrecondition("berserk already", reason=reasons.ALREADY_BERSERK)
        return PlayerBerserked(command.player, command.game_id, command.at_ms)

    def _record(self, state: Tournament, command: RecordResult) -> GameScored:
        game = _game(state, command.game_id)
        if game.scored:
            raise AlreadyExists(
                "that game's result is recorded already",
                reason=reasons.RESULT_ALREADY_RECORDED,
            )
        places = dict(command.places)
        if (
            len(places) != len(command.places)
            or set(places) != set(game.seats)
            or any(not 1 <= p <= len(game.seats) for p in places.values())
            or min(places.values()) != 1
            or command.moves < 0
        ):
            raise InvalidArgument(
                "a result gives every seat of the game a place from 1 (the winner)",
                reason=reasons.BAD_RESULT,
            )
        scores = score(state, game, places, command.moves)
        return GameScored(game.game_id, game.round, scores, command.moves, command.at_ms)

    # -- evolve --------------------------------------------------------------------------

    def evolve(self, state: Tournament, event: TournamentEvent) -> Tournament:
        match event:
            case TournamentCreated():
                return dataclasses.replace(
                    state,
                    settings=event.settings,
                    organiser=event.organiser,
                    phase=OPEN,
                    created_at_ms=event.at_ms,
                )
            case PlayerJoined():
                entrant = Entrant(event.player, event.is_bot, event.at_ms, len(state.rounds))
                return dataclasses.replace(
                    state,
                    entrants={**state.entrants, event.player: entrant},
                    points={**state.points, event.player: 0},
                    streak={**state.streak, event.player: 0},
                )
            case PlayerWithdrew() if state.phase == OPEN:
                entrants = {p: e for p, e in state.entrants.items() if p != event.player}
                return dataclasses.replace(state, entrants=entrants)
            case PlayerWithdrew():
                return _status(state, event.player, WITHDRAWN)
            case PlayerRemoved():
                return _status(state, event.player, REMOVED)
            case PlayerPaused():
                return _status(state, event.player, PAUSED)
            case PlayerRejoined():
                return _status(state, event.player, ACTIVE)
            case TournamentStarted():
                return dataclasses.replace(state, phase=RUNNING, started_at_ms=event.at_ms)
            case TablesPaired():
                return _paired(state, event)
            case PlayerBerserked():
                game = state.games[event.game_id]
                berserk = dataclasses.replace(game, berserk=game.berserk | {event.player})
                return dataclasses.replace(state, games={**state.games, game.game_id: berserk})
            case GameScored():
                return _scored(state, event)
            case TournamentFinished():
                return dataclasses.replace(state, phase=FINISHED, finished_at_ms=event.at_ms)
        return state


TOURNAMENTS = TournamentDecider()


def _entrant(state: Tournament, player: str) -> Entrant:
    entrant = state.entrants.get(player)
    if entrant is None or not entrant.playing:
        raise FailedPrecondition("not an entrant of this tournament", reason=reasons.NOT_REGISTERED)
    return entrant


def _running(state: Tournament) -> None:
    if state.phase != RUNNING:
        raise FailedPrecondition("the tournament has not started", reason=reasons.NOT_STARTED)


def _game(state: Tournament, game_id: str) -> Game:
    game = state.games.get(game_id)
    if game is None:
        raise NotFound("no such game in this tournament", reason=reasons.GAME_NOT_IN_TOURNAMENT)
    return game


def _status(state: Tournament, player: str, status: str) -> Tournament:
    entrant = dataclasses.replace(state.entrants[player], status=status)
    return dataclasses.replace(state, entrants={**state.entrants, player: entrant})


def _paired(state: Tournament, event: TablesPaired) -> Tournament:
    games = dict(state.games)
    in_play = dict(state.in_play)
    player_games = dict(state.player_games)
    for game_id, seats in event.tables:
        games[game_id] = Game(game_id, event.round, seats, event.at_ms)
        for player in seats:
            in_play[player] = game_id
            player_games[player] = (*player_games.get(player, ()), game_id)
    points = dict(state.points)
    for player, bye in event.byes:
        points[player] = points.get(player, 0) + bye
    number = Round(event.round, event.tables, event.byes, event.seed, event.at_ms)
    return dataclasses.replace(
        state,
        rounds=(*state.rounds, number),
        games=games,
        in_play=in_play,
        player_games=player_games,
        points=points,
    )


def _scored(state: Tournament, event: GameScored) -> Tournament:
    game = dataclasses.replace(
        state.games[event.game_id],
        scores=event.scores,
        moves=event.moves,
        scored_at_ms=event.at_ms,
    )
    points = dict(state.points)
    streak = dict(state.streak)
    in_play = dict(state.in_play)
    firsts = sum(1 for _, place, *_ in event.scores if place == 1)
    for player, place, gained, _, _ in event.scores:
        points[player] = points.get(player, 0) + gained
        streak[player] = streak.get(player, 0) + 1 if place == 1 and firsts == 1 else 0
        if in_play.get(player) == event.game_id:
            del in_play[player]
    return dataclasses.replace(
        state,
        games={**state.games, event.game_id: game},
        points=points,
        streak=streak,
        in_play=in_play,
    )
