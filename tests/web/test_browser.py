"""The web client in headless Chromium: each test starts the services and the bridge here, runs
one script of ``web/tests`` (playwright-core driving Debian's ``chromium``), and checks what
the page did against the services. Screenshots go to a folder of the test process's own under
the system's temp directory, removed when its session ends (``shots``), so a test run leaves
the checkout as it was and runs beside it (other workers, other checkouts) never write the
pictures it checks;
``PARLOR_SCREENSHOTS=docs/screenshots`` takes the documentation's pictures again.

Chromium is never downloaded: without a ``chromium`` on the PATH these tests say what to
install and are skipped on a developer's machine; in CI (``CI`` set) they fail.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from leaks import received_json, secrets_in
from missing import stop_if_missing
from shots import SCREENSHOTS

from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.takefour.v1 import takefour_pb2 as tf
from parlor.takefour.v1 import takefour_pb2_grpc as tf_grpc

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"

BUILT = ROOT / "libs" / "webgateway" / "src" / "parlor" / "webgateway" / "static" / "index.html"


def browser() -> str:
    """The chromium binary, or a clear failure (CI) / skip (elsewhere) naming what is missing."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    problems = []
    if not found:
        problems.append("chromium is not installed (Debian: apt-get install -y chromium)")
    if not shutil.which("node"):
        problems.append("node is not installed (Node.js 18+ with npm)")
    if not (WEB / "node_modules" / "playwright-core").is_dir():
        problems.append("web/node_modules is missing: run make install")
    if not BUILT.is_file():
        problems.append("the web client is not built: run make install")
    stop_if_missing(problems, "browser tests")
    assert found is not None
    return found


async def run_script(script: str, web: Any, **env: str) -> dict[str, Any]:
    """Run web/tests/<script> against the bridge; its last output line is its JSON report."""
    process = await asyncio.create_subprocess_exec(
        shutil.which("node") or "node",
        f"tests/{script}",
        cwd=WEB,
        env={
            **os.environ,
            "CHROMIUM": browser(),
            "PARLOR_WEB_URL": web.url,
            "PARLOR_SCREENSHOTS": str(SCREENSHOTS),
            **env,
        },
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 240)
    text = out.decode()
    assert process.returncode == 0, f"{script} failed:\n{text}\n{err.decode()}"
    report: dict[str, Any] = json.loads(text.strip().splitlines()[-1])
    return report


def drops_of(history: Any, seat: int) -> list[str]:
    """The checkers and blockers a seat dropped in a Connect 4x4 game's history, in notation."""
    return [
        e.notation
        for e in history.events
        if e.WhichOneof("body") in ("checker_dropped", "blocker_dropped")
        and getattr(e, e.WhichOneof("body")).seat == seat
    ]


async def test_a_guest_plays_a_whole_connect4x4_game_against_a_bot_and_replays_it(
    start_web: Any,
) -> None:
    browser()
    async with start_web("matchmaking", "connect4x4") as web:
        report = await run_script("connect4x4.mjs", web, PARLOR_REPLAY_AT="6")
        channel = web.platform.channel("anyone")
        stub = c4_grpc.Connect4x4ServiceStub(channel)
        game = (await stub.GetGame(c4.GetGameRequest(game_id=report["gameId"]))).game
        # the game the page played is over, and its moves are the ones clicked
        assert game.status in (c4.STATUS_WON, c4.STATUS_TIED)
        assert game.seats[1].player_id == "bot:random"
        history = await stub.GetHistory(c4.GetHistoryRequest(game_id=report["gameId"]))
        assert drops_of(history, 0) == report["moves"]
        assert len(report["moves"]) >= 4
        # every move appeared in the page's log without a reload, naming the player who made it
        said = [
            f"{game.seats[getattr(e, e.WhichOneof('body')).seat].display_name}: {e.notation} ("
            for e in history.events
            if e.notation
        ]
        assert len(report["log"]) == len(said)
        assert [line[: len(start)] for line, start in zip(report["log"], said, strict=True)] == said
        if game.status == c4.STATUS_WON:
            winner = "You win" if game.winner == 0 else "wins"
            assert winner in report["status"]
            assert report["lineCells"] >= 4  # the line, on each side it has checkers
        else:
            assert "tie" in report["status"]

        # the replay counts moves as the move list does: the slider at move N shows the game
        # as it was after its N-th move (and the bot's events up to the next move)
        notated = [e for e in history.events if e.notation]
        at_n = report["atN"]
        assert report["positions"] == len(notated) + 1  # the start, then each move
        assert at_n["counter"] == f"move 6 of {len(notated)}"
        assert at_n["version"] == notated[6].info.version - 1
        then = (
            await stub.GetGame(c4.GetGameRequest(game_id=report["gameId"], version=at_n["version"]))
        ).game
        checkers = sum(h.content == c4.CONTENT_CHECKER for h in [*then.front, *then.back])
        assert at_n["checkers"] == checkers
        assert at_n["note"] == report["log"][5] == at_n["current"][0]
        assert at_n["valuetext"] == f"move 6 of {len(notated)}: {report['log'][5]}"
        assert report["back"] == notated[5].info.version - 1
        assert report["first"]["position"] == 1
        assert report["first"]["checkers"] == 1
        assert report["start"] == {"position": 0, "checkers": 0, "note": "the start"}
        # the export: the game's own text notation (its seats, a move a line, how it ended)
        export = await stub.ExportGame(c4.ExportGameRequest(game_id=report["gameId"]))
        assert report["exported"] == export.text.strip().split("\n")
        played = [line for line in report["exported"] if not line.startswith(("[", "#"))]
        assert played == [f"{getattr(e, e.WhichOneof('body')).seat} {e.notation}" for e in notated]
        assert report["exported"][-1].startswith("# ")
        assert report["file"].endswith(".txt")
        await channel.close()
    assert (SCREENSHOTS / "connect4x4.png").stat().st_size > 10_000
    assert (SCREENSHOTS / "connect4x4-replay.png").is_file()


async def test_upwords_refusal_then_play_and_a_spectator_sees_it_live_without_any_rack(
    start_web: Any,
) -> None:
    from parlor.kit import client
    from parlor.upwords.v1 import upwords_pb2 as uw
    from parlor.upwords.v1 import upwords_pb2_grpc as uw_grpc

    browser()
    async with start_web("matchmaking", "dictionary", "upwords") as web:
        report = await run_script("upwords.mjs", web)
        word = report["word"]
        # refused off the centre, with the rule's reason shown; then accepted at the centre
        assert "FIRST_PLAY_OFF_CENTRE" in report["refusal"], report["refusal"]
        assert report["notice"] == ""
        async with client.channel(web.platform.target, report["token"]) as channel:
            stub = uw_grpc.UpwordsServiceStub(channel)
            history = await stub.GetHistory(uw.GetHistoryRequest(game_id=report["gameId"]))
            game = (await stub.GetGame(uw.GetGameRequest(game_id=report["gameId"]))).game
            at = uw.GetGameRequest(game_id=report["gameId"], version=report["watcherVersion"])
            then = (await stub.GetGame(at)).game
        plays = [e.word_played for e in history.events if e.WhichOneof("body") == "word_played"]
        assert plays[0].seat == 0
        assert [(p.row, p.col, p.tile) for p in plays[0].placements] == [
            (4, 4 + i, letter.upper()) for i, letter in enumerate(word)
        ]
        assert not any(p.row == 0 for play in plays if play.seat == 0 for p in play.placements)
        # the refusal appended nothing: the accepted play is the event right after the page's
        first_play = next(e for e in history.events if e.WhichOneof("body") == "word_played")
        assert first_play.info.version == report["versionAfterRefusal"] + 1

        # the spectator: the word appeared live, no reload, no rack drawn for them
        assert report["watcherRack"] == 0
        assert report["reloads"] == 1
        # each square shows its top tile and its height, as the game was at the page's version
        shown = report["watcherBoard"]
        assert shown[44 : 44 + len(word)] != [""] * len(word)
        assert shown == [
            f"{stack.tiles[-1]}{len(stack.tiles)}" if stack.tiles else "" for stack in then.board
        ]
        assert report["watcherVersion"] >= first_play.info.version

        # every byte the spectator's page received: the game came through, no rack or bag did
        seen = received_json(report["spectatorReceived"])
        assert any("wordPlayed" in json.dumps(doc) for doc in seen), "the stream was not captured"
        assert [path for doc in seen for path in secrets_in(doc)] == []
        assert json.dumps(list(game.rack)) not in report["spectatorReceived"]
        assert all(tile not in ("", None) for tile in report["rackAfter"])
        # the player's own page did get her rack: the search above can see one
        assert any(secrets_in(doc) for doc in received_json(report["playerReceived"]))
    assert (SCREENSHOTS / "upwords.png").is_file()
    assert (SCREENSHOTS / "upwords-spectator.png").is_file()


async def test_an_upwords_accept_refused_play_changed_redraws_the_game_from_get_game(
    start_web: Any,
) -> None:
    from parlor.kit import client
    from parlor.upwords.v1 import upwords_pb2 as uw
    from parlor.upwords.v1 import upwords_pb2_grpc as uw_grpc

    browser()
    async with start_web("matchmaking", "dictionary", "upwords") as web:
        report = await run_script("upwords-stale.mjs", web)
        async with client.channel(web.platform.target, report["token"]) as channel:
            stub = uw_grpc.UpwordsServiceStub(channel)
            history = await stub.GetHistory(uw.GetHistoryRequest(game_id=report["gameId"]))
    # the Accept naming another play was refused, its reason on the page
    assert "PLAY_CHANGED" in report["refusal"], report["refusal"]
    # then the page fetched the game and drew it at that version: the play still pending
    order = report["order"]
    answers = [i for i, t in enumerate(order) if t.startswith("AcceptPlay response")]
    assert len(answers) == 2, order
    assert not order[answers[0]].endswith(" 200"), order
    assert "GetGame response 200" in order[answers[0] : answers[1]], order
    fetched = report["refetched"]["game"]
    assert int(fetched["version"]) == report["versionAfterRefusal"]
    assert int(fetched["pending"]["number"]) == report["pendingPlay"] > 0
    # the play pending now, answered from the redrawn page: accepted, the refusal cleared
    assert report["secondPlay"] == report["pendingPlay"]
    assert report["notice"] == ""
    # (the bot's play, the one pending when the game was fetched again, accepted once)
    accepted = [
        e.play_accepted.seat for e in history.events if e.WhichOneof("body") == "play_accepted"
    ]
    assert accepted == [fetched["pending"].get("seat", 0)], [
        e.WhichOneof("body") for e in history.events
    ]


async def test_takefour_tiles_are_placed_moved_and_taken_back_by_clicking_then_the_game_left(
    start_web: Any,
) -> None:
    browser()
    async with start_web("matchmaking", "dictionary", "takefour") as web:
        report = await run_script("takefour.mjs", web)
        channel = web.platform.channel("anyone")
        request = tf.GetGameRequest(game_id=report["gameId"])
        game = (await tf_grpc.TakeFourServiceStub(channel).GetGame(request)).game
        await channel.close()
    assert "HAND_NOT_EMPTY" in report["refusal"], report["refusal"]
    assert report["placed"] == report["letter"]
    assert report["moved"] == ["", report["letter"]]
    assert report["handAfter"] == len(report["hand"])
    header, *rows = report["progress"]
    assert "in hand" in header
    assert len(rows) == 2  # Ada and the bot, each with counts and totals
    assert (SCREENSHOTS / "takefour.png").is_file()
    # left: asked first, then Ada's seat forfeited and the bot, the one seat left, won
    assert report["asked"].startswith("Leave this game?"), report["asked"]
    assert report["leaveAfter"] == 0  # no Leave on a game that is over
    assert game.phase == tf.PHASE_OVER
    bots = [i for i, s in enumerate(game.seats) if s.seat.player_id.startswith("bot:")]
    assert [i for i, s in enumerate(game.seats) if s.forfeited] == [1 - bots[0]]
    assert list(game.winners) == bots


async def test_two_guests_meet_in_a_private_lobby_and_see_each_others_moves_live(
    start_web: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    browser()
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.1")
    async with start_web("matchmaking", "connect4x4") as web:
        report = await run_script("lobby.mjs", web)
        stub = c4_grpc.Connect4x4ServiceStub(web.platform.service_channel())  # a private game
        game = (await stub.GetGame(c4.GetGameRequest(game_id=report["games"][0]))).game
    assert len(report["code"]) == 12
    assert report["games"][0] == report["games"][1]
    assert sorted(s.display_name for s in game.seats) == ["Ada", "Bob"]
    assert {m["by"] for m in report["moves"]} == {"Ada", "Bob"}
    for move in report["moves"]:
        assert move["seenByOther"].startswith(f"{move['by']}: {move['move']} ("), move
        assert move["announced"] == move["seenByOther"]
    assert report["reloads"] == [1, 1]
    assert (SCREENSHOTS / "lobby.png").is_file()


async def test_a_private_lobby_is_played_on_the_time_control_its_host_picked(
    start_web: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    browser()
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.1")
    async with start_web("matchmaking", "connect4x4") as web:
        report = await run_script("timecontrol.mjs", web)
        stub = c4_grpc.Connect4x4ServiceStub(web.platform.service_channel())  # a private game
        game = (await stub.GetGame(c4.GetGameRequest(game_id=report["games"][0]))).game
    assert report["preselected"] == "5+3"  # the game type's default
    assert "3+2" in report["offered"]
    assert "untimed" not in report["offered"]
    assert report["games"][0] == report["games"][1]
    assert report["labels"] == ["3+2", "3+2"]
    control = game.clocks.time_control
    assert (control.kind, control.initial_seconds, control.increment_seconds) == (3, 180, 2)


async def test_a_dropped_connection_resumes_after_the_last_version_seen(start_web: Any) -> None:
    browser()
    async with start_web("matchmaking", "connect4x4") as web:
        report = await run_script("reconnect.mjs", web)
    # the watch came back by itself, asking to resume after the version the page had
    assert str(report["whileAway"]) in report["resumedFrom"], report
    assert report["target"] > report["whileAway"]
    # every move once, in order, the same as the player's page; no reload
    assert report["watcherLog"] == report["playerLog"]
    assert report["reloads"] == 1


def _running(clocks: list[dict[str, Any]]) -> list[int]:
    return [c["seat"] for c in clocks if c["running"]]


@pytest.mark.serial  # counts the clock's ticks against the time the page watched
async def test_a_timed_games_clocks_count_down_in_the_browser_and_switch_after_a_move(
    start_web: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    browser()
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.1")
    async with start_web("matchmaking", "connect4x4") as web:
        report = await run_script("clocks.mjs", web)
        stub = c4_grpc.Connect4x4ServiceStub(web.platform.service_channel())  # a private game
        game = (await stub.GetGame(c4.GetGameRequest(game_id=report["gameId"]))).game
    assert game.clocks.time_control.kind == 3  # a matched game: the default, Fischer 5+3
    assert report["timeControl"] == "5+3"

    # before the first move, on both players' pages: the seat to move's clock counts down
    first = report["first"]
    to_move = _running(first[0]["before"])
    assert len(to_move) == 1, first
    for page in first:
        for when in ("before", "after"):
            assert len(page[when]) == 2
            assert _running(page[when]) == to_move
        ticking = {c["seat"]: c for c in page["before"]}, {c["seat"]: c for c in page["after"]}
        runs, still = to_move[0], 1 - to_move[0]
        fell = ticking[0][runs]["ms"] - ticking[1][runs]["ms"]
        # 1.5 s watched, at 10 ticks a second; 400 ms for a slow frame between the two reads
        assert 1000 <= fell <= page["elapsed"] + 400, page
        assert ticking[0][runs]["text"] != ticking[1][runs]["text"]
        assert ticking[0][still] == ticking[1][still]
        assert ticking[0][still]["text"] == "5:00"
        assert ticking[0][runs]["ms"] <= 300_000

    # a spectator who came seconds later counts from the server's moment, not its own
    spectator = report["spectator"]
    shown = {c["seat"]: c for c in spectator["page"]}
    server = {c["seat"]: c for c in spectator["server"]}
    runs = to_move[0]
    assert shown[runs]["running"]
    assert server[runs]["running"]
    assert shown[runs]["ms"] < 297_000  # three seconds and more into the game
    assert abs(shown[runs]["ms"] - server[runs]["ms"]) < 1000, spectator
    assert shown[1 - runs]["ms"] == server[1 - runs]["ms"] == 300_000

    # after the move, on both players' pages and the spectator's: the clocks have switched
    stopped, now = to_move[0], 1 - to_move[0]
    after_move = {c["seat"]: c for c in report["afterMove"]}
    for page in report["second"]:
        assert _running(page["before"]) == _running(page["after"]) == [now], page
        before = {c["seat"]: c for c in page["before"]}
        after = {c["seat"]: c for c in page["after"]}
        assert 1000 <= before[now]["ms"] - after[now]["ms"] <= page["elapsed"] + 400, page
        assert before[stopped] == after[stopped]
        # the mover's bank as the server keeps it: what it had, less its move, plus 3 s
        assert abs(after[stopped]["ms"] - after_move[stopped]["ms"]) <= 1
        assert not after_move[stopped]["running"]
    assert (SCREENSHOTS / "clocks.png").is_file()


async def test_a_guest_finds_a_game_left_in_progress_in_the_lobby_and_resigns_it(
    start_web: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game against a bot, left for the lobby, is under "Your games in progress"; one more
    past the cap (1 here) is refused in words that point there; opened from the list and
    resigned, the game is under the finished games instead."""
    browser()
    monkeypatch.setenv("PARLOR_MAX_OPEN_GAMES_PER_PLAYER", "1")  # read as the services start
    async with start_web("matchmaking", "connect4x4") as web:
        report = await run_script("opengames.mjs", web)
        game_id, player = report["gameId"], report["playerId"]
        assert report["listed"].startswith("Resume: Connect 4x4 against random bot")
        assert report["finishedBefore"] == 0
        assert report["refusal"].startswith(
            "You already have 1 Connect 4x4 game in progress, the most one player may have"
        )
        assert "“Your games in progress”" in report["refusal"]
        assert "finish or resign one of them" in report["refusal"]
        assert report["stayed"].endswith("#/")
        assert report["after"]["inProgress"] == 0
        assert report["after"]["openText"] == "None: every game you started has ended."
        assert report["after"]["finished"].endswith("(resignation)")
        # the player's own listing (anyone else finds them by id only where they chose to be)
        channel = web.platform.channel(player)
        stub = c4_grpc.Connect4x4ServiceStub(channel)
        going = c4.ListGamesRequest(player_id=player, in_progress_only=True)
        assert list((await stub.ListGames(going)).games) == []
        done = c4.ListGamesRequest(player_id=player, finished_only=True)
        assert [g.game_id for g in (await stub.ListGames(done)).games] == [game_id]
        assert len((await stub.ListGames(c4.ListGamesRequest(player_id=player))).games) == 1
        await channel.close()
    assert (SCREENSHOTS / "lobby-in-progress.png").is_file()


async def test_the_web_clients_unit_tests_pass() -> None:
    """``npm test`` in web/: the clocks' arithmetic and writing, Upwords' and Take Four's
    commands and stale refusals (web/tests/unit), in node; every test written there ran."""
    problems = [] if shutil.which("npm") else ["npm is not installed (Node.js 18+ with npm)"]
    if not (WEB / "node_modules" / "esbuild").is_dir():
        problems.append("web/node_modules is missing: run make install")
    stop_if_missing(problems, "the web client's unit tests")
    process = await asyncio.create_subprocess_exec(
        shutil.which("npm") or "npm",
        "test",
        cwd=WEB,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 120)
    text = out.decode()
    assert process.returncode == 0, text
    assert "# fail 0" in text, text
    # as many passed as are written (a file the runner missed would pass fewer)
    written = sum(
        line.startswith("test(")
        for path in (WEB / "tests" / "unit").glob("*.test.ts")
        for line in path.read_text().splitlines()
    )
    assert written > 0
    assert f"# pass {written}\n" in text, text


async def test_two_players_chat_and_the_kibitz_reaches_them_only_after_the_game(
    start_web: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/chat.md: the players' room beside the board, the spectators' never a seat's
    while the game runs (on the page, and not asked for), and shown to the seats after."""
    browser()
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.1")
    async with start_web("matchmaking", "connect4x4", "chat") as web:
        report = await run_script("chat.mjs", web)
    during = report["during"]
    assert (during["ada"], during["bob"]) == (False, False)
    assert (during["adaKibitzRoom"], during["bobKibitzRoom"]) == (0, 0)
    assert "ROOM_KIND_SPECTATORS" in during["spectatorWatched"]  # the capture sees requests
    for rooms in during["watchedWhilePlaying"].values():
        assert "ROOM_KIND_SPECTATORS" not in rooms  # and no seat's page asked for the kibitz
    assert report["after"] == {"ada": True, "bob": True}
