"""A real OpenID Connect provider for the tests: tests/oidc/provider.js (npm oidc-provider)
run by Node.js on a free loopback port, and the user's part played over HTTP."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

import grpc
import httpx
import pytest
from joserfc.jwk import RSAKey
from kits.npm import npm_ci

from parlor.identity.v1 import identity_pb2 as pb
from parlor.identity.v1 import identity_pb2_grpc as pb_grpc
from parlor.kit.status import reason_of

HERE = Path(__file__).resolve().parents[2] / "oidc"
CLIENT_ID = "parlor"
CLIENT_SECRET = "parlor-test-secret"
REDIRECT_URI = "http://127.0.0.1:9/signed-in"
"""Never fetched: the user's part stops at the redirect and hands the code to the test."""


def npm_packages() -> None:
    """``npm ci`` into tests/oidc unless node_modules already holds the lockfile's packages."""
    npm_ci(HERE, "the OpenID Connect tests")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def signing_keys(kid: str) -> dict[str, Any]:
    """A private JWKS of one fresh RSA key, for a provider to sign ID tokens with."""
    key = RSAKey.generate_key(2048, parameters={"kid": kid, "alg": "RS256", "use": "sig"})
    return {"keys": [key.as_dict(private=True)]}


def client(client_id: str = CLIENT_ID) -> dict[str, Any]:
    return {
        "client_id": client_id,
        "client_secret": CLIENT_SECRET,
        "redirect_uris": [REDIRECT_URI],
    }


@dataclass
class OidcProvider:
    """One provider process; ``issuer`` is its URL."""

    port: int
    process: subprocess.Popen[bytes]

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


@contextlib.contextmanager
def running_provider(
    keys: dict[str, Any],
    clients: list[dict[str, Any]] | None = None,
    port: int | None = None,
    id_token_ttl: int = 600,
) -> Iterator[OidcProvider]:
    """A provider process signing with ``keys``, stopped at the end."""
    node = shutil.which("node")
    assert node, "node is required for the OpenID Connect tests (install Node.js 18+)"
    npm_packages()
    port = port or free_port()
    env = {
        **os.environ,
        "OIDC_PORT": str(port),
        "OIDC_CLIENTS": json.dumps(clients or [client()]),
        "OIDC_JWKS": json.dumps(keys),
        "OIDC_ID_TOKEN_TTL": str(id_token_ttl),
        "NODE_NO_WARNINGS": "1",
    }
    process = subprocess.Popen(
        [node, "provider.js"],
        cwd=HERE,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    provider = OidcProvider(port, process)
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 30
        while True:
            line = process.stdout.readline().decode()
            if line.startswith("ready"):
                break
            if not line and process.poll() is not None:
                raise RuntimeError(f"the OpenID Connect provider exited ({process.returncode})")
            assert time.monotonic() < deadline, "the OpenID Connect provider did not start"
        yield provider
    finally:
        provider.stop()


async def play_user(
    authorization_url: str,
    login: str,
    username: str | None = None,
    redirect_uri: str = REDIRECT_URI,
) -> dict[str, str]:
    """The user's part at the provider, over HTTP as a browser would (cookies kept, each
    redirect followed by hand): sign in as ``login``, consent, and stop at the redirect to
    Parlor's ``redirect_uri``. The query parameters sent there (``code``, ``state``, ``iss``)."""
    async with httpx.AsyncClient(follow_redirects=False, timeout=10) as browser:
        url = authorization_url
        for _ in range(20):
            if url.startswith(redirect_uri):
                return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
            response = await browser.get(url)
            if response.is_redirect:
                url = urljoin(url, response.headers["location"])
                continue
            response.raise_for_status()
            prompt = response.json()["prompt"]
            if prompt == "login":
                form = {"login": login, **({"username": username} if username else {})}
                answer = await browser.post(f"{url}/login", data=form)
            else:
                answer = await browser.post(f"{url}/confirm")
            assert answer.status_code == 303, answer.text
            url = urljoin(url, answer.headers["location"])
        raise AssertionError("the provider never sent the browser back")


async def refusal(call: Any, request: Any, **kwargs: Any) -> tuple[grpc.StatusCode, str | None]:
    """The code and reason a gRPC call is refused with."""
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call(request, **kwargs)
    return error.value.code(), reason_of(error.value)


async def sign_in(
    stub: pb_grpc.IdentityServiceStub, login: str, username: str | None = None, client: str = ""
) -> tuple[pb.CompleteSignInResponse, str, str]:
    """A sign-in over gRPC at the provider named ``test``: the response, state and code."""
    begun = await stub.BeginSignIn(
        pb.BeginSignInRequest(provider="test", redirect_uri=REDIRECT_URI)
    )
    answer = await play_user(begun.authorization_url, login, username)
    assert answer["state"] == begun.state
    done = await stub.CompleteSignIn(
        pb.CompleteSignInRequest(
            state=begun.state, code=answer["code"], iss=answer["iss"], client=client
        )
    )
    return done, begun.state, answer["code"]
