"""Where the CLI calls and as whom: target and token from flags, the environment, or minted."""

from __future__ import annotations

import importlib
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import jwt

from parlor.kit.auth import AuthSettings, data_dir_key, issue_token
from parlor.kit.settings import SettingsError

DEFAULT_TARGET = "localhost:50051"


@dataclass(frozen=True)
class Session:
    """A sync channel to the platform and the bearer token sent with every call."""

    target: str
    token: str

    @property
    def player_id(self) -> str:
        """The token's subject (read without verifying: the server verifies it)."""
        claims = jwt.decode(self.token, options={"verify_signature": False})
        return str(claims["sub"])

    @property
    def name(self) -> str:
        """The token's display name (``parlor token --name``), or empty."""
        claims = jwt.decode(self.token, options={"verify_signature": False})
        return str(claims.get("name") or "")

    @property
    def metadata(self) -> tuple[tuple[str, str]]:
        return (("authorization", f"Bearer {self.token}"),)

    def channel(self) -> grpc.Channel:
        return grpc.insecure_channel(self.target)


def guest_id() -> str:
    return f"guest-{secrets.token_hex(4)}"


def remote_guest_token(target: str, name: str) -> str | None:
    """Ask the platform for a guest token (``parlor.identity.v1.IdentityService``).

    None when that API is not installed (generated code absent), no platform answers
    at ``target``, or guest tokens are switched off there: the token is then minted
    locally. A token from the platform is signed with the platform's own key.
    """
    try:
        identity_pb2: Any = importlib.import_module("parlor.identity.v1.identity_pb2")
        identity_pb2_grpc: Any = importlib.import_module("parlor.identity.v1.identity_pb2_grpc")
    except ImportError:
        return None
    try:
        with grpc.insecure_channel(target) as channel:
            stub = identity_pb2_grpc.IdentityServiceStub(channel)
            request = identity_pb2.IssueGuestTokenRequest(display_name=name)
            token = stub.IssueGuestToken(request, timeout=3).token
    except grpc.RpcError:
        return None
    return str(token) or None


def mint_token(name: str = "", player_id: str | None = None) -> str:
    """A guest token signed locally: with PARLOR_JWT_PRIVATE_KEY, or with the key
    ``make run`` keeps in its data directory (PARLOR_DATA_DIR, default .parlor)."""
    key = os.environ.get("PARLOR_JWT_PRIVATE_KEY") or ""
    if not key:
        found = data_dir_key(Path(os.environ.get("PARLOR_DATA_DIR") or ".parlor"))
        if not found.exists():
            raise SettingsError(
                "no platform answered and there is no key to sign a token with: set"
                " PARLOR_JWT_PRIVATE_KEY, or run where `make run` keeps its data (PARLOR_DATA_DIR)"
            )
        key = str(found)
    subject = player_id or guest_id()
    return issue_token(AuthSettings(private_key=key), subject, name or subject, ("guest",))


def guest_token(target: str, name: str = "") -> str:
    return remote_guest_token(target, name) or mint_token(name)


def session(target: str | None, token: str | None, name: str = "") -> Session:
    """Flags first, then PARLOR_TARGET / PARLOR_TOKEN, then the default target and a guest."""
    where = target or os.environ.get("PARLOR_TARGET") or DEFAULT_TARGET
    who = token or os.environ.get("PARLOR_TOKEN") or guest_token(where, name)
    return Session(where, who)


def describe(error: Any) -> str:
    """A gRPC error as one line: status code and the server's message."""
    if isinstance(error, grpc.RpcError):
        code = error.code()  # type: ignore[attr-defined]
        details = error.details()  # type: ignore[attr-defined]
        return f"{code.name if code else 'ERROR'}: {details}"
    return str(error)
