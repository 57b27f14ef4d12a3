"""The deploy files' per-game lists are what the registry of games gives.

Kubernetes manifests and NATS configuration stay static files; the lists of games in
them are written by ``python -m parlor.devinfra.gamelists`` from the installed
``parlor.game_types`` entry points. A game added (or removed) without running it fails
here, with the diff and the command.
"""

from __future__ import annotations

import json

import yaml
from deploy_facts import GAMES, ROOT

from parlor.devinfra import gamelists
from parlor.devinfra.gamelists import Game


def test_the_committed_files_are_what_the_registry_gives() -> None:
    found = gamelists.differences(ROOT, gamelists.registered())
    assert not found, (
        "the deploy files do not list the registered games; run\n"
        "  .venv/bin/python -m parlor.devinfra.gamelists\n" + "".join(found.values())
    )


def test_the_registry_is_the_repositorys_games() -> None:
    """What is installed is what the repository registers (the example game stays out)."""
    assert tuple(g.name for g in gamelists.registered()) == GAMES


def test_a_new_game_is_written_into_every_list_and_taken_out_again() -> None:
    games = gamelists.registered()
    chess = Game("chess", "parlor.chess.v1.ChessService")
    now = gamelists.wanted(ROOT, games)
    added = gamelists.wanted(ROOT, [*games, chess])
    changed = {name for name in now if now[name][1] != added[name][1]}
    assert changed == set(now)  # every file lists the games

    base = added["base/kustomization.yaml"][1]
    assert "  - services/chess.yaml\n" in base
    assert "PARLOR_MATCHMAKING_GAME_TYPES=connect4x4,takefour,upwords,chess\n" in base
    assert "PARLOR_SCORING_GAME_TYPES=connect4x4,takefour,upwords,chess\n" in base
    assert ",parlor.chess.v1=chess:50051," in base
    routes = [
        r
        for d in yaml.safe_load_all(added["base/gateway.yaml"][1])
        if d["kind"] == "GRPCRoute"
        for r in d["spec"]["rules"]
    ]
    assert {"name": "chess", "port": 50051} in [b for r in routes for b in r["backendRefs"]]
    dev = json.loads(added["overlays/dev/nats.conf"][1])["authorization"]["users"]
    assert [u["user"] for u in dev][-3:] == ["chess", "matchmaking", "scoring"]
    assert "$JS.ACK.PARLOR_EVENTS.chess-matches.>" in dev[-3]["permissions"]["publish"]["allow"]
    values = yaml.safe_load(added["overlays/prod/nats/values.yaml"][1])
    assert "chess" in [u["user"] for u in values["config"]["merge"]["authorization"]["users"]]
    assert values["container"]["env"]["CHESS_PASSWORD"]["valueFrom"]["secretKeyRef"] == {
        "name": "parlor-nats",
        "key": "chess-password",
    }
    chart = yaml.safe_load(added[gamelists.HELMCHART][1])
    assert yaml.safe_load(chart["spec"]["valuesContent"]) == values
    assert (
        '"connect4x4|takefour|upwords|chess|matchmaking|scoring"'
        in (added["overlays/prod/kustomization.yaml"][1])
    )

    # Written from a file that lists chess, the lists without it are today's files again.
    for name, write in gamelists.FILES.items():
        assert write(added[name][1], games) == now[name][0], name
    assert (
        gamelists.helmchart(added[gamelists.HELMCHART][1], now[gamelists.VALUES][0])
        == (now[gamelists.HELMCHART][0])
    )
