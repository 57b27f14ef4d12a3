"""No hidden tile reaches anyone who may not see it; every call needs a token; no one acts for
another.

One check for every RPC and server stream of every game service, found from the
descriptors (an RPC added later is checked without editing this file):

- secrets: in a real Upwords and a real Take Four game between ada and bob (a bot account,
  with a bot's token), played for several moves, bob (an opponent) and cyd (a spectator with
  a token but no seat) call every RPC of the game's service; each response, each streamed
  item, and each refusal's details and trailing metadata (ErrorInfo) is searched for ada's
  hidden tiles and the bag, by value, against the truth folded from the store
  (``leakcheck``). Calls that act may act for bob; the truth is read again after each.
- NATS: every message the relay published for those games is searched the same way,
  as a spectator would see it; its subject is exactly ``<prefix>.<game>.<id>.<Event>``,
  the event's type as a spectator is shown it (a Take Four joker swap: ``TileMoved``).
- the search is shown to work: fed the unredacted views and events, and run against
  the live services with their redaction switched off, it finds the secrets.
- tokens: every RPC of every installed service, without a token and with a token
  signed by another secret, is UNAUTHENTICATED and stores nothing (the public
  RPCs, IssueGuestToken and the sign-in calls, are named and checked as such).
- seats: every RPC that acts (its request has ``seat`` or ``command_id``) is refused
  with PERMISSION_DENIED when bob names ada's seat or a spectator acts, and stores nothing.
- private games: in a private game of every game type between ada and bob, every RPC of its
  service naming the game answers cyd (no seat, no invite, or a wrong one) as it answers a
  game that does not exist (NOT_FOUND GAME_NOT_FOUND, or the request's own fault); no
  answer to cyd (ListGames included) names the game, and neither any answer to cyd nor any
  message on NATS carries its spectator invite.
- challenges: a challenge between two players is answered to a third, by every RPC of the
  challenge service that names it, as one that does not exist (NOT_FOUND
  CHALLENGE_NOT_FOUND); no answer to the third names it or its players, and acting on it
  (accept, decline, cancel) changes nothing.
"""

from __future__ import annotations

import contextlib
import glob
import importlib
import os
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import grpc
import nats
import pytest
from google.protobuf import any_pb2
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status
from leakcheck import (
    Backend,
    Secrets,
    Truth,
    describe,
    fold,
    read_stream,
    secrets_of,
    stored_position,
    stored_since,
    takefour_secrets,
    upwords_secrets,
)

import parlor
from parlor.common.v1 import common_pb2
from parlor.gamehost.pipeline.games import games
from parlor.kit.auth import AuthSettings, generate_private_key, issue_token
from parlor.kit.server import Server
from parlor.kit.status import reason_of
from parlor.rules import upwords as uw
from parlor.rules.upwords.bot import UpwordsBot
from parlor.takefour.v1 import takefour_pb2 as tpb
from parlor.upwords.v1 import upwords_pb2 as upb

pytestmark = [pytest.mark.integration, pytest.mark.slow]

STREAM_SECONDS = 0.6
"""How long a stream is read before the call is cancelled (a game in progress never ends it)."""

ADA, BOB = 0, 1
BOB_BOT = "botacct-" + "b0" * 16
"""bob, the opponent, is a bot account (a bot token, role "bot"): every check of what an
opponent sees is a bot's view (docs/bots.md: hidden information exactly as for a person)."""
PLAYER_IDS = {"ada": "ada", "bob": BOB_BOT}
VIEWERS: dict[str, int | None] = {"bob": BOB, "cyd": None}
UNCHECKED = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL, grpc.StatusCode.UNIMPLEMENTED}
SEATED = tuple(games())  # every installed game, from the registry
HIDDEN = tuple(name for name, game in games().items() if game.hides)
ADAS_COMMAND = "ada-creates-the-game"
"""The command id every game is created with (for ada and bob, by a platform service): a
command id someone else may learn or guess."""
GUEST_TOKEN_METHOD = "/parlor.identity.v1.IdentityService/IssueGuestToken"
SIGN_IN_METHODS = {
    f"/parlor.identity.v1.IdentityService/{name}"
    for name in (
        "BeginSignIn",
        "CompleteSignIn",
        "RenewSession",
        "SignOut",
        "SignUpWithPassword",
        "SignInWithPassword",
    )
}
BOT_SECRET_METHOD = "/parlor.bots.v1.BotService/ExchangeBotSecret"
PUBLIC_METHODS = {GUEST_TOKEN_METHOD, BOT_SECRET_METHOD, *SIGN_IN_METHODS}
"""Callable without a token, on purpose: a new client needs IssueGuestToken to get its first
token (the platform can switch it off with PARLOR_GUEST_TOKENS=false), and a player signs in
before holding one; the sign-in calls' credentials are in the request (a provider's state and
code, a refresh token, a handle and a password, a bot's secret), so without them they are
refused for their own reasons, never for want of a token. A token sent to any of them is still
checked."""


# --- discovery: every service in every installed proto package -------------------------------


def _proto_modules() -> list[ModuleType]:
    found = set()
    for root in parlor.__path__:
        for path in glob.glob(os.path.join(root, "*", "v*", "*_pb2.py")):
            rel = Path(path).relative_to(root).with_suffix("")
            found.add("parlor." + ".".join(rel.parts))
    return [importlib.import_module(name) for name in sorted(found)]


SERVICES: list[ServiceDescriptor] = sorted(
    (s for m in _proto_modules() for s in m.DESCRIPTOR.services_by_name.values()),
    key=lambda s: s.full_name,
)


def game_service(category: str) -> ServiceDescriptor:
    (service,) = [s for s in SERVICES if s.full_name.startswith(f"parlor.{category}.v1.")]
    return service


def method(category: str, name: str) -> MethodDescriptor:
    return game_service(category).methods_by_name[name]


SECRET_CASES = [
    pytest.param(category, m.name, id=f"{category}.{m.name}")
    for category in HIDDEN
    for m in game_service(category).methods
]
ACTING_CASES = [
    pytest.param(category, m.name, id=f"{category}.{m.name}")
    for category in SEATED
    for m in game_service(category).methods
    if {"seat", "command_id"} & set(m.input_type.fields_by_name)
]
PRIVATE_CASES = [
    pytest.param(category, m.name, id=f"{category}.{m.name}")
    for category in SEATED
    for m in game_service(category).methods
]
TOKEN_CASES = [
    pytest.param(m.full_name, id=m.full_name.removeprefix("parlor."))
    for s in SERVICES
    for m in s.methods
]


# --- calling any RPC by its descriptor -------------------------------------------------------


@dataclass
class Outcome:
    items: list[Message]
    error: grpc.RpcError | None

    @property
    def code(self) -> grpc.StatusCode:
        if self.error is None:
            return grpc.StatusCode.OK
        return self.error.code()  # type: ignore[attr-defined,no-any-return]

    def describe(self) -> str:
        if self.error is None:
            return "OK"
        return f"{self.code.name} {reason_of(self.error)}: {self.error.details()}"  # type: ignore[attr-defined]


class Client:
    def __init__(self, target: str, auth: AuthSettings) -> None:
        self.channel = grpc.insecure_channel(target)
        forged = AuthSettings(private_key=generate_private_key())  # a key, not the platform's
        self.tokens: dict[str, str | None] = {
            "ada": issue_token(auth, "ada"),
            "bob": issue_token(auth, BOB_BOT, "Bob", ("bot",)),
            "cyd": issue_token(auth, "cyd"),
            # seats ada and bob (who agreed elsewhere): a player seats only themselves and bots
            "service": issue_token(
                auth,
                "service:tests",
                roles=("service",),
                audience=("upwords", "takefour", "connect4x4"),
            ),
            "none": None,
            "forged": issue_token(forged, "bob"),
        }

    def call(
        self, m: MethodDescriptor, request: Message, who: str, stream_seconds: float = 0.0
    ) -> Outcome:
        """The call's answer; a stream is read for ``stream_seconds`` (``STREAM_SECONDS``
        unless given) and a deadline then ends it without error."""
        path = f"/{m.containing_service.full_name}/{m.name}"
        reply = GetMessageClass(m.output_type)
        token = self.tokens[who]
        metadata = (("authorization", f"Bearer {token}"),) if token else ()
        items: list[Message] = []
        try:
            if m.server_streaming:
                stream = self.channel.unary_stream(
                    path,
                    request_serializer=lambda r: r.SerializeToString(),
                    response_deserializer=reply.FromString,
                )(request, metadata=metadata, timeout=stream_seconds or STREAM_SECONDS)
                try:
                    for item in stream:
                        items.append(item)
                except grpc.RpcError as error:
                    if error.code() != grpc.StatusCode.DEADLINE_EXCEEDED:  # type: ignore[attr-defined]
                        raise
                finally:
                    stream.cancel()
            else:
                items.append(
                    self.channel.unary_unary(
                        path,
                        request_serializer=lambda r: r.SerializeToString(),
                        response_deserializer=reply.FromString,
                    )(request, metadata=metadata, timeout=10)
                )
        except grpc.RpcError as error:
            return Outcome(items, error)
        return Outcome(items, None)

    def ok_chat(self, name: str, request: Message, who: str) -> Any:
        m = next(s for s in SERVICES if s.full_name == "parlor.chat.v1.ChatService")
        outcome = self.call(m.methods_by_name[name], request, who)
        assert outcome.error is None, f"chat.{name} as {who}: {outcome.describe()}"
        return outcome.items[0]

    def ok(self, category: str, name: str, request: Message, who: str) -> Any:
        outcome = self.call(method(category, name), request, who)
        assert outcome.error is None, f"{category}.{name} as {who}: {outcome.describe()}"
        return outcome.items[0]


def error_leaks(secrets: Secrets, error: grpc.RpcError, where: str) -> list[str]:
    """The refusal as the caller gets it: details, ErrorInfo (and any other detail), metadata."""
    found = secrets.text_leaks(error.details() or "", f"{where} details")  # type: ignore[attr-defined]
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    if status is not None:
        found += secrets.leaks(status, f"{where} status ")
    for key, value in error.trailing_metadata() or ():  # type: ignore[attr-defined]
        if isinstance(value, str):
            found += secrets.text_leaks(value, f"{where} metadata {key}")
    return found


def outcome_leaks(secrets: Secrets, outcome: Outcome, where: str) -> list[str]:
    found: list[str] = []
    for i, item in enumerate(outcome.items):
        found += secrets.leaks(item, f"{where}[{i}] ")
    if outcome.error is not None:
        found += error_leaks(secrets, outcome.error, where)
    return found


def generic(m: MethodDescriptor, game_id: str = "") -> Message:
    """The request an RPC gets when no table entry says otherwise: game_id filled in, no more."""
    request = GetMessageClass(m.input_type)()
    if game_id and "game_id" in m.input_type.fields_by_name:
        request.game_id = game_id  # type: ignore[attr-defined]
    return request


def seats(*players: str) -> list[common_pb2.Seat]:
    return [
        common_pb2.Seat(player_id=PLAYER_IDS.get(p, p), display_name=p.title()) for p in players
    ]


# --- the games --------------------------------------------------------------------------------


class Games:
    """A game in progress per game type (a new one when a call ended it), and the truth of each."""

    def __init__(self, client: Client, database_url: str, bot: UpwordsBot) -> None:
        self.client = client
        self.database_url = database_url
        self.bot = bot
        self.ids: dict[str, list[str]] = {c: [] for c in SEATED}

    # -- truth --

    def truth(self, category: str, game_id: str | None = None) -> Truth:
        game_id = game_id or self.ids[category][-1]
        if category == "upwords":
            from parlor.services.upwords.game import Codec, rules

            return fold(self.database_url, category, game_id, Codec(), rules())
        if category == "takefour":
            from parlor.services.takefour.game import Codec as TakeFourCodec
            from parlor.services.takefour.game import rules as takefour_rules

            return fold(self.database_url, category, game_id, TakeFourCodec(), takefour_rules())
        from parlor.services.connect4x4.game import Codec as C4Codec
        from parlor.services.connect4x4.game import rules as c4_rules

        return fold(self.database_url, category, game_id, C4Codec(), c4_rules())

    def live(self, category: str) -> str:
        """The game in progress of this type; a new one if there is none (or a call ended it)."""
        if not self.ids[category] or self.truth(category).over:
            game_id = f"secrets-{uuid.uuid4().hex[:12]}"
            getattr(self, f"_start_{category}")(game_id)
            self.ids[category].append(game_id)
        return self.ids[category][-1]

    # -- Upwords: both players choose plays from their own view with the rules library's bot --

    def _upwords_view(self, game_id: str, who: str) -> upb.Game:
        return self.client.ok("upwords", "GetGame", upb.GetGameRequest(game_id=game_id), who).game

    def _upwords_move(self, game_id: str, who: str, exchange: bool = False) -> None:
        me = self._upwords_view(game_id, who)
        board = uw.Board(tuple(tuple(s.tiles) for s in me.board))
        play = None if exchange else self.bot.best_play(board, tuple(me.rack))
        if play is not None:
            placements = [upb.Placement(row=p.row, col=p.col, tile=p.tile) for p in play.placements]
            outcome = self.client.call(
                method("upwords", "Play"),
                upb.PlayRequest(game_id=game_id, placements=placements),
                who,
            )
            if outcome.error is None:
                return
        if me.bag_count and not me.retry:
            self.client.ok(
                "upwords", "Exchange", upb.ExchangeRequest(game_id=game_id, tile=me.rack[0]), who
            )
        else:
            self.client.ok("upwords", "Pass", upb.PassRequest(game_id=game_id), who)

    def _start_upwords(self, game_id: str) -> None:
        request = upb.CreateGameRequest(
            game_id=game_id, seats=seats("ada", "bob"), command_id=ADAS_COMMAND
        )
        self.client.ok("upwords", "CreateGame", request, "service")
        for turn in range(6):  # plays, and an exchange by each
            to_move = self._upwords_view(game_id, "cyd").to_move
            self._upwords_move(game_id, ("ada", "bob")[to_move], exchange=turn in (2, 3))

    def bobs_turn(self, category: str) -> None:
        """Upwords: ada moves if it is her turn, so bob's calls that act can succeed."""
        if category != "upwords":
            return
        game_id = self.live(category)
        game = self._upwords_view(game_id, "cyd")
        if game.status == upb.STATUS_IN_PROGRESS and game.to_move == ADA:
            self._upwords_move(game_id, "ada")

    # -- Take Four: each places tiles from their own hand, moves one and takes one back --------

    def _takefour_view(self, game_id: str, who: str) -> tpb.Game:
        return self.client.ok("takefour", "GetGame", tpb.GetGameRequest(game_id=game_id), who).game

    def _start_takefour(self, game_id: str) -> None:
        request = tpb.CreateGameRequest(
            game_id=game_id, seats=seats("ada", "bob"), command_id=ADAS_COMMAND
        )
        self.client.ok("takefour", "CreateGame", request, "service")
        for who, seat in (("ada", ADA), ("bob", BOB)):
            hand = list(self._takefour_view(game_id, who).seats[seat].hand)
            for x, tile in enumerate(hand[:3]):
                letter = "E" if tile.face == "?" else ""
                self.client.ok(
                    "takefour",
                    "PlaceTile",
                    tpb.PlaceTileRequest(game_id=game_id, tile=tile.id, x=x, y=0, letter=letter),
                    who,
                )
            self.client.ok(
                "takefour",
                "MoveTile",
                tpb.MoveTileRequest(
                    game_id=game_id,
                    **{"from": tpb.Cell(x=2, y=0)},
                    to=tpb.Cell(x=0, y=1),
                ),
                who,
            )
            request_back = tpb.TakeBackTileRequest(game_id=game_id, cell=tpb.Cell(x=1, y=0))
            self.client.ok("takefour", "TakeBackTile", request_back, who)

    # -- Connect 4x4: hides nothing; only its seats and tokens are checked ---------------------

    def _start_connect4x4(self, game_id: str) -> None:
        from parlor.connect4x4.v1 import connect4x4_pb2 as cpb

        request = cpb.CreateGameRequest(
            game_id=game_id, seats=seats("ada", "bob"), command_id=ADAS_COMMAND
        )
        self.client.ok("connect4x4", "CreateGame", request, "service")

    # -- the requests each RPC gets ---------------------------------------------------------

    def requests(self, category: str, name: str, who: str) -> list[Message]:
        """The table's requests for this RPC and caller, else the generic one."""
        game_id = self.live(category)
        m = method(category, name)
        make = TABLE.get((category, name))
        if make is None:
            return [generic(m, game_id)]
        return make(self, game_id, who, generic(m, game_id))


Make = Callable[[Games, str, str, Any], list[Message]]


def _every_version(games: Games, game_id: str, who: str, request: Any) -> list[Message]:
    """GetGame now, and at every earlier version."""
    category = request.DESCRIPTOR.full_name.split(".")[1]
    now = games.truth(category, game_id).version
    return [request] + [replace_version(request, v) for v in range(1, now + 1)]


def replace_version(request: Any, version: int) -> Message:
    out = type(request)()
    out.CopyFrom(request)
    out.version = version
    return out


def _upwords_play(games: Games, game_id: str, who: str, request: Any) -> list[Message]:
    """A play bob's bot finds from his own view (a spectator sends a plausible one)."""
    if who == "bob":
        me = games._upwords_view(game_id, who)
        board = uw.Board(tuple(tuple(s.tiles) for s in me.board))
        play = games.bot.best_play(board, tuple(me.rack))
        if play is not None:
            request.placements.extend(
                upb.Placement(row=p.row, col=p.col, tile=p.tile) for p in play.placements
            )
            return [request]
    request.placements.append(upb.Placement(row=4, col=4, tile="E"))
    return [request]


def _upwords_exchange(games: Games, game_id: str, who: str, request: Any) -> list[Message]:
    request.tile = games._upwords_view(game_id, who).rack[0] if who == "bob" else "E"
    return [request]


def _bobs_takefour(games: Games, game_id: str, who: str) -> tpb.SeatView | None:
    return games._takefour_view(game_id, who).seats[BOB] if who == "bob" else None


def _takefour_place(games: Games, game_id: str, who: str, request: Any) -> list[Message]:
    me = _bobs_takefour(games, game_id, who)
    if me is not None and me.hand:
        taken = {(g.x, g.y) for g in me.grid}
        request.tile = me.hand[0].id
        request.letter = "E" if me.hand[0].face == "?" else ""
        request.x = next(x for x in range(-1, 200) if (x, -1) not in taken)
        request.y = -1
    return [request]


def _takefour_move(games: Games, game_id: str, who: str, request: Any) -> list[Message]:
    me = _bobs_takefour(games, game_id, who)
    if me is not None and me.grid:
        taken = {(g.x, g.y) for g in me.grid}
        getattr(request, "from").CopyFrom(tpb.Cell(x=me.grid[0].x, y=me.grid[0].y))
        x = next(x for x in range(200) if (x, 5) not in taken)
        request.to.CopyFrom(tpb.Cell(x=x, y=5))
    return [request]


def _takefour_cell(games: Games, game_id: str, who: str, request: Any) -> list[Message]:
    me = _bobs_takefour(games, game_id, who)
    if me is not None and me.grid:
        request.cell.CopyFrom(tpb.Cell(x=me.grid[-1].x, y=me.grid[-1].y))
        if "tile" in request.DESCRIPTOR.fields_by_name and me.hand:
            request.tile = me.hand[0].id
    return [request]


def _connect4x4_move(games: Games, game_id: str, who: str, request: Any) -> list[Message]:
    request.move = "df"
    return [request]


TABLE: dict[tuple[str, str], Make] = {
    # what an RPC needs to get past validation (or to show more); any other RPC: generic
    ("upwords", "GetGame"): _every_version,
    ("upwords", "Play"): _upwords_play,
    ("upwords", "Exchange"): _upwords_exchange,
    ("takefour", "GetGame"): _every_version,
    ("takefour", "PlaceTile"): _takefour_place,
    ("takefour", "MoveTile"): _takefour_move,
    ("takefour", "TakeBackTile"): _takefour_cell,
    ("takefour", "SwapJoker"): _takefour_cell,
    ("connect4x4", "PlayMove"): _connect4x4_move,
}


# --- fixtures -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(migrated: None) -> Iterator[tuple[Server, AuthSettings]]:
    auth = AuthSettings(private_key=os.environ["PARLOR_JWT_PRIVATE_KEY"])
    backend = Backend(auth)
    try:
        yield backend.start(), auth
    finally:
        backend.stop()


@pytest.fixture(scope="module")
def client(served: tuple[Server, AuthSettings]) -> Iterator[Client]:
    server, auth = served
    c = Client(f"127.0.0.1:{server.port}", auth)
    yield c
    c.channel.close()


@pytest.fixture(scope="module")
def games(client: Client, database_url: str) -> Games:
    from parlor.gamehost.words.botwords import built_index
    from parlor.rules.upwords.bot import UpwordsBot

    return Games(client, database_url, built_index(UpwordsBot))


# --- discovery is complete --------------------------------------------------------------------


def test_every_served_service_is_checked(served: tuple[Server, AuthSettings]) -> None:
    server, _ = served
    assert set(server.service_names) == {s.full_name for s in SERVICES}
    public = set().union(*(c.public_methods for c in server.components))
    assert public == PUBLIC_METHODS
    assert len(SECRET_CASES) >= 20
    assert len(ACTING_CASES) >= 15


# --- secrets: every RPC of the games with hidden information ---------------------------------


def call_as(games: Games, category: str, name: str, who: str) -> list[str]:
    """Call one RPC as one viewer (every request the table gives); what of the secrets leaked."""
    found: list[str] = []
    if who == "bob":
        games.bobs_turn(category)
    m = method(category, name)
    requests = games.requests(category, name, who)
    if "command_id" in m.input_type.fields_by_name:
        # ada's command id replayed, naming her seat: a retry's answer must not be hers
        replayed = type(requests[0])()
        replayed.CopyFrom(requests[0])
        replayed.command_id = ADAS_COMMAND  # type: ignore[attr-defined]
        if "seat" in m.input_type.fields_by_name:
            replayed.seat = ADA  # type: ignore[attr-defined]
        requests.append(replayed)
    for request in requests:
        outcome = games.client.call(m, request, who)
        # an answer that is not the service's own was not searched: it does not pass
        assert outcome.code not in UNCHECKED, f"{name} as {who}: {outcome.describe()}"
        truth = games.truth(category)  # after the call: it may have acted for bob
        if truth.over:
            continue  # the call ended the game (Resign): everything may be shown now
        secrets = secrets_of(truth, VIEWERS[who])
        found += outcome_leaks(secrets, outcome, f"{name} as {who}")
    return found


@pytest.mark.parametrize(("category", "name"), SECRET_CASES)
def test_no_rpc_shows_an_opponent_or_a_spectator_a_hidden_tile(
    games: Games, category: str, name: str
) -> None:
    for who in ("cyd", "bob"):
        found = call_as(games, category, name, who)
        assert not found, describe(found)


# --- the search finds what redaction hides --------------------------------------------------


def _secret_events(truth: Truth, viewer: int | None) -> list[int]:
    """Versions whose stored event holds something this viewer may not see."""
    out = []
    for v in truth.hidden_versions:
        if v == 0:
            continue
        event = truth.events[v - 1]
        owner = getattr(event, "seat", None)
        if truth.category == "upwords":
            names = [n for n in uw.secret_fields(event) if getattr(event, n) is not None]
            if any(n == "position" or owner != viewer for n in names):
                out.append(v)
        else:
            from parlor.services.takefour.game import event_pb

            stored: Any = event_pb(event)
            has = "secret" in stored.DESCRIPTOR.fields_by_name and stored.HasField("secret")
            if has and (owner is None or owner != viewer):
                out.append(v)
    return out


@pytest.mark.parametrize("category", HIDDEN)
def test_the_search_finds_every_secret_in_unredacted_views_and_events(
    games: Games, category: str
) -> None:
    """Fed what the services would send without redaction, the search names it; redacted, not."""
    game_id = games.live(category)
    truth = games.truth(category)
    assert not truth.over
    from parlor.common.v1 import common_pb2 as cpb

    if category == "upwords":
        from parlor.services.upwords.game import event_pb, game_event_pb, game_pb
    else:
        from parlor.services.takefour.game import event_pb, game_event_pb, game_pb
    for who, viewer in VIEWERS.items():
        secrets = secrets_of(truth, viewer)
        last = truth.states[-1]
        if category == "upwords":
            revealed = game_pb(game_id, truth.version, last, viewer, reveal=True)
            redacted = game_pb(game_id, truth.version, last, viewer)
        else:
            revealed = game_pb(game_id, truth.version, last, ADA)  # ada's view, given to bob
            redacted = game_pb(game_id, truth.version, last, viewer)
        assert secrets.leaks(revealed), f"{who}: the unredacted game went unnoticed"
        assert not secrets.leaks(redacted), describe(secrets.leaks(redacted))
        # a refusal that names hidden tiles: in its details, or in ErrorInfo's metadata
        hidden = " ".join(min(secrets.forbidden_sets, key=lambda tiles: abs(len(tiles) - 7)))
        info = error_details_pb2.ErrorInfo(reason="SOME_RULE", metadata={"tiles": hidden})
        detail = any_pb2.Any()
        detail.Pack(info)
        status = status_pb2.Status(code=9, message="refused", details=[detail])
        assert secrets.leaks(status), f"{who}: ErrorInfo naming {hidden} went unnoticed"
        assert secrets.text_leaks(f"refused: {hidden}", "details"), f"{who}: details unnoticed"
        if category == "upwords":  # a record's way of writing a rack: ">ada: CATSQUX"
            written = hidden.replace(" ", "").upper()
            assert secrets.text_leaks(f">ada: {written} -", "text"), f"{who}: {written} unnoticed"
        expected = _secret_events(truth, viewer)
        assert len(expected) >= 3, f"too few secret events to prove anything: {expected}"
        for v in expected:
            event = truth.events[v - 1]
            info = cpb.EventInfo(version=v)
            if category == "upwords":
                board = truth.states[v - 1].game.board
                whole = game_event_pb(event, info, board)
            else:
                whole = game_event_pb(event, info, viewer, True)
            assert secrets.leaks(whole), f"{who}: event {v} ({type(event).__name__}) unnoticed"
            if viewer is None:  # what NATS would carry without the relay's stripping
                assert secrets.leaks(event_pb(event), version=v), f"NATS event {v} unnoticed"


@pytest.mark.parametrize("category", HIDDEN)
def test_the_search_finds_secrets_when_a_live_service_stops_redacting(
    games: Games, category: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redaction switched off in the live services (they run in this process): every read leaks."""
    games.live(category)
    if category == "upwords":
        from parlor.gamehost.wire.pictures import Pictures

        monkeypatch.setattr(Pictures, "shown", lambda self, event, viewer: event)
        monkeypatch.setattr(Pictures, "over", lambda self, table: True)
    else:
        from parlor.services.takefour import game as tk

        event_pb, game_pb = tk.game_event_pb, tk.game_pb  # the codec's own, patched over
        monkeypatch.setattr(
            tk,
            "game_event_pb",
            lambda e, info, viewer, reveal: event_pb(e, info, 0, True),
        )
        monkeypatch.setattr(  # ada's view for all (``reveal`` is for finished games' pasts)
            tk, "game_pb", lambda g, v, table, viewer, reveal=False: game_pb(g, v, table, 0)
        )
    for name in ("GetGame", "GetHistory", "WatchGame"):
        for who in VIEWERS:
            assert call_as(games, category, name, who), f"{name} as {who}: the leak went unnoticed"


# --- NATS: what the relay published, as anyone may read it ------------------------------------


@pytest.mark.parametrize("category", HIDDEN)
async def test_nats_carries_no_hidden_tile(
    games: Games, category: str, nats_url: str, subject_prefix: str, database_url: str
) -> None:
    games.live(category)  # the games played by the tests above, or one of its own
    nc = await nats.connect(nats_url)
    checked = 0
    try:
        for game_id in games.ids[category]:
            truth = games.truth(category, game_id)
            secrets = secrets_of(truth, None)
            stored = read_stream(database_url, f"{category}-{game_id}")
            sub = await nc.jetstream().subscribe(
                f"{subject_prefix}.{category}.{game_id}.*", ordered_consumer=True
            )
            published = [await sub.next_msg(timeout=10) for _ in stored]
            with pytest.raises(nats.errors.TimeoutError):
                await sub.next_msg(timeout=0.3)
            await sub.unsubscribe()
            if category == "upwords":
                from parlor.services.upwords.game import EVENT_TYPES as types
                from parlor.services.upwords.game import public
            else:
                from parlor.services.takefour.game import _TYPES as types
                from parlor.services.takefour.game import public
            for record, msg in zip(stored, published, strict=True):
                # the type a spectator is shown (a Take Four joker swap: a move)
                shown, _ = public(record.type, record.data)
                name = shown.rsplit(".", 1)[-1]
                assert msg.subject == f"{subject_prefix}.{category}.{game_id}.{name}"
                assert msg.headers["Parlor-Event-Type"] == shown
                assert int(msg.headers["Parlor-Version"]) == record.version
                if truth.ended_at is not None and record.version >= truth.ended_at:
                    continue  # the end reveals the racks left, on purpose
                message = types[shown]()
                message.ParseFromString(msg.data)
                found = secrets.leaks(message, f"NATS {msg.subject} ", version=record.version)
                assert not found, describe(found)
                checked += 1
    finally:
        await nc.close()
    assert checked >= 10


# --- private games: every RPC of every game service, as an outsider --------------------------


@pytest.fixture(scope="module")
def private_games(client: Client) -> dict[str, tuple[str, str]]:
    """A private game per game type between ada and bob: (game id, spectator invite)."""
    made = {}
    for category in SEATED:
        game_id = f"private-{uuid.uuid4().hex[:12]}"
        request = generic(method(category, "CreateGame"), game_id)
        request.seats.extend(seats("ada", "bob"))  # type: ignore[attr-defined]
        request.private = True  # type: ignore[attr-defined]
        created = client.ok(category, "CreateGame", request, "service")
        assert created.spectator_invite
        made[category] = (game_id, created.spectator_invite)
    return made


@pytest.mark.parametrize(("category", "name"), PRIVATE_CASES)
def test_no_rpc_shows_an_outsider_a_private_game(
    client: Client, private_games: dict[str, tuple[str, str]], category: str, name: str
) -> None:
    game_id, invite = private_games[category]
    m = method(category, name)
    names_game = "game_id" in m.input_type.fields_by_name and name != "CreateGame"
    for wrong in ("", invite[:-1] + ("A" if invite[-1] != "A" else "B")):
        request = generic(m, game_id)
        if wrong and "invite" in m.input_type.fields_by_name:
            request.invite = wrong  # type: ignore[attr-defined]
        outcome = client.call(m, request, "cyd")
        assert outcome.code not in UNCHECKED, f"{name}: {outcome.describe()}"
        if names_game:  # answered as a game that does not exist is
            request.game_id = f"missing-{uuid.uuid4().hex[:12]}"  # type: ignore[attr-defined]
            # a refusal ends the stream at once; the longer deadline only keeps a busy
            # machine's slow refusal from reading as a stream left open
            missing = client.call(m, request, "cyd", stream_seconds=10)
            assert outcome.code != grpc.StatusCode.OK, name
            assert (outcome.code, reason_of(outcome.error)) == (  # type: ignore[arg-type]
                missing.code,
                reason_of(missing.error),  # type: ignore[arg-type]
            ), f"{name}: {outcome.describe()} / missing: {missing.describe()}"
        said = " ".join(str(item) for item in outcome.items)
        if outcome.error is not None:
            said += f" {outcome.error.details()} {outcome.error.trailing_metadata()}"  # type: ignore[attr-defined]
        assert invite not in said, name
        if not names_game:
            assert game_id not in said, name
    # ... and its seats see it (the invite too, in GetGame).
    if name == "GetGame":
        seen = client.ok(category, "GetGame", generic(m, game_id), "bob")
        assert seen.spectator_invite == invite
        invited = generic(m, game_id)
        invited.invite = invite  # type: ignore[attr-defined]
        assert client.ok(category, "GetGame", invited, "cyd").spectator_invite == ""


async def test_nats_carries_no_spectator_invite(
    private_games: dict[str, tuple[str, str]], nats_url: str, subject_prefix: str
) -> None:
    nc = await nats.connect(nats_url)
    try:
        for category, (game_id, invite) in private_games.items():
            sub = await nc.jetstream().subscribe(
                f"{subject_prefix}.{category}.{game_id}.*", ordered_consumer=True
            )
            first = await sub.next_msg(timeout=10)  # the creating events carry the record
            seen = [first]
            with contextlib.suppress(nats.errors.TimeoutError):
                while True:
                    seen.append(await sub.next_msg(timeout=0.3))
            await sub.unsubscribe()
            for msg in seen:
                assert invite not in str(msg.headers), msg.subject
                assert invite.encode() not in msg.data, msg.subject
            assert "private" in str(first.headers)  # the record travels, without the invite
    finally:
        await nc.close()


# --- challenges: only the players a challenge names see it -----------------------------------


CHALLENGES = next(s for s in SERVICES if s.full_name == "parlor.challenges.v1.ChallengeService")


def test_no_challenge_rpc_shows_an_outsider_a_challenge(
    client: Client, served: tuple[Server, AuthSettings], database_url: str
) -> None:
    from parlor.challenges.v1 import challenges_pb2 as ch

    _, auth = served
    ada, bob = (f"guest-{uuid.uuid4().hex[:16]}" for _ in range(2))
    client.tokens[ada], client.tokens[bob] = issue_token(auth, ada), issue_token(auth, bob)
    create = CHALLENGES.methods_by_name["CreateChallenge"]
    offer = ch.CreateChallengeRequest(game_type="connect4x4", invitees=[bob])
    made = client.call(create, offer, ada)
    assert made.error is None, made.describe()
    challenge_id = made.items[0].challenge.challenge_id
    for m in CHALLENGES.methods:
        request = GetMessageClass(m.input_type)()
        names_it = "challenge_id" in m.input_type.fields_by_name
        if names_it:
            request.challenge_id = challenge_id  # type: ignore[attr-defined]
        before = stored_position(database_url)
        outcome = client.call(m, request, "cyd")
        assert outcome.code not in UNCHECKED, f"{m.name}: {outcome.describe()}"
        if names_it:
            assert (outcome.code, reason_of(outcome.error)) == (  # type: ignore[arg-type]
                grpc.StatusCode.NOT_FOUND,
                "CHALLENGE_NOT_FOUND",
            ), m.name
            assert stored_position(database_url) == before, m.name
        said = " ".join(str(item) for item in outcome.items)
        if outcome.error is not None:
            said += f" {outcome.error.details()} {outcome.error.trailing_metadata()}"  # type: ignore[attr-defined]
        for secret in (challenge_id, ada, bob):
            assert secret not in said, m.name
    # ... and its players see it.
    get = CHALLENGES.methods_by_name["GetChallenge"]
    for who in (ada, bob):
        seen = client.call(get, ch.GetChallengeRequest(challenge_id=challenge_id), who)
        assert seen.error is None, seen.describe()


# --- tokens: every RPC of every installed service --------------------------------------------


def _request_for(games: Games, full_name: str) -> Message:
    """A request that would act if the token were good: the table's for bob, else generic."""
    service, _, name = full_name.rpartition(".")
    category = service.split(".")[1]
    if category in SEATED and (category, name) in TABLE:
        return games.requests(category, name, "bob")[0]
    m = next(m for s in SERVICES for m in s.methods if m.full_name == full_name)
    return generic(m, games.live(category) if category in SEATED else "")


@pytest.mark.parametrize("full_name", TOKEN_CASES)
def test_every_rpc_needs_a_good_token(games: Games, database_url: str, full_name: str) -> None:
    m = next(m for s in SERVICES for m in s.methods if m.full_name == full_name)
    path = f"/{m.containing_service.full_name}/{m.name}"
    request = _request_for(games, full_name)
    for who in ("none", "forged"):
        before = stored_position(database_url)
        outcome = games.client.call(m, request, who)
        if path == GUEST_TOKEN_METHOD and who == "none":
            assert outcome.error is None, outcome.describe()
        elif path in {*SIGN_IN_METHODS, BOT_SECRET_METHOD} and who == "none":
            # served, and refused for what the request lacks (no provider, state, token or
            # bot secret)
            assert outcome.error is not None, outcome.describe()
            assert reason_of(outcome.error) not in {"TOKEN_MISSING", "TOKEN_INVALID"}, (
                outcome.describe()
            )
        else:
            assert outcome.code == grpc.StatusCode.UNAUTHENTICATED, f"{who}: {outcome.describe()}"
            assert reason_of(outcome.error) in {"TOKEN_MISSING", "TOKEN_INVALID"}  # type: ignore[arg-type]
        assert stored_position(database_url) == before, (
            f"{full_name} as {who} stored events: {stored_since(database_url, before)}"
        )


# --- seats: no one acts for another seat, and a spectator does not act at all ----------------


@pytest.mark.parametrize(("category", "name"), ACTING_CASES)
def test_no_one_acts_for_another_seat(
    games: Games, database_url: str, category: str, name: str
) -> None:
    m = method(category, name)
    games.live(category)
    attempts: list[tuple[str, Message, set[str]]] = []
    for request in games.requests(category, name, "cyd")[:1]:
        attempts.append(("cyd", request, {"NOT_SEATED"}))
        if "seat" in m.input_type.fields_by_name:
            as_ada = type(request)()
            as_ada.CopyFrom(request)
            as_ada.seat = ADA  # type: ignore[attr-defined]
            attempts.append(("cyd", as_ada, {"NOT_YOUR_SEAT"}))
    if "seat" in m.input_type.fields_by_name:
        for request in games.requests(category, name, "bob")[:1]:
            request.seat = ADA  # type: ignore[attr-defined]
            attempts.append(("bob", request, {"NOT_YOUR_SEAT"}))
    # Replaying a command id ada used must not let anyone past the seat check either.
    for who, request, reasons in list(attempts):
        if "command_id" in m.input_type.fields_by_name:
            replayed = type(request)()
            replayed.CopyFrom(request)
            replayed.command_id = ADAS_COMMAND  # type: ignore[attr-defined]
            attempts.append((who, replayed, reasons))
    assert attempts
    for who, request, reasons in attempts:
        before = stored_position(database_url)
        outcome = games.client.call(m, request, who)
        said = f"{who} {request}: {outcome.describe()}"
        assert outcome.code == grpc.StatusCode.PERMISSION_DENIED, said
        assert reason_of(outcome.error) in reasons, said  # type: ignore[arg-type]
        assert stored_position(database_url) == before, (
            f"{name} as {who} stored events: {stored_since(database_url, before)}"
        )


def test_the_games_checked_had_hidden_state(games: Games) -> None:
    """The secrets checks above mean something only if there were secrets to find."""
    for category in HIDDEN:
        games.live(category)
        for game_id in games.ids[category]:
            truth = games.truth(category, game_id)
            for who, viewer in VIEWERS.items():
                s = (upwords_secrets if category == "upwords" else takefour_secrets)(truth, viewer)
                assert s.forbidden_sets, f"{category} {game_id}: nothing hidden from {who}"
                assert s.per_event, f"{category} {game_id}: no secret events for {who}"


# --- chat: every ChatService RPC beside the games with hidden information ---------------------

CHAT = next(s for s in SERVICES if s.full_name == "parlor.chat.v1.ChatService")
CHAT_CASES = [
    pytest.param(category, m.name, id=f"chat.{category}.{m.name}")
    for category in HIDDEN
    for m in CHAT.methods
]


CHAT_SAID: dict[str, Any] = {}
"""ada's message in each live game's players' room, by game id."""


def chat_requests(games: Games, category: str, name: str, who: str) -> list[Message]:
    """Requests naming the live game's players' and spectators' rooms, each field filled."""
    from parlor.chat.v1 import chat_pb2 as cpb

    game_id = games.live(category)
    players = cpb.Room(kind=cpb.ROOM_KIND_PLAYERS, game_type=category, game_id=game_id)
    said = CHAT_SAID.get(game_id)
    if said is None:  # once a game: chat's rate limits hold here too
        # ada's chat may have been switched off by another test on this database (the fuzz,
        # or this file's SetChatEnabled case): a player's own setting, turned on again
        games.client.ok_chat("SetChatEnabled", cpb.SetChatEnabledRequest(enabled=True), "ada")
        said = CHAT_SAID[game_id] = games.client.ok_chat(
            "PostMessage", cpb.PostMessageRequest(room=players, text="good luck"), "ada"
        )
    m = CHAT.methods_by_name[name]
    fields = set(m.input_type.fields_by_name)
    requests = []
    for kind in (cpb.ROOM_KIND_PLAYERS, cpb.ROOM_KIND_SPECTATORS):
        request: Any = GetMessageClass(m.input_type)()
        if "room" in fields:
            request.room.CopyFrom(cpb.Room(kind=kind, game_type=category, game_id=game_id))
        if "text" in fields:
            request.text = f"hello from {who}"
        if "message_id" in fields:
            request.message_id = said.message.message_id
        if "player_id" in fields:
            request.player_id = "ada"
        if "seconds" in fields:
            request.seconds = 60
        if "enabled" in fields:
            request.enabled = True
        requests.append(request)
    return requests


@pytest.mark.parametrize(("category", "name"), CHAT_CASES)
def test_no_chat_rpc_shows_an_opponent_or_a_spectator_a_hidden_tile(
    games: Games, category: str, name: str
) -> None:
    """A message is text: no room, stream or refusal carries a seat's tiles or the bag."""
    m = CHAT.methods_by_name[name]
    for who in ("cyd", "bob"):
        found: list[str] = []
        for request in chat_requests(games, category, name, who):
            outcome = games.client.call(m, request, who)
            assert outcome.code not in UNCHECKED, f"{name} as {who}: {outcome.describe()}"
            truth = games.truth(category)
            found += outcome_leaks(secrets_of(truth, VIEWERS[who]), outcome, f"{name} as {who}")
        assert not found, describe(found)


async def test_nats_carries_no_chat_text(
    games: Games, nats_url: str, subject_prefix: str, database_url: str
) -> None:
    """The chat lane tells other replicas that a room has news, and nothing of what was said."""
    for category in HIDDEN:
        chat_requests(games, category, "PostMessage", "bob")  # ada has said something
    nc = await nats.connect(nats_url)
    try:
        sub = await nc.jetstream().subscribe(f"{subject_prefix}.chat.>", ordered_consumer=True)
        seen = 0
        with contextlib.suppress(nats.errors.TimeoutError):
            while True:
                msg = await sub.next_msg(timeout=3)
                assert msg.data == b"", msg.subject
                seen += 1
        await sub.unsubscribe()
    finally:
        await nc.close()
    assert seen >= 2
