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
  token (subject ``service:<kid>``, role ``service``), never a player's or an admin's,
  and only for the services its JWK names (``aud``: what the game's declaration says it
  calls, ``GameType.calls``; ``parlor-keys`` writes it);
- every service verifies with the public keys it is given (a JWKS document or file,
  ``PARLOR_JWT_PUBLIC_KEYS``) and with the public half of its own key.

Audiences. A service token (role ``service``) holds powers no player has: it may seat
anyone in a game it creates, make tickets for others, and is not rate-limited (it moves
in a game only for a seat it holds itself: no token moves for a player but the player's).
So it names
the services it is for (the JWT ``aud`` claim: component names, ``dictionary``,
``matchmaking``, ``upwords``...), and a server takes it only for a method of one of
those components (``verify_token``'s ``audience``; PyJWT checks the claim). Anything
else is UNAUTHENTICATED ``TOKEN_WRONG_AUDIENCE``: a service token naming no audience,
or not this one. A word game's token is for the dictionary alone, and its key can sign
for nothing else, so a compromised word-game pod can mint no token but its own
service's, and that token opens only the dictionary. Player, guest and admin tokens
name no audience and are taken by every service, as before.

Outside an explicit development mode (``PARLOR_DEV_MODE``), a server with no key
refuses to start; ``make run`` keeps a random key in its data directory.
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
from dataclasses import dataclass, field
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
WRONG_AUDIENCE = "TOKEN_WRONG_AUDIENCE"
"""The reason a service token is refused by a service it is not meant for."""
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
        " service's name (signs only that service's own token, for the services its JWK's aud"
        " names)",
        IDENTITY_KEY_ID,
    )
    public_keys: str = setting(
        "PARLOR_JWT_PUBLIC_KEYS",
        "the keys that verify tokens: a JWKS document (JSON) or a path to a JWKS file (a"
        " service key's aud: the services it may sign for); the public half of"
        " PARLOR_JWT_PRIVATE_KEY is always added",
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
    audience: tuple[str, ...] = ()
    """The services (component names) a service token is for (``aud``); none for players."""

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


def public_jwk(private_key_pem: str, key_id: str, audience: Sequence[str] = ()) -> dict[str, Any]:
    """The public half of a private key as a JWK (``kid``, ``alg`` EdDSA, ``use`` sig), with
    the services a service's key may sign tokens for (``aud``; the identity key: any)."""
    public = _private_key(private_key_pem).public_key()
    jwk: dict[str, Any] = json.loads(OKPAlgorithm.to_jwk(public))
    jwk = {**jwk, "kid": key_id, "alg": ALGORITHM, "use": "sig"}
    if audience:
        jwk["aud"] = sorted(audience)
    return jwk


def jwks(keys: Mapping[str, str], audiences: Mapping[str, Sequence[str]] | None = None) -> str:
    """A JWKS document of the public halves of private keys given by key id; ``audiences``:
    by key id, the services that key may sign tokens for (a service's key without any
    signs a token no service takes)."""
    given = audiences or {}
    return json.dumps(
        {"keys": [public_jwk(pem, kid, given.get(kid, ())) for kid, pem in sorted(keys.items())]}
    )


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
    audiences: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """By key id, the services a service's key may sign tokens for (its JWK's ``aud``);
    the identity key signs for any."""


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
    audiences: dict[str, frozenset[str]] = {}
    if settings.public_keys.strip():
        try:
            document = json.loads(_text(settings.public_keys))
            for jwk in document["keys"]:
                key = OKPAlgorithm.from_jwk(jwk)
                if not isinstance(key, Ed25519PublicKey) or not jwk.get("kid"):
                    raise ValueError("every key must be an Ed25519 public key with a kid")
                aud = jwk.get("aud", [])
                if not isinstance(aud, list) or not all(isinstance(a, str) for a in aud):
                    raise ValueError("a key's aud is a list of service names")
                verifying[str(jwk["kid"])] = key
                audiences[str(jwk["kid"])] = frozenset(aud)
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
    return Keyring(signing, settings.key_id, verifying, audiences)


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
    audience: Sequence[str] = (),
) -> str:
    """A signed token for ``subject``; a service token names the services it is for
    (``audience``, the ``aud`` claim: component names), or no service takes it."""
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
    if audience:
        claims["aud"] = list(audience)
    return jwt.encode(claims, ring.signing, algorithm=ALGORITHM, headers={"kid": ring.signing_id})


_VERIFIED: OrderedDict[tuple[AuthSettings, str, str | None], tuple[Identity, float]] = OrderedDict()
_VERIFIED_SIZE = 8192


def verify_token(settings: AuthSettings, token: str, audience: str | None = None) -> Identity:
    """The identity in a token, or Unauthenticated saying what is wrong with it.

    ``audience`` is the service (component name) the token is presented to: a service
    token must name it (``TOKEN_WRONG_AUDIENCE``). None: no service in particular (tools
    reading a token, the standard health and reflection services); a service token must
    still name some audience.

    A signature is checked once per token and audience; its identity is remembered (keyed
    by the token's exact text and the audience, the least recently used of
    ``_VERIFIED_SIZE`` forgotten first) until the token's own expiry, never past it. What a
    call checks beyond the token (the rate limit, a seat) is still checked per call by the
    caller.
    """
    now = time.time()
    key = (settings, token, audience)
    held = _VERIFIED.get(key)
    if held is not None:
        if held[1] > now:
            _VERIFIED.move_to_end(key)
            return held[0]
        del _VERIFIED[key]
    identity, expires = _verify(settings, token, audience)
    _VERIFIED[key] = (identity, expires)
    while len(_VERIFIED) > _VERIFIED_SIZE:
        _VERIFIED.popitem(last=False)
    return identity


def _invalid(why: str) -> Unauthenticated:
    return Unauthenticated(f"the token is invalid: {why}", reason="TOKEN_INVALID")


# Where a client whose token is refused gets another one.
_GET_ANOTHER = "get a new one from IdentityService/IssueGuestToken (or `parlor token`)"


def _unreadable(exc: jwt.InvalidTokenError) -> Unauthenticated:
    """TOKEN_INVALID in words a client can show its user: PyJWT's own text for a token it
    cannot read (``Invalid crypto padding``, a codec's complaint quoting a byte of what was
    sent) says nothing a user can act on."""
    if isinstance(exc, jwt.InvalidSignatureError):
        why = (
            "its signature is not this platform's (a token of another platform, "
            "or of this one before its signing key changed)"
        )
    elif isinstance(exc, jwt.DecodeError):
        why = "it is not a token this platform issued (not a well-formed JWT)"
    else:  # a claim PyJWT names in words: the issuer, a token not valid yet, a missing claim
        why = str(exc)
    return _invalid(f"{why}; {_GET_ANOTHER}")


def _wrong_audience(why: str) -> Unauthenticated:
    return Unauthenticated(
        f"this service token is not for this service: {why}", reason=WRONG_AUDIENCE
    )


_UNNAMED = "a service token must name the services it is for (its aud claim)"


def _roles(claims: Mapping[str, Any]) -> tuple[str, ...]:
    raw = claims.get("roles") or []
    return tuple(str(r) for r in raw) if isinstance(raw, list) else ()


def _audience(claims: Mapping[str, Any]) -> tuple[str, ...]:
    """The ``aud`` claim as a tuple (one name or a list of them, as JWT allows)."""
    raw = claims.get("aud")
    if raw is None:
        return ()
    names = [raw] if isinstance(raw, str) else raw
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise _invalid("aud must be a service name or a list of them")
    return tuple(names)


def _names(audience: Sequence[str]) -> str:
    shown = ", ".join(repr(a[:64]) for a in audience[:8])
    return shown + (", ..." if len(audience) > 8 else "")


def _check_key(ring: Keyring, kid: str, claims: Mapping[str, Any]) -> None:
    """A service's own key signs only that service's token, for the services its JWK names
    (TOKEN_INVALID: a forgery, whatever the token is presented to)."""
    if kid == IDENTITY_KEY_ID:
        return
    if claims.get("sub") != SERVICE_SUBJECT_PREFIX + kid or _roles(claims) != (SERVICE_ROLE,):
        raise _invalid(f"key {kid!r} may sign only the token of service {kid!r}")
    allowed = ring.audiences.get(kid, frozenset())
    if not set(_audience(claims)) <= allowed:
        raise _invalid(
            f"key {kid!r} may sign tokens only for {_names(sorted(allowed)) or 'no service'}"
        )


def _verify(
    settings: AuthSettings, token: str, audience: str | None = None
) -> tuple[Identity, float]:
    if len(token) > MAX_TOKEN_BYTES:
        raise _invalid(f"longer than {MAX_TOKEN_BYTES} bytes")
    ring = keyring(settings)
    try:
        kid = jwt.get_unverified_header(token).get("kid")
        # Only to choose the checks: a service token (or any naming an audience) is checked
        # against the service it is presented to. The signature is checked below.
        unverified = jwt.decode(token, options={"verify_signature": False})
    except jwt.InvalidTokenError as exc:
        raise _unreadable(exc) from None
    if not isinstance(kid, str) or kid not in ring.verifying:
        raise _invalid(f"signed by no key this service trusts; {_GET_ANOTHER}")
    scoped = "aud" in unverified or SERVICE_ROLE in _roles(unverified)
    checked = scoped and audience is not None
    key = ring.verifying[kid]
    try:
        claims = jwt.decode(
            token,
            key,
            algorithms=[ALGORITHM],
            issuer=ISSUER,
            audience=audience if checked else None,
            options={
                "require": ["sub", "exp", "iss", *(["aud"] if scoped else [])],
                "verify_aud": checked,
            },
        )
    except jwt.ExpiredSignatureError:
        raise Unauthenticated(
            f"the token has expired; {_GET_ANOTHER} (a client keeps one fresh with"
            " IdentityService/RefreshToken before it expires)",
            reason="TOKEN_EXPIRED",
        ) from None
    except (jwt.MissingRequiredClaimError, jwt.InvalidAudienceError) as exc:
        if isinstance(exc, jwt.MissingRequiredClaimError) and exc.claim != "aud":
            raise _unreadable(exc) from None
        # PyJWT checks the signature before any claim: these claims are the signer's
        _check_key(ring, kid, unverified)
        named = _audience(unverified)
        why = f"it is for {_names(named)}, not {audience or 'this method'!r}"
        raise _wrong_audience(why if named else _UNNAMED) from None
    except jwt.InvalidTokenError as exc:
        raise _unreadable(exc) from None
    _check_key(ring, kid, claims)
    roles, aud, subject = _roles(claims), _audience(claims), str(claims["sub"])
    if SERVICE_ROLE in roles and not aud:
        raise _wrong_audience(_UNNAMED)
    started = claims.get("sid_iat", claims.get("iat", 0))
    identity = Identity(
        player_id=subject,
        name=str(claims.get("name") or subject),
        roles=roles,
        session_started=int(started) if isinstance(started, int | float) else 0,
        audience=aud,
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
        audience=identity.audience,
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
    """The caller, if they are ``player_id`` (or a trusted service acting for them: one
    whose token names this service, which the interceptor checked)."""
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
