"""Signing keys (issue 15, class 8): no key, no server; only the identity key signs players.

A server outside development mode refuses to start without a key; a token signed
with the old public HS256 default, with a stranger's key, or with a service's own key
for anything but that service's token is UNAUTHENTICATED TOKEN_INVALID; services
that only verify read the identity key's public half from a JWKS.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import jwt
import pytest
from kit_fixture_server import SERVICE, probe_component

from parlor.core.errors import Unauthenticated
from parlor.kit import client
from parlor.kit.auth import (
    AuthSettings,
    data_dir_key,
    generate_private_key,
    issue_token,
    jwks,
    refresh_token,
    verify_token,
)
from parlor.kit.server import Server, ServerSettings, running
from parlor.kit.settings import SettingsError, load
from parlor.kit.status import reason_of

HERE = Path(__file__).parent
IDENTITY_KEY = generate_private_key()
UPWORDS_KEY = generate_private_key()
IDENTITY = AuthSettings(private_key=IDENTITY_KEY)
# The deployment's JWKS: the upwords key signs only for the dictionary (what it calls).
JWKS = jwks({"identity": IDENTITY_KEY, "upwords": UPWORDS_KEY}, {"upwords": ["dictionary"]})
# What a game service holds: its own key, and the JWKS.
UPWORDS = AuthSettings(private_key=UPWORDS_KEY, key_id="upwords", public_keys=JWKS)
# What a service that calls nobody holds: public keys only.
VERIFIER = AuthSettings(public_keys=JWKS)
OLD_DEV_SECRET = "parlor-dev-secret-change-me-in-production"


def test_a_server_without_a_key_refuses_to_start() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARLOR_JWT_")}
    env.update(PARLOR_GRPC_HOST="127.0.0.1", PARLOR_GRPC_PORT="0", PARLOR_METRICS_PORT="0")
    env.pop("PARLOR_DEV_MODE", None)
    env["PYTHONPATH"] = str(HERE)
    done = subprocess.run(
        [sys.executable, str(HERE / "kit_fixture_server.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "no token key configured" in done.stderr
    assert "parlor: serving" not in done.stdout


def test_development_mode_starts_with_a_throwaway_key() -> None:
    settings = load(AuthSettings, {"PARLOR_DEV_MODE": "true"})
    token = issue_token(settings, "ada")
    assert verify_token(settings, token).player_id == "ada"
    with pytest.raises(SettingsError, match="no token key configured"):
        Server(ServerSettings(port=0, metrics_port=0), [], load(AuthSettings, {}))


def test_the_data_directory_key_is_made_once_and_private(tmp_path: Path) -> None:
    key = data_dir_key(tmp_path, create=True)
    first = key.read_text()
    assert data_dir_key(tmp_path, create=True).read_text() == first
    assert key.stat().st_mode & 0o077 == 0
    settings = AuthSettings(private_key=str(key))
    assert verify_token(settings, issue_token(settings, "ada")).player_id == "ada"


@pytest.mark.parametrize(
    "forged",
    [
        # the old public default secret, roles and all
        jwt.encode(
            {"iss": "parlor", "sub": "eve", "roles": ["admin", "service"], "exp": 2**40},
            OLD_DEV_SECRET,
            algorithm="HS256",
        ),
        # a stranger's key under the identity key's id
        issue_token(AuthSettings(private_key=generate_private_key()), "eve", roles=("admin",)),
        # a game service's own key minting a player or an admin
        issue_token(UPWORDS, "ada"),
        issue_token(UPWORDS, "service:upwords", roles=("service", "admin")),
        issue_token(UPWORDS, "service:takefour", roles=("service",)),
        # alg=none
        jwt.encode({"iss": "parlor", "sub": "eve", "exp": 2**40}, None, algorithm="none"),
    ],
)
def test_forged_tokens_are_refused_by_every_verifier(forged: str) -> None:
    for settings in (IDENTITY, UPWORDS, VERIFIER):
        with pytest.raises(Unauthenticated) as refused:
            verify_token(settings, forged)
        assert refused.value.reason == "TOKEN_INVALID"


def test_the_identity_key_signs_players_and_a_service_key_only_its_own_service() -> None:
    player = issue_token(IDENTITY, "ada", "Ada", ("admin",))
    own = issue_token(UPWORDS, "service:upwords", roles=("service",), audience=("dictionary",))
    for settings in (IDENTITY, UPWORDS, VERIFIER):
        assert verify_token(settings, player).roles == ("admin",)
    for settings in (UPWORDS, VERIFIER):  # those given the upwords key's public half
        assert verify_token(settings, own, "dictionary").is_service
    assert jwt.get_unverified_header(player)["alg"] == "EdDSA"
    assert json.loads(jwks({"identity": IDENTITY_KEY}))["keys"][0]["kid"] == "identity"
    assert "d" not in json.loads(jwks({"identity": IDENTITY_KEY}))["keys"][0]  # public only


def test_a_verifier_cannot_sign() -> None:
    with pytest.raises(SettingsError, match="no signing key"):
        issue_token(VERIFIER, "eve")


def test_tokens_are_short_lived_and_refreshed_within_the_session_limit() -> None:
    assert AuthSettings().token_ttl_seconds <= 3600
    now = time.time()
    first = issue_token(IDENTITY, "ada", "Ada", now=now - 100)
    identity = verify_token(IDENTITY, first)
    renewed = refresh_token(IDENTITY, identity, now=now)
    again = verify_token(VERIFIER, renewed)
    assert (again.player_id, again.name) == ("ada", "Ada")
    assert again.session_started == identity.session_started
    with pytest.raises(Unauthenticated) as too_old:
        refresh_token(IDENTITY, identity, now=now + IDENTITY.refresh_limit_seconds + 1)
    assert too_old.value.reason == "SESSION_TOO_OLD"


@pytest.fixture
async def verifying_server() -> AsyncIterator[Server]:
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0, grace_seconds=1)
    async with running(settings, [probe_component], VERIFIER) as srv:
        yield srv


async def test_a_verifying_server_takes_identity_tokens_and_refuses_a_services_admin(
    verifying_server: Server,
) -> None:
    target = f"127.0.0.1:{verifying_server.port}"
    async with client.channel(target, issue_token(IDENTITY, "ada")) as ch:
        assert await ch.unary_unary(f"/{SERVICE}/Echo")(b"hi") == b"hi"
    admin = issue_token(UPWORDS, "service:upwords", roles=("service", "admin"))
    async with client.channel(target, admin) as ch:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await ch.unary_unary(f"/{SERVICE}/Echo")(b"hi")
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert reason_of(refused.value) == "TOKEN_INVALID"
