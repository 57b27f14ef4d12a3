"""Bearer tokens (JWT, EdDSA with Ed25519 keys) and who is calling.

Every Parlor RPC needs ``authorization: Bearer <token>`` except the standard
health and reflection services and methods a component declares public (such
as asking for a guest token). The interceptor verifies the token and puts the
caller's ``Identity`` in a context variable; servicers ask ``caller()``.

Keys. Tokens are signed with an Ed25519 private key and verified with public
keys, each named by a key id (``kid``, in the token's header):

- the **identity key** (kid ``identity``) is held only by the identity service
  (matchmaking serves ``IdentityService``); it signs player, guest and admin tokens;
- a service that calls another (Upwords and Take Four ask the dictionary) holds its
  own key, whose kid is the service's name; such a key signs only that service's own
  token (subject ``service:<kid>``, role ``service``), never a player's or an admin's;
- every service verifies with the public keys it is given (a JWKS document or file,
  ``PARLOR_JWT_PUBLIC_KEYS``) and with the public half of its own key.

So a compromised pod can mint no token but its own service's. Outside an explicit
development mode (``PARLOR_DEV_MODE``), a server with no key refuses to start;
``make run`` keeps a random key in its data directory.
"""

from __future__ import annotations

import contextvars
import functools
import json
import logging
import os
import time
import uuid
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from jwt.algorithms import OKPAlgorithm

from parlor.core.errors import PermissionDenied, Unauthenticated
from parlor.kit.settings import SettingsError, setting

log = logging.getLogger("parlor.kit.auth")

ALGORITHM = "EdDSA"
ISSUER = "parlor"
IDENTITY_KEY_ID = "identity"
SERVICE_ROLE = "service"
SERVICE_SUBJECT_PREFIX = "service:"
MAX_TOKEN_BYTES = 8192  # far above any token Parlor issues; refused before any parsing


@dataclass(frozen=True)
class AuthSettings:
    private_key: str = setting(
        "PARLOR_JWT_PRIVATE_KEY",
        "Ed25519 private key (PEM text, or a path to a PEM file) that signs tokens: the identity"
        " service's key, or a calling service's own key (see PARLOR_JWT_KEY_ID); empty: none",
        "",
    )
    key_id: str = setting(
        "PARLOR_JWT_KEY_ID",
        "the signing key's id: 'identity' (signs any token; the identity service only) or the"
        " service's name (signs only that service's own token)",
        IDENTITY_KEY_ID,
    )
    public_keys: str = setting(
        "PARLOR_JWT_PUBLIC_KEYS",
        "the keys that verify tokens: a JWKS document (JSON) or a path to a JWKS file;"
        " the public half of PARLOR_JWT_PRIVATE_KEY is always added",
        "",
    )
    dev_mode: bool = setting(
        "PARLOR_DEV_MODE",
        "development mode: a server with no key makes a throwaway one instead of refusing"
        " to start (make run sets it, with a key kept in its data directory)",
        False,
    )
    guest_tokens: bool = setting(
        "PARLOR_GUEST_TOKENS", "whether anyone may ask for a guest token", True
    )
    token_ttl_seconds: int = setting(
        "PARLOR_TOKEN_TTL_SECONDS",
        "lifetime of tokens this platform issues; IdentityService/RefreshToken renews one",
        3600,
    )
    refresh_limit_seconds: int = setting(
        "PARLOR_TOKEN_REFRESH_LIMIT_SECONDS",
        "how long after a session's first token it may still be refreshed",
        7 * 24 * 3600,
    )


@dataclass(frozen=True)
class Identity:
    """Who is calling: a player (``player_id`` is the token's subject) or a service."""

    player_id: str
    name: str = ""
    roles: tuple[str, ...] = ()
    session_started: int = 0
    """When the session's first token was issued (``sid_iat``), for refreshes."""

    @property
    def is_service(self) -> bool:
        return SERVICE_ROLE in self.roles


_caller: contextvars.ContextVar[Identity | None] = contextvars.ContextVar(
    "parlor_caller", default=None
)


# -- keys ------------------------------------------------------------------------------------


def generate_private_key() -> str:
    """A fresh Ed25519 private key as PKCS#8 PEM text."""
    return (
        Ed25519PrivateKey.generate()
        .private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        .decode()
    )


DATA_DIR_KEY = "jwt-signing-key.pem"


def data_dir_key(data_dir: Path, *, create: bool = False) -> Path:
    """The development platform's key in its data directory (made if ``create``)."""
    path = data_dir / DATA_DIR_KEY
    if create and not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(generate_private_key())
    return path


def public_jwk(private_key_pem: str, key_id: str) -> dict[str, Any]:
    """The public half of a private key as a JWK (``kid``, ``alg`` EdDSA, ``use`` sig)."""
    public = _private_key(private_key_pem).public_key()
    jwk: dict[str, Any] = json.loads(OKPAlgorithm.to_jwk(public))
    return {**jwk, "kid": key_id, "alg": ALGORITHM, "use": "sig"}


def jwks(keys: Mapping[str, str]) -> str:
    """A JWKS document of the public halves of private keys given by key id."""
    return json.dumps({"keys": [public_jwk(pem, kid) for kid, pem in sorted(keys.items())]})


def _text(value: str) -> str:
    """A key setting holds the key itself or a path to a file holding it."""
    stripped = value.strip()
    if stripped.startswith(("-----BEGIN", "{")):
        return stripped
    path = Path(stripped)
    try:
        return path.read_text().strip()
    except OSError as exc:
        raise SettingsError(f"cannot read the key file {path}: {exc}") from None


def _private_key(pem: str) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(_text(pem).encode(), password=None)
    except (ValueError, TypeError) as exc:
        raise SettingsError(f"PARLOR_JWT_PRIVATE_KEY is not a PEM private key: {exc}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SettingsError("PARLOR_JWT_PRIVATE_KEY must be an Ed25519 key (EdDSA)")
    return key


@dataclass(frozen=True)
class Keyring:
    """The key this process signs with (if any) and the public keys it verifies with."""

    signing: Ed25519PrivateKey | None
    signing_id: str
    verifying: Mapping[str, Ed25519PublicKey]


_DEV_KEY: list[str] = []


def _dev_key() -> str:
    """One throwaway key per process, for development mode without a configured key."""
    if not _DEV_KEY:
        log.warning("development mode: no signing key configured, using a throwaway key")
        _DEV_KEY.append(generate_private_key())
    return _DEV_KEY[0]


@functools.lru_cache(maxsize=32)
def keyring(settings: AuthSettings) -> Keyring:
    """The keys of ``settings``; SettingsError if there are none outside development mode."""
    private_pem = settings.private_key
    verifying: dict[str, Ed25519PublicKey] = {}
    if settings.public_keys.strip():
        try:
            document = json.loads(_text(settings.public_keys))
            for jwk in document["keys"]:
                key = OKPAlgorithm.from_jwk(jwk)
                if not isinstance(key, Ed25519PublicKey) or not jwk.get("kid"):
                    raise ValueError("every key must be an Ed25519 public key with a kid")
                verifying[str(jwk["kid"])] = key
        except (ValueError, KeyError, TypeError, jwt.InvalidKeyError) as exc:
            raise SettingsError(f"PARLOR_JWT_PUBLIC_KEYS is not a usable JWKS: {exc}") from None
    if not private_pem.strip() and not verifying:
        if not settings.dev_mode:
            raise SettingsError(
                "no token key configured: set PARLOR_JWT_PRIVATE_KEY (the identity service)"
                " or PARLOR_JWT_PUBLIC_KEYS (every other service), or PARLOR_DEV_MODE=true"
                " for development"
            )
        private_pem = _dev_key()
    signing = _private_key(private_pem) if private_pem.strip() else None
    if signing is not None:
        verifying.setdefault(settings.key_id, signing.public_key())
    return Keyring(signing, settings.key_id, verifying)


def check_keys(settings: AuthSettings) -> None:
    """Fail at start-up (SettingsError) rather than at the first call."""
    keyring(settings)


# -- tokens ----------------------------------------------------------------------------------


def issue_token(
    settings: AuthSettings,
    subject: str,
    name: str = "",
    roles: Sequence[str] = (),
    ttl_seconds: int | None = None,
    now: float | None = None,
    session_started: int | None = None,
) -> str:
    ring = keyring(settings)
    if ring.signing is None:
        raise SettingsError("this process holds no signing key (PARLOR_JWT_PRIVATE_KEY)")
    issued = int(now if now is not None else time.time())
    claims = {
        "iss": ISSUER,
        "sub": subject,
        "name": name or subject,
        "roles": list(roles),
        "iat": issued,
        "sid_iat": session_started if session_started is not None else issued,
        "exp": issued + (ttl_seconds or settings.token_ttl_seconds),
        "jti": uuid.uuid4().hex,
    }
    return jwt.encode(claims, ring.signing, algorithm=ALGORITHM, headers={"kid": ring.signing_id})


_VERIFIED: OrderedDict[tuple[AuthSettings, str], tuple[Identity, float]] = OrderedDict()
_VERIFIED_SIZE = 8192


def verify_token(settings: AuthSettings, token: str) -> Identity:
    """The identity in a token, or Unauthenticated saying what is wrong with it.

    A signature is checked once per token; its identity is remembered (keyed by the token's
    exact text, the least recently used of ``_VERIFIED_SIZE`` forgotten first) until the
    token's own expiry, never past it. What a call checks beyond the token (the rate
    limit, a seat) is still checked per call by the caller.
    """
    now = time.time()
    key = (settings, token)
    held = _VERIFIED.get(key)
    if held is not None:
        if held[1] > now:
            _VERIFIED.move_to_end(key)
            return held[0]
        del _VERIFIED[key]
    identity, expires = _verify(settings, token)
    _VERIFIED[key] = (identity, expires)
    while len(_VERIFIED) > _VERIFIED_SIZE:
        _VERIFIED.popitem(last=False)
    return identity


def _invalid(why: str) -> Unauthenticated:
    return Unauthenticated(f"the token is invalid: {why}", reason="TOKEN_INVALID")


def _verify(settings: AuthSettings, token: str) -> tuple[Identity, float]:
    if len(token) > MAX_TOKEN_BYTES:
        raise _invalid(f"longer than {MAX_TOKEN_BYTES} bytes")
    ring = keyring(settings)
    try:
        kid = jwt.get_unverified_header(token).get("kid")
    except jwt.InvalidTokenError as exc:
        raise _invalid(str(exc)) from None
    if not isinstance(kid, str) or kid not in ring.verifying:
        raise _invalid("signed by no key this service trusts")
    key = ring.verifying[kid]
    try:
        claims = jwt.decode(
            token,
            key,
            algorithms=[ALGORITHM],
            issuer=ISSUER,
            options={"require": ["sub", "exp", "iss"]},
        )
    except jwt.ExpiredSignatureError:
        raise Unauthenticated("the token has expired", reason="TOKEN_EXPIRED") from None
    except jwt.InvalidTokenError as exc:
        raise _invalid(str(exc)) from None
    raw_roles = claims.get("roles") or []
    roles = tuple(str(r) for r in raw_roles) if isinstance(raw_roles, list) else ()
    subject = str(claims["sub"])
    if kid != IDENTITY_KEY_ID and (
        subject != SERVICE_SUBJECT_PREFIX + kid or roles != (SERVICE_ROLE,)
    ):
        raise _invalid(f"key {kid!r} may sign only the token of service {kid!r}")
    started = claims.get("sid_iat", claims.get("iat", 0))
    identity = Identity(
        player_id=subject,
        name=str(claims.get("name") or subject),
        roles=roles,
        session_started=int(started) if isinstance(started, int | float) else 0,
    )
    return identity, float(claims["exp"])


def refresh_token(settings: AuthSettings, identity: Identity, now: float | None = None) -> str:
    """A new token for the verified caller, within the session's refresh limit."""
    moment = now if now is not None else time.time()
    if moment - identity.session_started > settings.refresh_limit_seconds:
        raise Unauthenticated(
            "this session is too old to refresh; sign in again", reason="SESSION_TOO_OLD"
        )
    return issue_token(
        settings,
        identity.player_id,
        identity.name,
        identity.roles,
        now=moment,
        session_started=identity.session_started,
    )


def token_from_metadata(metadata: Any) -> str | None:
    for key, value in metadata or ():
        if key.lower() == "authorization":
            text = value.decode() if isinstance(value, bytes) else value
            scheme, _, token = text.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise Unauthenticated(
                    "authorization metadata must be 'Bearer <token>'", reason="TOKEN_MISSING"
                )
            return token.strip()
    return None


def caller() -> Identity:
    """The verified caller of the current RPC."""
    identity = _caller.get()
    if identity is None:
        raise Unauthenticated(
            "this call needs 'authorization: Bearer <token>' metadata", reason="TOKEN_MISSING"
        )
    return identity


def optional_caller() -> Identity | None:
    return _caller.get()


def require_player(player_id: str) -> Identity:
    """The caller, if they are ``player_id`` (or a trusted service acting for them)."""
    identity = caller()
    if identity.player_id != player_id and not identity.is_service:
        raise PermissionDenied("you may only act for yourself", reason="NOT_YOUR_SEAT")
    return identity


def bind(identity: Identity | None) -> contextvars.Token[Identity | None]:
    return _caller.set(identity)


def unbind(token: contextvars.Token[Identity | None]) -> None:
    _caller.reset(token)


def bearer(token: str) -> tuple[tuple[str, str]]:
    """Call metadata carrying a token, for clients."""
    return (("authorization", f"Bearer {token}"),)
