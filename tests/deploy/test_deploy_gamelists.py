"""The deploy files' per-game lists, each game's own manifests and the clients' lists of
games are what the registry of games gives.

Kubernetes manifests and NATS configuration stay static files; the lists of games in
them, a game service's manifests (one template filled per game) and the TypeScript and
web clients' lists are written by ``python -m parlor.devinfra.gamelists`` from the
installed ``parlor.game_types`` entry points. A game added (or removed) without running it
fails here, with the diff and the command.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import yaml
from deploy_facts import GAMES, ROOT

from parlor.devinfra import clientgames, gamelists, gameservices
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
    after = ["matchmaking", "scoring", "chat", "tournament"]
    assert [u["user"] for u in dev][-5:] == ["chess", *after]
    assert "$JS.ACK.PARLOR_EVENTS.chess-matches.>" in dev[-5]["permissions"]["publish"]["allow"]
    values = yaml.safe_load(added["overlays/prod/nats/values.yaml"][1])
    assert "chess" in [u["user"] for u in values["config"]["merge"]["authorization"]["users"]]
    assert values["container"]["env"]["CHESS_PASSWORD"]["valueFrom"]["secretKeyRef"] == {
        "name": "parlor-nats",
        "key": "chess-password",
    }
    chart = yaml.safe_load(added[gamelists.HELMCHART][1])
    assert yaml.safe_load(chart["spec"]["valuesContent"]) == values
    assert (
        '"connect4x4|takefour|upwords|chess|matchmaking|scoring|chat|tournament"'
        in (added["overlays/prod/kustomization.yaml"][1])
    )

    # Written from a file that lists chess, the lists without it are today's files again.
    for name, write in gamelists.FILES.items():
        assert write(added[name][1], games) == now[name][0], name
    assert (
        gamelists.helmchart(added[gamelists.HELMCHART][1], now[gamelists.VALUES][0])
        == (now[gamelists.HELMCHART][0])
    )


def test_a_new_game_gets_its_manifests_from_the_one_template() -> None:
    """A game's Deployment, Service, budget and autoscaler are the template filled with its
    name and service; the others' files are as they were; a game gone leaves no file."""
    games = gamelists.registered()
    chess = Game("chess", "parlor.chess.v1.ChessService")
    calling = gamelists.calling_services()
    now = gamelists.service_files(ROOT, games, calling)
    assert all(text == committed for committed, text in now.values())
    added = gamelists.service_files(ROOT, [*games, chess], calling)
    assert {name: pair for name, pair in added.items() if name in now} == now
    committed, text = added["base/services/chess.yaml"]
    assert committed is None
    assert text is not None
    docs = {d["kind"]: d for d in yaml.safe_load_all(text)}
    assert set(docs) == {"Deployment", "Service", "PodDisruptionBudget", "HorizontalPodAutoscaler"}
    assert {d["metadata"]["name"] for d in docs.values()} == {"chess"}
    (container,) = docs["Deployment"]["spec"]["template"]["spec"]["containers"]
    assert container["args"] == ["chess"]
    assert container["readinessProbe"]["grpc"]["service"] == "parlor.chess.v1.ChessService"
    env = {e["name"]: e for e in container["env"]}
    assert env["PARLOR_NATS_USER"]["value"] == "chess"
    assert env["PARLOR_JWT_PRIVATE_KEY"] == {"name": "PARLOR_JWT_PRIVATE_KEY", "value": ""}
    assert [r["configMapRef"]["name"] for r in container["envFrom"]] == [
        "parlor-common",
        "parlor-backends",
        "parlor-games",
        "parlor-admission",
    ]
    assert container["resources"] == {
        "requests": {"cpu": "100m", "memory": "192Mi"},
        "limits": {"cpu": "1", "memory": "384Mi"},
    }

    # A game that calls the dictionary gets parlor-words and a key of its own.
    words = gamelists.service_files(ROOT, [chess], ("chess",))["base/services/chess.yaml"][1]
    assert words is not None
    deployment = next(yaml.safe_load_all(words))
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert {"configMapRef": {"name": "parlor-words"}} in container["envFrom"]
    key = {e["name"]: e for e in container["env"]}["PARLOR_JWT_PRIVATE_KEY"]["valueFrom"]
    assert key == {"secretKeyRef": {"name": "parlor-chess-key", "key": "private-key"}}

    # Without upwords, its file (written from the template) is to go.
    left = gamelists.service_files(ROOT, [g for g in games if g.name != "upwords"], calling)
    assert left["base/services/upwords.yaml"][1] is None
    assert "base/services/dictionary.yaml" not in left  # not a game's: never touched


def test_a_games_resources_are_kept_when_its_file_is_written_again() -> None:
    """Resources are sized per game in its file; the template keeps them (a new game: the
    default)."""
    text = (ROOT / "deploy/kustomize/base/services/upwords.yaml").read_text()
    kept = gameservices.resources(text)
    assert kept is not None
    assert "memory: 1Gi}  # the bots' word graph of ENABLE" in kept
    game = gameservices.GameService("upwords", "parlor.upwords.v1.UpwordsService", True, True)
    assert gameservices.manifests(game) != text  # the default resources
    assert gameservices.manifests(dataclasses.replace(game, resources=kept)) == text


def test_the_clients_list_the_registered_games() -> None:
    """The TypeScript client's GAME_SERVICES and the web client's boards are the registry's."""
    games = gamelists.registered()
    chess = Game("chess", "parlor.chess.v1.ChessService")
    texts = gamelists.everything(ROOT, [*games, chess])
    client = texts[clientgames.FILE][1]
    assert client is not None
    assert 'import { ChessService } from "./gen/parlor/chess/v1/chess_pb.js";\n' in client
    assert "  readonly chess: typeof ChessService;\n" in client
    assert "  chess: ChessService,\n" in client
    assert 'export * as chess from "./gen/parlor/chess/v1/chess_pb.js";\n' in client
    # chess has no board of its own in web/src: the web client does not offer it
    assert texts[clientgames.BOARDS] == gamelists.everything(ROOT, games)[clientgames.BOARDS]
    boards = texts[clientgames.BOARDS][1]
    assert boards is not None
    for g in games:
        assert f'import {{ {g.name} }} from "./{g.name}";\n' in boards
    assert "chess" not in boards


def test_a_calling_game_gets_its_dev_key_secret_and_one_no_longer_calling_loses_it() -> None:
    """The dev overlay's Secret of each calling service's own key is written from the same
    list parlor-keys makes keys by (the declarations' ``calls``)."""
    calling = gamelists.calling_services()
    dev = (ROOT / gamelists.KUSTOMIZE / gamelists.DEV_KUSTOMIZATION).read_text()
    assert gamelists.dev_keys(dev, calling) == dev

    def key_secrets(text: str) -> dict[str, list[str]]:
        secrets = yaml.safe_load(text)["secretGenerator"]
        return {s["name"]: s["files"] for s in secrets if s["name"].endswith("-key")}

    added = key_secrets(gamelists.dev_keys(dev, [*calling, "chess"]))
    assert added["parlor-chess-key"] == ["private-key=dev-keys/chess.pem"]
    assert added["parlor-identity-key"] == ["private-key=dev-keys/identity.pem"]
    left = key_secrets(gamelists.dev_keys(dev, [n for n in calling if n != "upwords"]))
    assert "parlor-upwords-key" not in left
    assert set(left) == {"parlor-identity-key", *(f"parlor-{n}-key" for n in calling)} - {
        "parlor-upwords-key"
    }


def test_help_and_unknown_arguments_write_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--help`` prints the usage and a typo is refused: neither rewrites the files."""
    monkeypatch.chdir(tmp_path)  # a rewrite would write the lists here
    with pytest.raises(SystemExit) as helped:
        gamelists.main(["--help"])
    assert helped.value.code == 0
    assert "--check" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:
        gamelists.main(["--chek"])
    assert refused.value.code == 2
    assert list(tmp_path.iterdir()) == []
