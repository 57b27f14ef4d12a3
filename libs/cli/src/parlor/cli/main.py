"""``parlor``: start the platform, play in the terminal, watch, replay, export, verify, tokens."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import shutil
import sys
import threading
import time
import uuid
from collections.abc import Coroutine
from contextlib import aclosing
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console

from parlor.cli import bots, tournaments
from parlor.cli.clocks import clock_line
from parlor.cli.games import adapter, adapter_names, adapters


def lazy(name: str) -> ModuleType:
    """A module imported when first used, not when the CLI starts: ``parlor --help`` and
    ``parlor games`` need neither gRPC nor the signing keys (``importlib.util.LazyLoader``)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    assert spec is not None, name
    assert spec.loader is not None, name
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module


if TYPE_CHECKING:
    from parlor import client
    from parlor.cli import account as accounts
    from parlor.cli import chatting, turns
    from parlor.cli import login as logins
    from parlor.cli import session as sessions
    from parlor.cli.games import GameAdapter
    from parlor.kit import settings
else:
    accounts = lazy("parlor.cli.account")
    chatting = lazy("parlor.cli.chatting")
    sessions = lazy("parlor.cli.session")
    logins = lazy("parlor.cli.login")
    turns = lazy("parlor.cli.turns")
    client = lazy("parlor.client")
    settings = lazy("parlor.kit.settings")

LOGIN_PORT = 47512
"""``parlor.cli.login.DEFAULT_PORT``, written here so that help does not load the login module
(and gRPC with it); tests/unit/cli/test_cli_startup.py checks the two agree."""

T = TypeVar("T")
STALE = frozenset({"ROUND_CHANGED", "PLAY_CHANGED"})
"""Refusals of a command typed on a game that has moved on: the game is shown again."""

app = typer.Typer(
    name="parlor",
    help="Parlor from the terminal: play, watch, replay, export and verify games.",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(bots.bot, name="bot")  # parlor bot register|token|rotate|revoke (docs/bots.md)
# parlor tournament create|list|join|withdraw|start|watch|export (docs/tournaments.md)
app.add_typer(tournaments.tournament, name="tournament")

Target = Annotated[
    str | None,
    typer.Option(
        "--target", help="host:port of the platform (env PARLOR_TARGET)", show_default=False
    ),
]
Token = Annotated[
    str | None,
    typer.Option("--token", help="bearer token (env PARLOR_TOKEN; default: a new guest)"),
]
GameTypeOption = Annotated[str, typer.Option("--game-type", "-g", help="game type of the game id")]


def console() -> Console:
    """Made per call, so output follows whatever stdout is now (tests swap it)."""
    return Console(highlight=False, soft_wrap=False, width=100)


def fail(message: str, code: int = 1) -> typer.Exit:
    Console(stderr=True, highlight=False).print(f"[bold red]error:[/] {message}")
    return typer.Exit(code)


def connect(
    game_type: str, target: str | None, token: str | None, name: str = ""
) -> sessions.Session:
    """Where and as whom to call, for a known game type (checked before a token is made)."""
    if game_type not in adapter_names():  # before a token is asked for or minted
        raise fail(f"unknown game type {game_type!r}; known: {', '.join(adapter_names())}", 2)
    try:
        return sessions.session(target, token, name)
    except settings.SettingsError as exc:
        raise fail(str(exc)) from None


def run(calls: Coroutine[Any, Any, T]) -> T:
    """Run a command's calls (parlor-client is async); a refusal ends the command with it."""

    async def guarded() -> T:
        try:
            return await calls
        except client.ParlorError as exc:
            raise fail(sessions.describe(exc)) from None

    return asyncio.run(guarded())


class Lines:
    """What the player types, one line at a time, read by a thread so waiting never blocks
    the event loop (a Take Four game redraws while the player thinks)."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.pending: asyncio.Future[str | None] | None = None
        self.raw = ""
        """The last line read, as typed (``next`` lower-cases it): a ``/say`` keeps its case."""
        threading.Thread(target=self._read, args=(sys.stdin,), daemon=True).start()

    def _read(self, stream: Any) -> None:
        while True:
            line = stream.readline()
            try:
                self.loop.call_soon_threadsafe(self.queue.put_nowait, line or None)
            except RuntimeError:  # the command is over: nobody waits for the line
                return
            if not line:
                return

    @staticmethod
    def prompt(text: str) -> None:
        sys.stdout.write(f"{text}: ")
        sys.stdout.flush()

    async def next(self) -> str | None:
        """The next line (None at the end of input), trimmed and lower-cased."""
        if self.pending is not None:  # asked for before, and not yet typed then
            waiting, self.pending = self.pending, None
            return await waiting
        line = await self.queue.get()
        if line is None:
            self.queue.put_nowait(None)  # the end stays the end
            return None
        self.raw = line.strip()
        return self.raw.lower()

    async def ask(self, prompt: str) -> str | None:
        self.prompt(prompt)
        return await self.next()


# -- the platform ------------------------------------------------------------------------------


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def up(
    ctx: typer.Context,
    only: Annotated[
        list[str] | None,
        typer.Option(
            "--only",
            help="serve only these services (repeat it, or list them after one --only:"
            " --only dictionary upwords); default: every installed service",
            metavar="NAME",
            show_default=False,
        ),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(
            "--port",
            help="gRPC port (default: PARLOR_GRPC_PORT, else 50051; 0 picks a free one)",
            metavar="PORT",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Start the whole platform (as `make run`): every service on one port, embedded backends.

    PostgreSQL and NATS are embedded unless PARLOR_DATABASE_URL / PARLOR_NATS_URL are set
    (the database is created if missing); `parlor-platform --help` says more.
    """
    here = Path(sys.executable).parent / "parlor-platform"
    program = str(here) if here.exists() else shutil.which("parlor-platform")
    if program is None:
        raise fail("parlor-platform is not installed (pip install -e services/platform)")
    argv = [program]
    if port is not None:
        argv += ["--port", str(port)]
    if only is not None:
        argv += ["--only", *only]
    os.execv(program, [*argv, *ctx.args])


@app.command()
def token(
    name: Annotated[str, typer.Option("--name", help="display name")] = "",
    player_id: Annotated[
        str | None,
        typer.Option("--player-id", help="the token's subject (default: guest-<random>)"),
    ] = None,
    target: Target = None,
) -> None:
    """Print a guest token (use it as PARLOR_TOKEN or in `authorization: Bearer ...`).

    Only the token goes to stdout; your player id, and where the token was made, go to
    stderr. With no platform answering at the target the token is made here, signed with
    PARLOR_JWT_PRIVATE_KEY (or the key `make run` keeps in its data directory): a platform
    accepts it only if it trusts that key.
    """
    where = target or os.environ.get("PARLOR_TARGET") or client.DEFAULT_TARGET
    try:
        if player_id is not None:
            made, remote = sessions.mint_token(name, player_id), False
        else:
            made, remote = sessions.issued_guest_token(where, name)
    except settings.SettingsError as exc:
        raise fail(str(exc)) from None
    print(made)
    note = Console(stderr=True, highlight=False, soft_wrap=True)
    note.print(f"player id: [bold]{sessions.claims(made).player_id}[/]")
    if remote:
        note.print(f"token issued by the platform at {where}")
    else:
        why = "--player-id given" if player_id is not None else f"no platform answered at {where}"
        key = sessions.signing_key()[1]
        note.print(
            f"[yellow]warning:[/] token made locally ({why}), signed with {key}:"
            " a platform accepts it only if its PARLOR_JWT_PUBLIC_KEYS hold that key's"
            " public half (`make run` with the same data directory does)"
        )


@app.command()
def whoami(token: Token = None, target: Target = None) -> None:
    """Who you are: the token (--token, else PARLOR_TOKEN, else the account `parlor login`
    signed in at the target): player id, handle, name, roles, expiry.

    Create a game with this player id among its seats: the creator must sit in it.
    """
    held = token or os.environ.get("PARLOR_TOKEN")
    where = target or os.environ.get("PARLOR_TARGET") or client.DEFAULT_TARGET
    account = None
    if not held:
        try:
            held = sessions.account_token(where)
        except settings.SettingsError as exc:
            raise fail(str(exc)) from None
        if not held:
            raise fail(
                f"not signed in at {where}, and no token: `parlor login --provider NAME`,"
                " or pass --token / export PARLOR_TOKEN=$(parlor token) (a guest)",
                2,
            )
        account = run(_account(where, held))
    try:
        who = sessions.claims(held)
    except ValueError as exc:
        raise fail(str(exc), 2) from None
    out = console()
    out.print(f"player id: {who.player_id}")
    if account is not None:
        out.print(f"account:   signed in at {where} (parlor logout to sign out)")
        out.print(f"handle:    {account.handle or '- (none chosen yet)'}")
        for identity in account.identities:
            out.print(f"identity:  {identity.issuer} ({identity.subject})")
    out.print(f"name:      {who.name or '-'}")
    out.print(f"roles:     {', '.join(who.roles) or '-'}")
    if who.expires_at is not None:
        left = who.expires_at - time.time()
        when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(who.expires_at))
        out.print(f"expires:   {when}" + (" (expired)" if left <= 0 else ""))


async def _account(target: str, token: str) -> Any:
    async with sessions.Session(target, token).client() as parlor:
        return await parlor.identity.get_account()


@app.command()
def login(
    provider: Annotated[
        str | None, typer.Option("--provider", "-p", help="the provider's name on the platform")
    ] = None,
    target: Target = None,
    password: Annotated[
        bool,
        typer.Option(
            "--password",
            help="a built-in account: a handle and a password (asked for, never echoed)",
        ),
    ] = False,
    handle: Annotated[
        str | None, typer.Option("--handle", help="with --password: the account's handle")
    ] = None,
    sign_up: Annotated[
        bool, typer.Option("--sign-up", help="with --password: make the account first")
    ] = False,
    port: Annotated[
        int, typer.Option("--port", help="loopback port the browser brings the answer to")
    ] = LOGIN_PORT,
    open_browser: Annotated[
        bool, typer.Option("--browser/--no-browser", help="open the sign-in page in a browser")
    ] = True,
    timeout: Annotated[float, typer.Option("--timeout", help="seconds to wait")] = 300.0,
) -> None:
    """Sign in with an account through an OpenID Connect provider the platform trusts,
    or (--password) with a built-in account's handle and password.

    Your browser opens the provider's page; after you sign in there it brings the answer
    back to this command (http://127.0.0.1:PORT/parlor/signed-in: that redirect URI must be
    configured for the provider). The account's tokens are kept in your config directory
    (PARLOR_CONFIG_DIR, else $XDG_CONFIG_HOME/parlor), readable by you alone, and every
    command then calls as the account at that target; `parlor logout` ends it.
    """
    where = target or os.environ.get("PARLOR_TARGET") or client.DEFAULT_TARGET
    if password:
        if provider:
            raise fail("--password or --provider, not both", 2)
        _password_login(where, handle, sign_up)
        return
    if not provider:
        raise fail("sign in with --provider NAME (OpenID Connect) or --password", 2)
    note = Console(stderr=True, highlight=False, soft_wrap=True)

    def show(url: str) -> None:
        note.print("Sign in at this address (it was opened in your browser, if there is one):")
        print(url, file=sys.stderr, flush=True)
        if open_browser:
            import webbrowser

            with contextlib.suppress(Exception):
                webbrowser.open(url)

    try:
        kept, handle = run(logins.login(where, provider, port, timeout, show))
    except logins.LoginError as exc:
        raise fail(str(exc)) from None
    console().print(
        f"signed in at {where} as {handle or kept.player_id}"
        + ("" if handle else " (no handle yet)")
        + f"; tokens kept in {logins.credentials_file()}"
    )


def _password_login(where: str, handle: str | None, sign_up: bool) -> None:
    """`parlor login --password`: the password is read from the terminal without echo (or,
    when stdin is no terminal, its first line), never from the command line."""
    if not handle:
        handle = typer.prompt("handle") if sys.stdin.isatty() else sys.stdin.readline().strip()
    try:
        secret = accounts.read_password(confirm=sign_up)
    except accounts.PasswordsDiffer as exc:
        raise fail(str(exc), 2) from None
    try:
        kept, shown = run(logins.password_login(where, handle, secret, sign_up))
    except logins.LoginError as exc:
        raise fail(str(exc)) from None
    made = "signed up" if sign_up else "signed in"
    console().print(
        f"{made} at {where} as {shown or kept.player_id}"
        f"; tokens kept in {logins.credentials_file()}"
    )


@app.command()
def logout(
    target: Target = None,
    everywhere: Annotated[
        bool,
        typer.Option("--everywhere", help="end every session of the account, on every device"),
    ] = False,
) -> None:
    """Sign out: the account's session at the target is ended and forgotten here."""
    where = target or os.environ.get("PARLOR_TARGET") or client.DEFAULT_TARGET
    if everywhere:
        revoked = _account_call(accounts.sign_out_everywhere(where))
        console().print(
            f"signed out everywhere at {where}: {revoked} session(s) ended;"
            " commands call as a new guest again"
        )
        return
    try:
        ended = run(logins.logout(where))
    except logins.LoginError as exc:
        raise fail(str(exc)) from None
    if not ended:
        console().print(f"not signed in at {where}: nothing to do")
        return
    console().print(f"signed out at {where}; commands call as a new guest again")


def _account_call(calls: Coroutine[Any, Any, T]) -> T:
    try:
        return run(calls)
    except (accounts.NotSignedIn, logins.LoginError) as exc:
        raise fail(str(exc), 2) from None


@app.command(name="sessions")
def list_sessions(target: Target = None) -> None:
    """The signed-in account's open sessions, newest first (never their tokens)."""
    where = target or os.environ.get("PARLOR_TARGET") or client.DEFAULT_TARGET
    from rich.table import Table

    found = _account_call(accounts.sessions(where))
    table = Table("session", "client", "began", "last renewed", "expires")
    for one in found:
        table.add_row(
            one.session_id,
            one.client or "-",
            *(accounts.when(t) for t in (one.created_at, one.last_used_at, one.expires_at)),
        )
    out = console()
    out.print(table)
    out.print(f"{len(found)} open session(s); `parlor logout --everywhere` ends them all")


@app.command(name="claim-guest")
def claim_guest(target: Target = None) -> None:
    """Take over the guest you played as before signing in, its games and ratings: the
    guest's token is PARLOR_TOKEN (as `export PARLOR_TOKEN=$(parlor token)` kept it), or
    else the first line of stdin. A guest id is claimed once, ever."""
    where = target or os.environ.get("PARLOR_TARGET") or client.DEFAULT_TARGET
    guest = os.environ.get("PARLOR_TOKEN") or ""
    if not guest and not sys.stdin.isatty():
        guest = sys.stdin.readline().strip()
    if not guest:
        raise fail("no guest token: set PARLOR_TOKEN to the guest's token, or pipe it in", 2)
    try:
        claimed = _account_call(accounts.claim_guest(where, guest))
    except ValueError as exc:
        raise fail(f"PARLOR_TOKEN: {exc}", 2) from None
    console().print(
        f"claimed {claimed.guest_id}: its games and ratings are the account's"
        f" ({claimed.account.handle or claimed.account.player_id}) now"
    )


account_app = typer.Typer(help="The signed-in account: erase it.", no_args_is_help=True)
app.add_typer(account_app, name="account")


@account_app.command(name="erase")
def erase_account(
    target: Target = None,
    yes: Annotated[bool, typer.Option("--yes", help="do not ask (for scripts)")] = False,
) -> None:
    """Erase your account for good: closed, every session ended, handle and names
    forgotten (its games stay, played by an erased account). Asks you to type the handle."""
    where = target or os.environ.get("PARLOR_TARGET") or client.DEFAULT_TARGET
    if not yes:
        handle = _account_call(accounts.handle(where))
        expected = handle or "erase"
        sys.stdout.write(
            f"This erases the account {handle or ''} at {where} for good."
            f" Type {expected!r} to go on: "
        )
        sys.stdout.flush()
        if sys.stdin.readline().strip() != expected:
            raise fail("not erased: the answer was not the one asked for", 1)
    player_id = _account_call(accounts.erase(where))
    console().print(f"erased the account {player_id}; commands call as a new guest again")


# -- playing -----------------------------------------------------------------------------------


@app.command()
def play(
    game_type: Annotated[str, typer.Argument(help=" | ".join(adapter_names()))],
    vs: Annotated[
        list[str] | None,
        typer.Option(
            "--vs",
            help="opponent: a player id or a bot (connect4x4: bot:strong, bot:greedy,"
            " bot:random; takefour: bot:easy, bot:medium, bot:hard; upwords: bot:best,"
            " bot:random); default: the game's usual bot",
        ),
    ] = None,
    join: Annotated[str | None, typer.Option("--join", help="play in an existing game")] = None,
    name: Annotated[str, typer.Option("--name", help="your display name")] = "",
    target: Target = None,
    token: Token = None,
) -> None:
    """Play in the terminal: type moves in the game's notation ('resign' to give up, 'quit').

    A game of simultaneous play (Take Four) is redrawn as the others' moves arrive, and each
    command names the round on the screen: typed for a round that has ended, it is refused.
    """
    where = connect(game_type, target, token, name)
    run(_play(where, game_type, vs, join, name or where.name))  # name: `parlor token --name`


async def _play(
    where: sessions.Session, game_type: str, vs: list[str] | None, join: str | None, name: str
) -> None:
    out = console()
    me = where.player_id
    async with where.client() as parlor:
        game_api = adapter(game_type, parlor)
        if join:
            game = await game_api.get(join)
        else:
            game = await game_api.create(me, vs or [game_api.default_opponent], name)
            out.print(f"game [bold]{game_api.game_id(game)}[/] ({game_type})")
        game_id = game_api.game_id(game)
        out.print(game_api.draw(game, me))
        lines = Lines()
        prompt = f"your move ({game_api.move_help}; resign; quit; /say <text>)"
        from parlor.client.chat import players_room  # not at start-up: it loads gRPC

        room = players_room(game_type, game_id)
        # the others' messages, printed as they come (asyncio.run ends it with the command)
        chat = asyncio.ensure_future(chatting.follow(parlor, room, me, out))
        while not game_api.is_over(game):
            if game_api.to_move(game) != me:
                out.print("[dim]waiting for the other players...[/]")
                async with aclosing(game_api.watch(game_id, game_api.version(game))) as seen_:
                    async for _, seen in seen_:
                        if game_api.is_over(seen) or game_api.to_move(seen) == me:
                            break
                # A watched event may be the middle of one append (a resignation before the
                # win it causes): the latest game holds the whole append.
                game = await game_api.get(game_id)
                out.print(game_api.draw(game, me))
                continue
            clock = clock_line(game)
            if clock:
                out.print(f"[dim]{clock}[/]")
            if game_api.live:
                typed, game = await _ask_live(game_api, game, lines, prompt, me)
                if typed == "":  # no line: the game moved on (over, or between rounds)
                    continue
            else:
                typed = await lines.ask(prompt)
            if typed is None or typed in {"quit", "q"}:
                out.print(f"left the game; resume with: parlor play {game_type} --join {game_id}")
                raise typer.Exit(0 if typed else 1)
            if not typed:
                continue
            text = chatting.said(lines.raw)
            if text is not None:
                if text:
                    await chatting.say(parlor, room, text, out)
                continue
            try:
                if typed == "resign":
                    game = await game_api.resign(game_id, uuid.uuid4().hex)
                else:
                    game, events = await game_api.play(game, typed, uuid.uuid4().hex)
                    names = _names(game)
                    if events:
                        played = "; ".join(game_api.event_text(e, names) for e in events)
                        out.print("played: " + played)
            except (client.ParlorError, ValueError) as exc:  # ValueError: a command not understood
                out.print(f"[red]{sessions.describe(exc)}[/]")
                if isinstance(exc, client.ParlorError) and exc.reason in STALE:
                    game = await game_api.get(game_id)  # show the round or play it is now
                    out.print(game_api.draw(game, me))
                continue
            out.print(game_api.draw(game, me))
        out.print(f"[bold]game over:[/] {game_api.outcome(game)}")
        out.print(f"replay it: parlor replay {game_id} --game-type {game_type}")
        out.print(f"export it: parlor export {game_id} --format text --game-type {game_type}")
        chat.cancel()


async def _ask_live(
    game_api: GameAdapter, game: Any, lines: Lines, prompt: str, me: str
) -> tuple[str | None, Any]:
    """The next typed line, the game redrawn at each event meanwhile; and the game last drawn.

    The line is "" when the game stopped waiting for the player first (it ended, or a
    round did): the line typed meanwhile stays for the next prompt.
    """
    out = console()
    shown = game

    async def follow() -> None:
        nonlocal shown
        names = _names(shown)
        async with aclosing(game_api.watch(game_api.game_id(shown), game_api.version(shown))) as s:
            async for event, seen in s:
                shown = seen
                if out.is_terminal:
                    out.clear()
                else:
                    out.print()
                out.rule(game_api.event_text(event, names), style="dim")
                out.print(game_api.draw(seen, me))
                if game_api.is_over(seen) or game_api.to_move(seen) != me:
                    return
                lines.prompt(prompt)

    lines.prompt(prompt)
    typed = asyncio.ensure_future(lines.next())
    watcher = asyncio.ensure_future(follow())
    try:
        await asyncio.wait({typed, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watcher.cancel()
    error = watcher.exception() if watcher.done() and not watcher.cancelled() else None
    if typed.done():
        return typed.result(), shown  # what was typed goes first, even if the watch broke
    lines.pending = typed  # the line still to come answers the next prompt
    if error is not None:
        raise error
    return "", shown


@app.command()
def watch(
    game_id: str,
    game_type: GameTypeOption = "connect4x4",
    target: Target = None,
    token: Token = None,
) -> None:
    """Follow a game live, event by event, until it ends."""
    where = connect(game_type, target, token)
    run(_watch(where, game_type, game_id))


async def _watch(where: sessions.Session, game_type: str, game_id: str) -> None:
    out = console()
    async with where.client() as parlor:
        game_api = adapter(game_type, parlor)
        game = None
        # kibitz: the spectators' room, printed as it comes; '/say <text>' typed meanwhile
        from parlor.client.chat import spectators_room  # not at start-up: it loads gRPC

        kibitz = spectators_room(game_type, game_id)
        chat = (
            asyncio.ensure_future(chatting.follow(parlor, kibitz, where.player_id, out)),
            asyncio.ensure_future(_say_lines(parlor, kibitz, out)),
        )
        async with aclosing(game_api.watch(game_id)) as events:
            async for event, game in events:
                out.rule(
                    f"v{game_api.event_version(event)}: {game_api.event_text(event, _names(game))}"
                )
                out.print(game_api.draw(game, where.player_id))
        if game is not None:
            out.print(f"[bold]game over:[/] {game_api.outcome(game)}")
        for task in chat:
            task.cancel()


async def _say_lines(parlor: Any, room: Any, out: Console) -> None:
    """Each ``/say <text>`` typed while watching, posted to ``room``; other lines ignored."""
    lines = Lines()
    while (typed := await lines.next()) is not None:
        text = chatting.said(lines.raw) if typed else None
        if text:
            await chatting.say(parlor, room, text, out)


def _names(game: Any) -> list[str]:
    # A seat is a Seat, or a view of one holding it (Take Four's SeatView.seat).
    seats = [getattr(s, "seat", s) for s in getattr(game, "seats", [])]
    return [s.display_name or s.player_id for s in seats]


async def _handles(parlor: Any, seats: list[Any]) -> dict[str, str]:
    """The handles of the accounts among ``seats`` (GetPlayers): games name an account by its
    player id; none where the platform does not answer (a player is then shown by id)."""
    ids = [s.player_id for s in seats if not s.player_id.startswith("bot:")]
    try:
        return dict(await parlor.identity.handles(ids)) if ids else {}
    except client.ParlorError:
        return {}


@app.command()
def games(
    game_type: GameTypeOption = "connect4x4",
    player: Annotated[
        str | None, typer.Option("--player", help="whose games (default: yours)")
    ] = None,
    everyone: Annotated[bool, typer.Option("--all", help="everyone's games")] = False,
    finished: Annotated[bool, typer.Option("--finished", help="only finished games")] = False,
    in_progress: Annotated[
        bool,
        typer.Option(
            "--in-progress",
            help="only games in progress (resume one: parlor play TYPE --join ID)",
        ),
    ] = False,
    limit: Annotated[int, typer.Option("--limit")] = 20,
    my_turn: Annotated[
        bool,
        typer.Option(
            "--my-turn",
            help="your games of every type waiting for your move, earliest deadline first",
        ),
    ] = False,
    target: Target = None,
    token: Token = None,
) -> None:
    """List games, newest first (--my-turn: those waiting for you, soonest deadline first)."""
    from rich.table import Table

    if finished and in_progress:
        raise typer.BadParameter("--finished and --in-progress exclude each other")
    where = connect(game_type, target, token)
    if my_turn:
        waiting = [w for w in run(_my_games(where)) if w.my_turn][:limit]
        table = Table("game type", "deadline", "players")
        table.add_column("game id", no_wrap=True)
        for w in waiting:
            table.add_row(w.game_type, _deadline(w), ", ".join(w.players), w.game_id)
        console().print(table)
        return
    only = {"in_progress_only": True} if in_progress else {}

    async def listing() -> tuple[list[Any], dict[str, str]]:
        async with where.client() as parlor:
            found = await adapter(game_type, parlor).list_games(
                "" if everyone else (player or where.player_id), finished, limit, **only
            )
            return found, await _handles(parlor, [s for g in found for s in g.seats])

    listed, handles = run(listing())
    table = Table("players", "created", "finished", "events")
    table.add_column("game id", no_wrap=True)
    for g in listed:
        table.add_row(
            ", ".join(handles.get(s.player_id) or s.display_name or s.player_id for s in g.seats),
            g.created_at.ToDatetime().strftime("%Y-%m-%d %H:%M:%S"),
            g.finish_reason or "-",
            str(g.version),
            g.game_id,
        )
    console().print(table)


async def _my_games(where: sessions.Session) -> list[turns.Waiting]:
    async with where.client() as parlor:
        return await turns.my_games(parlor, sorted(adapters()))


def _deadline(waiting: turns.Waiting) -> str:
    if waiting.deadline is None:
        return "-"
    return waiting.deadline.strftime("%Y-%m-%d %H:%M:%S UTC")


@app.command(name="next")
def next_game(target: Target = None, token: Token = None) -> None:
    """The game that waits for your move with the earliest deadline, and how to play it."""
    where = connect("connect4x4", target, token)
    waiting = [w for w in run(_my_games(where)) if w.my_turn]
    if not waiting:
        raise fail("no game waits for your move", 1)
    first = waiting[0]
    console().print(
        f"{first.game_type} {first.game_id} (deadline {_deadline(first)};"
        f" {len(waiting) - 1} more waiting): parlor play {first.game_type} --join {first.game_id}",
        soft_wrap=True,
    )


# -- history -----------------------------------------------------------------------------------


@app.command()
def replay(
    game_id: str,
    to: Annotated[
        int | None, typer.Option("--to", help="show the game as it was at this version")
    ] = None,
    step: Annotated[bool, typer.Option("--step", help="one event per Enter ('q' stops)")] = False,
    pace: Annotated[int, typer.Option("--pace", help="ms between events when playing back")] = 400,
    chat: Annotated[
        bool, typer.Option("--chat", help="show the game's rooms' messages between its moves")
    ] = False,
    game_type: GameTypeOption = "connect4x4",
    target: Target = None,
    token: Token = None,
) -> None:
    """Replay a game: play it back, step through it, or jump to a version."""
    where = connect(game_type, target, token)
    run(_replay(where, game_type, game_id, to, step, pace, chat))


async def _replay(
    where: sessions.Session,
    game_type: str,
    game_id: str,
    to: int | None,
    step: bool,
    pace: int,
    chat: bool = False,
) -> None:
    out = console()
    me = where.player_id
    async with where.client() as parlor:
        game_api = adapter(game_type, parlor)
        said = await chatting.Interleaved.read(parlor, game_type, game_id, out) if chat else None
        if to is not None:
            game = await game_api.get(game_id, to)
            out.rule(f"{game_id} at version {to}")
            out.print(game_api.draw(game, me))
            return
        if step:
            with Console(stderr=True).status(f"reading the history of {game_id}"):
                events = await game_api.history(game_id)
            lines = Lines()
            for event in events:
                version = game_api.event_version(event)
                game = await game_api.get(game_id, version)
                if said is not None:
                    said.print_until(event.info.recorded_at)
                out.rule(f"v{version}/{len(events)}: {game_api.event_text(event, _names(game))}")
                out.print(game_api.draw(game, me))
                if version < len(events):
                    answer = await lines.ask("Enter: next, q: stop")
                    if answer is None or answer == "q":
                        return
            return
        async with aclosing(game_api.replay(game_id, pace)) as played:
            async for event, game in played:
                if said is not None:
                    said.print_until(event.info.recorded_at)
                out.rule(
                    f"v{game_api.event_version(event)}: {game_api.event_text(event, _names(game))}"
                )
                out.print(game_api.draw(game, me))
        if said is not None:
            said.print_until(None)


@app.command()
def export(
    game_id: str,
    format: Annotated[str, typer.Option("--format", "-f", help="jsonl or text")] = "jsonl",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="file (default: stdout)")
    ] = None,
    game_type: GameTypeOption = "connect4x4",
    chat: Annotated[
        bool, typer.Option("--chat", help="text: add the game's rooms as you may read them")
    ] = False,
    target: Target = None,
    token: Token = None,
) -> None:
    """Export a game: its events as JSON lines, or its moves in the game's text notation."""
    if format not in ("jsonl", "text"):
        raise fail("--format is jsonl or text", 2)
    where = connect(game_type, target, token)

    async def reading() -> tuple[GameAdapter, list[Any], str]:
        async with where.client() as parlor:
            game_api = adapter(game_type, parlor)
            events = await game_api.history(game_id)
            rooms = await chatting.rooms_text(parlor, game_type, game_id) if chat else ""
            return game_api, events, rooms

    with Console(stderr=True).status(f"reading the history of {game_id}"):
        game_api, events, rooms = run(reading())
    if format == "jsonl":
        text = "".join(json.dumps(game_api.event_dict(e), sort_keys=True) + "\n" for e in events)
    else:
        text = game_api.transcript(events) + (f"\n{rooms}" if rooms else "")
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text)
        Console(stderr=True).print(f"wrote {len(events)} events to {output}")


@app.command()
def verify(
    game_type: Annotated[
        str | None, typer.Option("--game-type", "-g", help="only this game type")
    ] = None,
    game_id: Annotated[str | None, typer.Option("--game-id", help="only this game")] = None,
    database_url: Annotated[
        str | None, typer.Option("--database-url", help="PostgreSQL (env PARLOR_DATABASE_URL)")
    ] = None,
    tournament: Annotated[
        str | None, typer.Option("--tournament", help="only this tournament (no games)")
    ] = None,
) -> None:
    """Re-run today's rules over stored games; report the first version where one diverges.
    Every tournament is re-decided too (docs/tournaments.md), its games' results read from
    their own streams.

    With no database given, the one `make run` keeps in this checkout (.parlor/)."""
    url = database_url or os.environ.get("PARLOR_DATABASE_URL")
    if url:
        if tournament is not None:
            _verify_tournaments(url, tournament)
            return
        return _verify(url, game_type, game_id)
    from parlor.cli.checkout import checkout_database

    # none given: the database of `make run` in this checkout (started for the command if
    # `make run` is not up)
    with checkout_database(Path.cwd()) as found:
        if found is None:
            raise fail(
                "set PARLOR_DATABASE_URL or --database-url (verify reads the store);"
                " no database of `make run` (.parlor/postgres) in this checkout either",
                2,
            )
        note = Console(stderr=True, highlight=False)
        note.print(f"reading the database of `make run` in {found[1]}")
        if tournament is not None:
            _verify_tournaments(found[0], tournament)
            return
        _verify(found[0], game_type, game_id)


def _verify(url: str, game_type: str | None, game_id: str | None) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from parlor.cli.verifying import verify_games
    from parlor.gamehost.wire.replay import game_types

    installed = game_types()
    if game_type is not None and game_type not in installed:
        raise fail(f"unknown game type {game_type!r}; installed: {sorted(installed)}", 2)
    chosen = [installed[t]() for t in ([game_type] if game_type else sorted(installed))]
    if game_id is not None and len(chosen) != 1:
        raise fail("--game-id needs --game-type", 2)
    out = console()
    failures: list[Any] = []
    checked = 0

    async def run() -> None:
        nonlocal checked
        with Progress(
            TextColumn("verifying"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=out,
            transient=True,
        ) as progress:
            task = progress.add_task("games", total=None)
            async for verdict in verify_games(
                url, chosen, game_id, lambda n: progress.update(task, total=n)
            ):
                checked += 1
                progress.advance(task)
                if not verdict.ok:
                    failures.append(verdict)

    started = time.perf_counter()
    asyncio.run(run())
    took = time.perf_counter() - started
    for verdict in failures:
        d = verdict.divergence
        out.print(
            f"[red]DIVERGES[/] {verdict.stream_id} at version {d.version}: {d.reason}: {d.detail}"
        )
    out.print(
        f"verified {checked} games in {took:.2f}s:"
        f" {checked - len(failures)} ok, {len(failures)} diverge"
    )
    wrong = _verify_tournaments(url, None, stop=False) if game_id is None else 0
    if failures or wrong:
        raise typer.Exit(1)


def _verify_tournaments(url: str, tournament_id: str | None, stop: bool = True) -> int:
    """Re-decide stored tournaments; print each problem; the number that have any."""
    from parlor.cli.verifying import verify_tournaments

    out = console()
    found: list[tuple[str, list[str]]] = []

    async def run() -> None:
        async for stream, problems in verify_tournaments(url, tournament_id):
            found.append((stream, problems))

    asyncio.run(run())
    wrong = [(s, p) for s, p in found if p]
    for stream, problems in wrong:
        for problem in problems:
            out.print(f"[red]DIVERGES[/] {stream}: {problem}")
    out.print(
        f"verified {len(found)} tournaments: {len(found) - len(wrong)} ok, {len(wrong)} diverge"
    )
    if stop and wrong:
        raise typer.Exit(1)
    return len(wrong)


def main() -> None:
    app()


__all__ = ["adapters", "app", "main"]
