"""``parlor tournament``: create, list, join, withdraw, watch and export tournaments
(docs/tournaments.md). Creating, entering and leaving call as your account (`parlor login`,
or --token); listing, watching and exporting are open to a guest too."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from parlor.cli.session import Session

tournament = typer.Typer(help="Tournaments: create, list, join, withdraw, watch, export.")

Target = Annotated[
    str | None,
    typer.Option("--target", help="host:port of the platform (env PARLOR_TARGET)"),
]
Token = Annotated[
    str | None,
    typer.Option("--token", help="your token (env PARLOR_TOKEN; else `parlor login`)"),
]
Id = Annotated[str, typer.Argument(help="the tournament's id")]


def _session(target: str | None, token: str | None) -> Session:
    from parlor.cli import session as sessions
    from parlor.cli.main import fail
    from parlor.client import DEFAULT_TARGET  # gRPC is loaded when a command runs, not for help
    from parlor.kit.settings import SettingsError

    where = target or os.environ.get("PARLOR_TARGET") or DEFAULT_TARGET
    try:
        who = token or os.environ.get("PARLOR_TOKEN") or sessions.account_token(where)
    except SettingsError as exc:
        raise fail(str(exc)) from None
    if not who:
        raise fail("tournaments are played by accounts: `parlor login` first (or --token)")
    return sessions.Session(where, who)


def _viewer(target: str | None, token: str | None) -> Session:
    """Who reads: the account when one is signed in (or --token), else a new guest; the
    platform lists, shows and exports open tournaments to anyone signed in at all."""
    from parlor.cli import session as sessions
    from parlor.cli.main import fail
    from parlor.kit.settings import SettingsError

    try:
        return sessions.session(target, token)
    except SettingsError as exc:
        raise fail(str(exc)) from None


def _call(session: Session, name: str, request: Any, idempotent: bool = False) -> Any:
    from parlor.cli.main import run
    from parlor.client import ParlorClient
    from parlor.tournaments.v1 import tournaments_pb2_grpc  # generated: loaded when run

    async def calls() -> Any:
        async with ParlorClient(session.target, session.token) as parlor:
            stub = tournaments_pb2_grpc.TournamentServiceStub(parlor.channel)
            return await parlor.call(getattr(stub, name), request, idempotent=idempotent)

    return run(calls())


def _pb() -> Any:
    from parlor.tournaments.v1 import tournaments_pb2

    return tournaments_pb2


@tournament.command()
def create(
    game: Annotated[str, typer.Argument(help="connect4x4, takefour, upwords...")],
    name: Annotated[str, typer.Option("--name", "-n")] = "",
    arena: Annotated[int, typer.Option("--arena", help="an arena of this many minutes")] = 0,
    rounds: Annotated[int, typer.Option("--rounds", help="a Swiss of this many rounds")] = 0,
    players: Annotated[int, typer.Option("--players", help="the most entrants")] = 64,
    table: Annotated[int, typer.Option("--table", help="seats per table")] = 2,
    berserk: Annotated[bool, typer.Option("--berserk", help="arena: allow berserk")] = False,
    invite: Annotated[bool, typer.Option("--invite", help="by invitation code only")] = False,
    rated: Annotated[bool, typer.Option("--rated")] = False,
    target: Target = None,
    token: Token = None,
) -> None:
    """Create an arena (--arena MINUTES) or a Swiss (--rounds N); prints its id (and its
    invitation code, shown this once)."""
    from parlor.cli.main import fail

    pb = _pb()
    if bool(arena) == bool(rounds):
        raise fail("choose --arena MINUTES or --rounds N")
    settings = pb.Settings(
        name=name,
        format=pb.FORMAT_ARENA if arena else pb.FORMAT_SWISS,
        game_type=game,
        table_size=table,
        max_players=players,
        rounds=rounds,
        duration_seconds=arena * 60,
        berserk=berserk,
        rated=rated,
        access=pb.ACCESS_INVITE if invite else pb.ACCESS_OPEN,
    )
    made = _call(
        _session(target, token),
        "CreateTournament",
        pb.CreateTournamentRequest(settings=settings),
    )
    typer.echo(f"tournament: {made.tournament.tournament_id}")
    if made.invite_code:
        typer.echo(f"invite code: {made.invite_code}")


@tournament.command("list")
def list_(
    status: Annotated[
        str, typer.Option("--status", help="upcoming, running, finished (default: all)")
    ] = "",
    target: Target = None,
    token: Token = None,
) -> None:
    """Open tournaments, newest first."""
    pb = _pb()
    chosen = getattr(pb, f"STATUS_{status.upper()}", pb.STATUS_UNSPECIFIED) if status else 0
    listed = _call(
        _viewer(target, token),
        "ListTournaments",
        pb.ListTournamentsRequest(status=chosen, page_size=100),
        idempotent=True,
    )
    for t in listed.tournaments:
        typer.echo(
            f"{t.tournament_id}  {pb.Status.Name(t.status).removeprefix('STATUS_').lower():<8}"
            f" {t.game_type:<10} {t.entrants:>4}/{t.max_players:<4} {t.name}"
        )


@tournament.command()
def join(
    tournament_id: Id,
    code: Annotated[str, typer.Option("--code", help="an invitation code")] = "",
    bot: Annotated[str, typer.Option("--bot", help="the organiser enters a bot: its level")] = "",
    target: Target = None,
    token: Token = None,
) -> None:
    """Enter the tournament (or, as its organiser, one of Parlor's bots)."""
    pb = _pb()
    joined = _call(
        _session(target, token),
        "JoinTournament",
        pb.JoinTournamentRequest(tournament_id=tournament_id, invite_code=code, bot_level=bot),
    )
    typer.echo(f"entered: {joined.player_id}")


@tournament.command()
def withdraw(tournament_id: Id, target: Target = None, token: Token = None) -> None:
    """Leave the tournament for good."""
    pb = _pb()
    request = pb.WithdrawFromTournamentRequest(tournament_id=tournament_id)
    _call(_session(target, token), "WithdrawFromTournament", request)
    typer.echo("withdrawn")


@tournament.command()
def start(tournament_id: Id, target: Target = None, token: Token = None) -> None:
    """Start it (its organiser)."""
    pb = _pb()
    request = pb.StartTournamentRequest(tournament_id=tournament_id)
    _call(_session(target, token), "StartTournament", request)
    typer.echo("started")


@tournament.command()
def export(
    tournament_id: Id,
    format: Annotated[str, typer.Option("--format", help="text or json")] = "text",
    target: Target = None,
    token: Token = None,
) -> None:
    """Standings and every round's pairings and results."""
    pb = _pb()
    kind = pb.EXPORT_FORMAT_JSON if format == "json" else pb.EXPORT_FORMAT_TEXT
    exported = _call(
        _viewer(target, token),
        "ExportTournament",
        pb.ExportTournamentRequest(tournament_id=tournament_id, format=kind),
        idempotent=True,
    )
    typer.echo(exported.content, nl=False)


@tournament.command()
def watch(tournament_id: Id, target: Target = None, token: Token = None) -> None:
    """The standings, then each change as it happens, until the tournament finishes."""
    from parlor.cli.main import run
    from parlor.client import ParlorClient
    from parlor.tournaments.v1 import tournaments_pb2_grpc

    pb = _pb()
    session = _viewer(target, token)

    def table(standings: Any) -> None:
        for s in standings:
            typer.echo(f"{s.rank:>4}  {s.player_id:<40} {s.points:>6} {s.games:>5}")

    async def watching() -> None:
        async with ParlorClient(session.target, session.token) as parlor:
            stub = tournaments_pb2_grpc.TournamentServiceStub(parlor.channel)
            call = stub.WatchTournament(pb.WatchTournamentRequest(tournament_id=tournament_id))
            async for message in call:
                if message.HasField("current"):
                    table(message.current.standings)
                    if message.current.status == pb.STATUS_FINISHED:
                        return
                for change in message.changes:
                    kind = pb.ChangeKind.Name(change.kind).removeprefix("CHANGE_KIND_").lower()
                    typer.echo(f"[{change.position}] {kind} {change.player_id or change.game_id}")
                    if change.kind == pb.CHANGE_KIND_FINISHED:
                        table(message.standings)
                        return
                if message.standings:
                    table(message.standings)

    run(watching())
