"""The bridge on real services: JSON calls, errors as HTTP with the gRPC code and reason,
server streams as Server-Sent Events whose ids are versions, resumed with Last-Event-ID."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from leaks import secrets_in

pytestmark = pytest.mark.integration

C4 = "/api/parlor.connect4x4.v1.Connect4x4Service"


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


async def guest(client: httpx.AsyncClient, name: str) -> dict[str, Any]:
    reply = await client.post(
        "/api/parlor.identity.v1.IdentityService/IssueGuestToken", json={"displayName": name}
    )
    assert reply.status_code == 200, reply.text
    body: dict[str, Any] = reply.json()
    return body


async def events(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    """Each SSE event of a response as {"event", "id", "data"}; comments are skipped."""
    fields: dict[str, Any] = {}
    async for line in response.aiter_lines():
        if line == "":
            if "data" in fields:
                yield {"event": fields.get("event", "message"), "id": fields.get("id"), **fields}
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(": ")
            fields[name] = json.loads(value) if name == "data" else value


async def collect(
    client: httpx.AsyncClient, path: str, body: dict[str, Any], headers: dict[str, str]
) -> list[dict[str, Any]]:
    """A stream's events up to its end or error event."""
    found = []
    async with client.stream("POST", path, json=body, headers=headers) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        async for event in events(response):
            found.append(event)
            if event["event"] in ("end", "error"):
                break
    return found


async def new_game(
    client: httpx.AsyncClient, player: dict[str, Any], bot: str = "bot:random"
) -> dict[str, Any]:
    """A Connect 4x4 game of ``player`` (seat 0) against ``bot``, made through the bridge."""
    seats = [
        {"index": 0, "playerId": player["playerId"], "displayName": "Ada"},
        {"index": 1, "playerId": bot, "displayName": "Bot"},
    ]
    created = await client.post(
        f"{C4}/CreateGame",
        json={"seats": seats, "commandId": str(uuid.uuid4())},
        headers=bearer(player["token"]),
    )
    assert created.status_code == 200, created.text
    game: dict[str, Any] = created.json()["game"]
    return game


async def finished_game(client: httpx.AsyncClient, player: dict[str, Any]) -> tuple[str, list[str]]:
    """A whole game against a bot through the bridge, playing the first legal move each turn."""
    game = await new_game(client, player)
    moves = []
    while game.get("status") == "STATUS_IN_PROGRESS":
        move = game["legalMoves"][0]
        played = await client.post(
            f"{C4}/PlayMove",
            json={"gameId": game["gameId"], "move": move, "commandId": str(uuid.uuid4())},
            headers=bearer(player["token"]),
        )
        assert played.status_code == 200, played.text
        game = played.json()["game"]
        moves.append(move)
    return game["gameId"], moves


async def test_unary_calls_and_refusals_carry_code_message_and_reason(start_web: Any) -> None:
    async with start_web("matchmaking", "connect4x4") as web:
        async with httpx.AsyncClient(base_url=web.url, timeout=30) as client:
            ada = await guest(client, "Ada")
            assert ada["playerId"].startswith("guest-")
            game = await new_game(client, ada, "bot:greedy")
            assert game["status"] == "STATUS_IN_PROGRESS"
            assert len(game["front"]) == 42  # proto3 JSON: camelCase, enums by name

            bad = await client.post(
                f"{C4}/PlayMove",
                json={"gameId": game["gameId"], "move": "zz", "commandId": str(uuid.uuid4())},
                headers=bearer(ada["token"]),
            )
            assert bad.status_code == 400
            body = bad.json()
            assert body["status"] == "INVALID_ARGUMENT"
            assert body["code"] == 3
            assert body["reason"] == "INVALID_NOTATION"
            assert body["message"]
            assert body["details"][0]["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"

            # Someone else's game: the service's seat check, passed through untouched.
            bob = await guest(client, "Bob")
            theirs = await client.post(
                f"{C4}/PlayMove",
                json={"gameId": game["gameId"], "move": "df", "commandId": str(uuid.uuid4())},
                headers=bearer(bob["token"]),
            )
            assert theirs.status_code == 403
            assert theirs.json()["status"] == "PERMISSION_DENIED"
            assert theirs.json()["reason"] in ("NOT_SEATED", "NOT_YOUR_SEAT")

            anonymous = await client.post(f"{C4}/GetGame", json={"gameId": game["gameId"]})
            assert anonymous.status_code == 401
            assert anonymous.json()["reason"] == "TOKEN_MISSING"

            forged = await client.post(
                f"{C4}/GetGame", json={"gameId": game["gameId"]}, headers=bearer("x.y.z")
            )
            assert forged.status_code == 401
            assert forged.json()["status"] == "UNAUTHENTICATED"

            missing = await client.post(
                f"{C4}/GetGame", json={"gameId": "no-such-game"}, headers=bearer(ada["token"])
            )
            assert missing.status_code == 404
            assert missing.json()["reason"] == "GAME_NOT_FOUND"


async def test_what_the_bridge_refuses_itself(start_web: Any) -> None:
    async with start_web("connect4x4") as web:
        async with httpx.AsyncClient(base_url=web.url, timeout=30) as client:
            as_json = {"content-type": "application/json"}
            broken = await client.post(f"{C4}/GetGame", content=b"{not json", headers=as_json)
            assert broken.status_code == 400
            assert broken.json()["reason"] == "BAD_JSON"
            unknown_field = await client.post(f"{C4}/GetGame", json={"gameIdd": "x"})
            assert unknown_field.status_code == 400
            assert unknown_field.json()["reason"] == "BAD_JSON"
            nowhere = await client.post(f"{C4}/NoSuchMethod", json={})
            assert nowhere.status_code == 404
            assert nowhere.json()["reason"] == "UNKNOWN_METHOD"
            # client streaming and GET are not bridged
            get = await client.get(f"{C4}/GetGame")
            assert get.status_code in (404, 405)
            huge = await client.post(
                f"{C4}/GetGame", content=b" " * (2 * 1024 * 1024), headers=as_json
            )
            assert huge.status_code == 413
            form = await client.post(f"{C4}/GetGame", data={"gameId": "g"})
            assert (form.status_code, form.json()["reason"]) == (415, "NOT_JSON")
            health = await client.get("/healthz")
            assert health.status_code == 200
            page = await client.get("/")
            assert page.status_code in (200, 503)  # the built client, or how to build it
            assert "content-security-policy" in page.headers


async def test_a_page_rebound_to_the_bridge_is_refused_by_its_host_name(
    start_web: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DNS rebinding: a site the developer visits points its own name at 127.0.0.1, and its
    scripts call the developer's `make run` as same-origin. Their requests carry the site's
    name as Host: refused, before any call is made; the names set in
    PARLOR_WEB_ALLOWED_HOSTS, localhost and IP addresses are answered."""
    monkeypatch.setenv("PARLOR_WEB_ALLOWED_HOSTS", "play.parlor.test")
    guest = "/api/parlor.identity.v1.IdentityService/IssueGuestToken"
    async with start_web("matchmaking") as web:
        port = web.url.rsplit(":", 1)[1]
        async with httpx.AsyncClient(base_url=web.url, timeout=30) as client:
            for host in (f"rebind.attacker.test:{port}", "attacker.test"):
                refused = await client.post(
                    guest, json={"displayName": "Eve"}, headers={"host": host}
                )
                assert refused.status_code == 403, refused.text
                assert refused.json()["reason"] == "HOST_NOT_ALLOWED"
                assert "token" not in refused.json()
            for host in (f"localhost:{port}", f"127.0.0.1:{port}", "play.parlor.test"):
                answered = await client.post(
                    guest, json={"displayName": "Ada"}, headers={"host": host}
                )
                assert answered.status_code == 200, answered.text
                assert answered.json()["token"]


async def test_a_header_grpc_cannot_carry_is_refused_not_a_call_that_never_ends(
    start_web: Any,
) -> None:
    """gRPC metadata is printable ASCII; a call given anything else (a tab, a byte over 0x7E,
    all legal in an HTTP header) never completed, holding the request, its connection and a
    stream the services never counted until the bridge stopped. The bridge refuses it."""
    async with start_web("connect4x4") as web:
        async with httpx.AsyncClient(base_url=web.url, timeout=10) as client:
            for value in (b"Bearer a\tb", b"Bearer \xe9t\xe9", b"Bearer " + b"t" * 9000):
                for method in ("GetGame", "WatchGame"):
                    reply = await client.post(
                        f"{C4}/{method}", json={"gameId": "g"}, headers={"authorization": value}
                    )
                    assert reply.status_code == 401, (value, method)
                    assert reply.json()["status"] == "UNAUTHENTICATED"
                    assert reply.json()["reason"] == "TOKEN_INVALID"


async def _sent_slowly(url: str, head: bytes, wait: float) -> bytes:
    """What the bridge answers (b"" when it just closes) to ``head`` sent and then nothing
    more, within ``wait`` seconds."""
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(head)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), wait)
    finally:
        writer.close()


async def test_a_request_sent_slowly_is_cut_off_but_a_stream_lives_on(
    start_web: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """uvicorn waits for a request's headers and body without end (its keep-alive timer
    stops at the first byte): a connection sending a byte a minute, or none at all, was held
    for ever, so a few thousand of them used up the bridge's sockets. Headers and body each
    have PARLOR_WEB_REQUEST_SECONDS; a stream's answer, once asked for, has no deadline."""
    monkeypatch.setenv("PARLOR_WEB_REQUEST_SECONDS", "1")
    async with start_web("matchmaking", "connect4x4") as web:
        assert await _sent_slowly(web.url, b"", 5) == b""
        partial_headers = b"POST /api/x/y HTTP/1.1\r\nhost: 127.0.0.1\r\n"
        assert await _sent_slowly(web.url, partial_headers, 5) == b""
        partial_body = (
            f"POST {C4}/GetGame HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
            "content-length: 100\r\n\r\n{"
        ).encode()
        answer = await _sent_slowly(web.url, partial_body, 5)
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:100]
        assert b'"reason":"REQUEST_TIMEOUT"' in answer

        async with httpx.AsyncClient(base_url=web.url, timeout=30) as client:
            ada = await guest(client, "Ada")
            game = await new_game(client, ada)
            watch = {"gameId": game["gameId"], "afterVersion": game["version"]}
            async with client.stream(
                "POST", f"{C4}/WatchGame", json=watch, headers=bearer(ada["token"])
            ) as response:
                await asyncio.sleep(2.5)  # quiet, past the request's deadline
                played = await client.post(
                    f"{C4}/PlayMove",
                    json={
                        "gameId": game["gameId"],
                        "move": game["legalMoves"][0],
                        "commandId": str(uuid.uuid4()),
                    },
                    headers=bearer(ada["token"]),
                )
                assert played.status_code == 200, played.text
                first = await anext(events(response))
                assert first["event"] == "message"


async def test_watch_ids_are_versions_and_last_event_id_resumes(start_web: Any) -> None:
    async with start_web("matchmaking", "connect4x4") as web:
        async with httpx.AsyncClient(base_url=web.url, timeout=60) as client:
            ada = await guest(client, "Ada")
            game_id, moves = await finished_game(client, ada)
            watch = {"gameId": game_id, "afterVersion": "0"}
            everything = await collect(client, f"{C4}/WatchGame", watch, bearer(ada["token"]))
            messages = [e for e in everything if e["event"] == "message"]
            assert everything[-1]["event"] == "end"
            versions = [int(e["id"]) for e in messages]
            assert versions == list(range(1, len(messages) + 1))
            assert [int(e["data"]["event"]["info"]["version"]) for e in messages] == versions
            notations = [e["data"]["event"].get("notation") for e in messages]
            assert moves[0] in notations

            # A reconnect sends the last id seen: the stream goes on after it, nothing twice.
            resumed = await collect(
                client,
                f"{C4}/WatchGame",
                watch,
                {**bearer(ada["token"]), "last-event-id": str(versions[4])},
            )
            again = [int(e["id"]) for e in resumed if e["event"] == "message"]
            assert again == versions[5:]

            replay = await collect(
                client,
                f"{C4}/ReplayGame",
                {"gameId": game_id},
                {**bearer(ada["token"]), "last-event-id": str(versions[-3])},
            )
            assert [int(e["id"]) for e in replay if e["event"] == "message"] == versions[-2:]

            bad_id = await client.post(
                f"{C4}/WatchGame",
                json=watch,
                headers={**bearer(ada["token"]), "last-event-id": "seven"},
            )
            assert bad_id.status_code == 400
            assert bad_id.json()["reason"] == "BAD_LAST_EVENT_ID"


async def test_a_stream_refused_by_the_service_ends_with_an_error_event(start_web: Any) -> None:
    async with start_web("connect4x4") as web:
        async with httpx.AsyncClient(base_url=web.url, timeout=30) as client:
            token = web.platform.token("someone")
            found = await collect(client, f"{C4}/WatchGame", {"gameId": "nope"}, bearer(token))
            assert found[-1]["event"] == "error"
            assert found[-1]["data"]["status"] == "NOT_FOUND"
            assert found[-1]["data"]["reason"] == "GAME_NOT_FOUND"


async def test_a_quiet_stream_answers_at_once_and_a_ticket_is_followed(
    start_web: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """WatchTicket says nothing for a while: the headers still come at once (not on the first
    message), then the ticket and its match arrive as events."""
    monkeypatch.setenv("PARLOR_MATCHMAKING_BOT_FILL_SECONDS", "0.5")
    monkeypatch.setenv("PARLOR_MATCHMAKING_ACCEPT_MINIMUM_SECONDS", "0")
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.1")
    async with start_web("matchmaking", "connect4x4") as web:
        async with httpx.AsyncClient(base_url=web.url, timeout=60) as client:
            ada = await guest(client, "Ada")
            ticket = await client.post(
                "/api/parlor.matchmaking.v1.MatchmakingService/CreateTicket",
                json={"gameType": "connect4x4", "minPlayers": 2, "maxPlayers": 2},
                headers=bearer(ada["token"]),
            )
            assert ticket.status_code == 200, ticket.text
            ticket_id = ticket.json()["ticket"]["ticketId"]
            found = await collect(
                client,
                "/api/parlor.matchmaking.v1.MatchmakingService/WatchTicket",
                {"ticketId": ticket_id},
                bearer(ada["token"]),
            )
            tickets = [e["data"]["ticket"] for e in found if e["event"] == "message"]
            assert tickets[-1]["status"] == "TICKET_STATUS_MATCHED"
            assert tickets[-1]["matchId"]
            assert all(e["id"] is None for e in found)  # no versions: a reconnect starts again


async def test_what_an_opponent_and_a_spectator_receive_holds_no_hidden_tile(
    start_web: Any,
) -> None:
    """Take Four through the bridge: the player gets her hand and grid; the bot's seat and a
    spectator get counts only, in every answer and every streamed event."""
    async with start_web("matchmaking", "dictionary", "takefour") as web:
        async with httpx.AsyncClient(base_url=web.url, timeout=60) as client:
            tf = "/api/parlor.takefour.v1.TakeFourService"
            ada, bob = await guest(client, "Ada"), await guest(client, "Bob")
            seats = [
                {"index": 0, "playerId": ada["playerId"], "displayName": "Ada"},
                {"index": 1, "playerId": "bot:easy", "displayName": "Bot"},
            ]
            created = await client.post(
                f"{tf}/CreateGame",
                json={"seats": seats, "commandId": str(uuid.uuid4())},
                headers=bearer(ada["token"]),
            )
            assert created.status_code == 200, created.text
            game = created.json()["game"]
            hand = game["seats"][0]["hand"]
            placed = await client.post(
                f"{tf}/PlaceTile",
                json={
                    "gameId": game["gameId"],
                    "tile": hand[0].get("id", 0),  # proto3 JSON leaves 0 out
                    "x": 0,
                    "y": 0,
                    "letter": "E" if hand[0]["face"] == "?" else "",
                    "commandId": str(uuid.uuid4()),
                },
                headers=bearer(ada["token"]),
            )
            assert placed.status_code == 200, placed.text
            version = int(placed.json()["game"]["version"])

            async def received(token: str) -> list[Any]:
                docs = []
                for method in ("GetGame", "GetHistory"):
                    reply = await client.post(
                        f"{tf}/{method}", json={"gameId": game["gameId"]}, headers=bearer(token)
                    )
                    assert reply.status_code == 200, reply.text
                    docs.append(reply.json())
                body = {"gameId": game["gameId"]}
                async with client.stream(
                    "POST", f"{tf}/WatchGame", json=body, headers=bearer(token)
                ) as response:
                    async for event in events(response):
                        docs.append(event["data"])
                        if int(event["id"] or 0) >= version:
                            break
                return docs

            mine = await received(ada["token"])
            assert any(secrets_in(doc) for doc in mine), "the player's own hand should be there"
            seen = await received(bob["token"])
            assert len(seen) >= version + 2
            assert [path for doc in seen for path in secrets_in(doc)] == []
            tile = json.dumps(hand[0])
            assert tile not in json.dumps(seen)


async def test_a_service_that_is_down_is_unavailable_not_an_error_of_the_page() -> None:
    """Nothing listens where the bridge calls: 503 UNAVAILABLE for a call, and an error event
    with UNAVAILABLE for a stream, which the web client takes as "reconnect and resume".

    What gRPC's client says of it names the services' addresses, ports and host names
    ("ipv4:10.244.3.17:50051: Connection refused", "errors resolving upwords:50051"): the
    browser gets the bridge's own words and a reason, never those."""
    import asyncio
    import contextlib

    from parlor.devinfra.embedded import free_port
    from parlor.webgateway.component import Channels, bind, serve_http

    sock = bind("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    port = free_port()
    routes = {"parlor.upwords.v1": "upwords-internal.invalid:50051"}
    task = asyncio.create_task(serve_http(sock, Channels(f"127.0.0.1:{port}", routes), None))
    up = "/api/parlor.upwords.v1.UpwordsService"
    try:
        async with httpx.AsyncClient(base_url=url, timeout=60) as client:
            down = await client.post(f"{C4}/GetGame", json={"gameId": "g"}, headers=bearer("t"))
            assert down.status_code == 503
            assert down.json()["status"] == "UNAVAILABLE"
            assert down.json()["reason"] == "SERVICE_UNAVAILABLE"
            found = await collect(client, f"{C4}/WatchGame", {"gameId": "g"}, bearer("t"))
            assert found[-1]["event"] == "error"
            assert found[-1]["data"]["status"] == "UNAVAILABLE"
            assert found[-1]["data"]["reason"] == "SERVICE_UNAVAILABLE"
            unresolved = await client.post(
                f"{up}/GetGame", json={"gameId": "g"}, headers=bearer("t")
            )
            assert unresolved.status_code == 503
            for said in (down.text, json.dumps(found), unresolved.text):
                assert str(port) not in said
                assert "127.0.0.1" not in said
                assert "upwords-internal" not in said
                assert "ipv4" not in said
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_a_stream_from_a_service_that_stops_answering_ends_with_an_error_event(
    start_web: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game's service whose host dies without closing the connection (no FIN, no reset)
    answers nothing, and a quiet watch sends nothing that could notice: the browser got SSE
    keepalives and never learned. The bridge's channel pings; an unanswered ping ends the
    stream with UNAVAILABLE, which the web client takes as "reconnect and resume"."""
    import contextlib

    from kits.proxy import SilentProxy

    from parlor.webgateway.component import Channels, bind, serve_http

    monkeypatch.setenv("PARLOR_GRPC_KEEPALIVE_SECONDS", "1")  # the services' and the bridge's
    monkeypatch.setenv("PARLOR_GRPC_KEEPALIVE_TIMEOUT_SECONDS", "1")
    async with start_web("matchmaking", "connect4x4") as web:
        async with SilentProxy(web.platform.server.port) as proxy:
            sock = bind("127.0.0.1", 0)
            url = f"http://127.0.0.1:{sock.getsockname()[1]}"
            bridge = asyncio.create_task(serve_http(sock, Channels(proxy.target, {}), None))
            try:
                async with httpx.AsyncClient(base_url=url, timeout=60) as client:
                    ada = await guest(client, "Ada")
                    game = await new_game(client, ada)
                    watch = {"gameId": game["gameId"], "afterVersion": "0"}
                    async with client.stream(
                        "POST", f"{C4}/WatchGame", json=watch, headers=bearer(ada["token"])
                    ) as response:
                        found = events(response)
                        assert (await anext(found))["event"] == "message"
                        proxy.silence()  # the service's host is gone
                        started = asyncio.get_running_loop().time()
                        while (event := await asyncio.wait_for(anext(found), 10))["event"] == (
                            "message"
                        ):
                            pass  # the rest of what had come before
                        assert asyncio.get_running_loop().time() - started < 10
                        assert event["event"] == "error"
                        assert event["data"]["status"] == "UNAVAILABLE"
                        assert event["data"]["reason"] == "SERVICE_UNAVAILABLE"
            finally:
                bridge.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await bridge


async def test_a_private_game_through_the_bridge_is_seen_by_its_seat_and_invitees_only(
    start_web: Any,
) -> None:
    """The bridge decides nothing: a private game is a missing game to an outsider (404,
    GAME_NOT_FOUND), in JSON and in a watch's event stream, and readable with its invite."""
    async with start_web("matchmaking", "connect4x4") as web:
        async with httpx.AsyncClient(base_url=web.url, timeout=30) as client:
            ada, bob = await guest(client, "Ada"), await guest(client, "Bob")
            seats = [{"playerId": ada["playerId"]}, {"playerId": "bot:random"}]
            created = await client.post(
                f"{C4}/CreateGame",
                json={"seats": seats, "private": True},
                headers=bearer(ada["token"]),
            )
            assert created.status_code == 200, created.text
            game_id = created.json()["game"]["gameId"]
            invite = created.json()["spectatorInvite"]
            assert invite

            hidden = await client.post(
                f"{C4}/GetGame", json={"gameId": game_id}, headers=bearer(bob["token"])
            )
            assert hidden.status_code == 404
            assert hidden.json()["reason"] == "GAME_NOT_FOUND"
            assert invite not in hidden.text
            listed = await client.post(f"{C4}/ListGames", json={}, headers=bearer(bob["token"]))
            assert game_id not in listed.text
            watched = await collect(
                client, f"{C4}/WatchGame", {"gameId": game_id}, bearer(bob["token"])
            )
            assert [e["event"] for e in watched] == ["error"]
            assert watched[0]["data"]["reason"] == "GAME_NOT_FOUND"

            seen = await client.post(
                f"{C4}/GetGame",
                json={"gameId": game_id, "invite": invite},
                headers=bearer(bob["token"]),
            )
            assert seen.status_code == 200, seen.text
            assert "spectatorInvite" not in seen.json()
            async with client.stream(
                "POST",
                f"{C4}/WatchGame",
                json={"gameId": game_id, "invite": invite},
                headers=bearer(bob["token"]),
            ) as response:
                async for event in events(response):
                    assert event["event"] == "message"
                    assert event["id"] == "1"
                    break
