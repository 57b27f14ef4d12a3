"""Sign-in through OpenID Connect providers: the relying party's side.

For each configured provider (``PARLOR_OIDC_PROVIDERS``, secrets from
``PARLOR_OIDC_CLIENT_SECRETS``):

- **discovery**: ``<issuer>/.well-known/openid-configuration`` is fetched when first
  needed and kept for an hour; its ``issuer`` must be the configured one exactly
  (OpenID Connect Discovery 4.3), or the provider is refused as misconfigured;
- **keys**: the provider's JWKS (``jwks_uri``) is fetched and kept; an ID token signed by
  a key id the set does not hold makes one refetch (a provider rotated its keys), at most
  once per ``JWKS_REFETCH_SECONDS``, so a stream of forged key ids cannot make Parlor
  hammer the provider;
- **the authorisation request** (Authlib's OAuth 2 client): the code flow with PKCE
  (S256), ``state`` and ``nonce`` of 256 random bits each, the scopes ``openid profile``;
- **the code exchange** (Authlib, client_secret_basic) and **the ID token** (joserfc):
  signed by one of the provider's keys with an asymmetric algorithm (never ``none`` or
  an HMAC), ``iss`` the provider's, ``aud`` holding the client id (and ``azp`` it when
  there are several), not expired (60 s leeway), ``nonce`` the one sent, ``sub`` present.

The authorisation response's ``iss`` (RFC 9207) must be the provider's, and be there if the
provider's metadata says it sends one (``ISSUER_MISMATCH``).

Every refusal is a ParlorError with a reason: the provider's own refusals of a code
(reused, swapped, expired: ``CODE_REJECTED``), ID tokens (``ID_TOKEN_WRONG_ISSUER``,
``ID_TOKEN_WRONG_AUDIENCE``, ``ID_TOKEN_EXPIRED``, ``ID_TOKEN_NONCE_MISMATCH``,
``ID_TOKEN_UNKNOWN_KEY``, ``ID_TOKEN_BAD_SIGNATURE``, ``ID_TOKEN_INVALID``), and a provider
that cannot be reached (``UNAVAILABLE PROVIDER_UNAVAILABLE``).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx2
from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.httpx_client import AsyncOAuth2Client
from joserfc import jws, jwt
from joserfc.errors import (
    BadSignatureError,
    ExpiredTokenError,
    InvalidClaimError,
    JoseError,
    MissingClaimError,
)
from joserfc.jwk import KeySet

from parlor.core.errors import InvalidArgument, Unauthenticated, Unavailable
from parlor.kit.settings import SettingsError, setting

DISCOVERY_SECONDS = 3600.0
JWKS_SECONDS = 3600.0
JWKS_REFETCH_SECONDS = 10.0
LEEWAY_SECONDS = 60
HTTP_TIMEOUT_SECONDS = 10.0
ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA")
"""Asymmetric only: an HMAC ID token is signed with the client secret, which Parlor holds."""
SCOPES = "openid profile"
MAX_PROVIDER_NAME = 32


@dataclass(frozen=True)
class OidcSettings:
    providers: str = setting(
        "PARLOR_OIDC_PROVIDERS",
        'the OpenID Connect providers players may sign in with, as JSON: {"<name>":'
        ' {"issuer": "<URL>", "client_id": "<id>", "redirect_uris": ["<URL>", ...]}, ...}'
        " (the redirect URIs BeginSignIn accepts; each registered at the provider);"
        " empty: none, and BeginSignIn refuses",
        "",
    )
    client_secrets: str = setting(
        "PARLOR_OIDC_CLIENT_SECRETS",
        'the providers\' client secrets, as JSON {"<name>": "<secret>"} (from a Secret)',
        "",
    )
    sign_in_seconds: int = setting(
        "PARLOR_SIGN_IN_SECONDS",
        "how long a begun sign-in may be completed (its state is single use)",
        600,
    )
    refresh_ttl_seconds: int = setting(
        "PARLOR_ACCOUNT_REFRESH_SECONDS",
        "how long an account's refresh token lasts unused (each renewal rotates it and starts"
        " this again)",
        30 * 24 * 3600,
    )


@dataclass(frozen=True)
class ProviderConfig:
    name: str
    issuer: str
    client_id: str
    client_secret: str
    redirect_uris: tuple[str, ...]


def provider_configs(settings: OidcSettings) -> dict[str, ProviderConfig]:
    """The configured providers by name; SettingsError naming what is wrong."""
    if not settings.providers.strip():
        return {}
    try:
        declared = json.loads(settings.providers)
        secrets = json.loads(settings.client_secrets) if settings.client_secrets.strip() else {}
    except ValueError as exc:
        raise SettingsError(f"PARLOR_OIDC_PROVIDERS/CLIENT_SECRETS is not JSON: {exc}") from None
    if not isinstance(declared, dict) or not isinstance(secrets, dict):
        raise SettingsError("PARLOR_OIDC_PROVIDERS and _CLIENT_SECRETS are JSON objects by name")
    configs = {}
    for name, entry in declared.items():
        if not isinstance(entry, dict) or not name or len(name) > MAX_PROVIDER_NAME:
            raise SettingsError(f"PARLOR_OIDC_PROVIDERS: {name!r} needs an object of settings")
        try:
            issuer, client_id = str(entry["issuer"]), str(entry["client_id"])
            uris = tuple(str(u) for u in entry["redirect_uris"])
        except (KeyError, TypeError):
            raise SettingsError(
                f"PARLOR_OIDC_PROVIDERS: {name!r} needs issuer, client_id and redirect_uris"
            ) from None
        if urlsplit(issuer).scheme not in ("https", "http"):
            raise SettingsError(f"PARLOR_OIDC_PROVIDERS: {name!r} needs an http(s) issuer URL")
        if not uris:
            raise SettingsError(f"PARLOR_OIDC_PROVIDERS: {name!r} needs a redirect URI at least")
        secret = secrets.get(name)
        if not isinstance(secret, str) or not secret:
            raise SettingsError(f"PARLOR_OIDC_CLIENT_SECRETS has no secret for {name!r}")
        configs[name] = ProviderConfig(name, issuer.rstrip("/"), client_id, secret, uris)
    return configs


@dataclass
class _Cached:
    value: Any = None
    fetched: float = field(default=-1e18)


def _unavailable(what: str, exc: Exception) -> Unavailable:
    return Unavailable(
        f"the sign-in provider could not be reached ({what}: {type(exc).__name__}); retry later",
        reason="PROVIDER_UNAVAILABLE",
    )


def _refused(why: str, reason: str) -> Unauthenticated:
    return Unauthenticated(f"the sign-in was refused: {why}; sign in again", reason=reason)


class Provider:
    """One OpenID Connect provider as Parlor's relying party."""

    def __init__(
        self,
        config: ProviderConfig,
        http: httpx2.AsyncClient,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self.http = http
        self.clock = clock
        self._metadata = _Cached()
        self._keys = _Cached()
        self._fetching = asyncio.Lock()
        self._refetched = -1e18
        self.jwks_fetches = 0

    async def _get_json(self, url: str, what: str) -> dict[str, Any]:
        try:
            response = await self.http.get(url, timeout=HTTP_TIMEOUT_SECONDS)
            response.raise_for_status()
            document = response.json()
        except (httpx2.HTTPError, ValueError) as exc:
            raise _unavailable(what, exc) from None
        if not isinstance(document, dict):
            raise _unavailable(what, TypeError("not a JSON object"))
        return document

    async def metadata(self) -> dict[str, Any]:
        """The provider's discovery document (cached)."""
        if self.clock() - self._metadata.fetched > DISCOVERY_SECONDS:
            url = f"{self.config.issuer}/.well-known/openid-configuration"
            document = await self._get_json(url, "discovery")
            if document.get("issuer") != self.config.issuer:
                raise Unavailable(
                    f"the provider {self.config.name!r} names another issuer in its discovery"
                    " document than the one configured",
                    reason="PROVIDER_MISCONFIGURED",
                )
            for needed in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
                if not isinstance(document.get(needed), str):
                    raise Unavailable(
                        f"the provider's discovery document has no {needed}",
                        reason="PROVIDER_MISCONFIGURED",
                    )
            self._metadata = _Cached(document, self.clock())
        return dict(self._metadata.value)

    async def _key_set(self, kid: str | None) -> KeySet:
        """The provider's keys; fetched again if ``kid`` is unknown, within the rate bound.

        One lookup at a time (a lock; no I/O while the keys are fresh), so many ID tokens
        naming a new key at once make one fetch, and a refetch is tried at most once per
        ``JWKS_REFETCH_SECONDS`` whether it worked or not."""
        async with self._fetching:
            now = self.clock()
            keys: KeySet | None = self._keys.value
            stale = now - self._keys.fetched > JWKS_SECONDS
            unknown = keys is not None and kid is not None and not _holds(keys, kid)
            refetch = unknown and now - self._refetched > JWKS_REFETCH_SECONDS
            if keys is None or stale or refetch:
                self._refetched = now
                document = await self._get_json((await self.metadata())["jwks_uri"], "keys")
                try:
                    keys = KeySet.import_key_set(document)  # type: ignore[arg-type]
                except (JoseError, ValueError, KeyError, TypeError) as exc:
                    raise _unavailable("keys", exc) from None
                self._keys = _Cached(keys, now)
                self.jwks_fetches += 1
            assert keys is not None
            return keys

    def _client(self, redirect_uri: str) -> AsyncOAuth2Client:
        return AsyncOAuth2Client(
            client_id=self.config.client_id,
            client_secret=self.config.client_secret,
            token_endpoint_auth_method="client_secret_basic",
            code_challenge_method="S256",
            redirect_uri=redirect_uri,
            scope=SCOPES,
            timeout=HTTP_TIMEOUT_SECONDS,
        )

    def check_redirect_uri(self, redirect_uri: str) -> None:
        if redirect_uri not in self.config.redirect_uris:
            raise InvalidArgument(
                f"this redirect URI is not one configured for {self.config.name!r}",
                reason="REDIRECT_URI_NOT_ALLOWED",
            )

    async def authorization_url(
        self, state: str, nonce: str, code_verifier: str, redirect_uri: str
    ) -> str:
        """Where to send the player's browser: the provider's authorisation endpoint."""
        endpoint = (await self.metadata())["authorization_endpoint"]
        async with self._client(redirect_uri) as client:
            url, _ = client.create_authorization_url(
                endpoint, state=state, nonce=nonce, code_verifier=code_verifier
            )
        return str(url)

    async def check_response_issuer(self, iss: str) -> None:
        """The authorisation response's ``iss`` (RFC 9207): the provider's own, and present
        if the provider says it sends one, so another provider's answer is never taken for
        this one's (a mix-up attack)."""
        if iss:
            sent = iss == self.config.issuer
        else:
            sent = not (await self.metadata()).get("authorization_response_iss_parameter_supported")
        if not sent:
            raise _refused(
                "the answer came from another issuer than the provider's (or without the iss"
                " the provider sends)",
                "ISSUER_MISMATCH",
            )

    async def exchange(self, code: str, code_verifier: str, redirect_uri: str) -> str:
        """The ID token the provider gives for ``code`` (not yet checked)."""
        endpoint = (await self.metadata())["token_endpoint"]
        async with self._client(redirect_uri) as client:
            try:
                token = await client.fetch_token(
                    endpoint,
                    grant_type="authorization_code",
                    code=code,
                    code_verifier=code_verifier,
                )
            except OAuthError as exc:
                raise _refused(
                    f"the provider refused the code ({exc.error}: it was used already, was"
                    " issued for another sign-in, or expired)",
                    "CODE_REJECTED",
                ) from None
            except httpx2.HTTPError as exc:
                raise _unavailable("token", exc) from None
        id_token = token.get("id_token")
        if not isinstance(id_token, str):
            raise _refused("the provider sent no ID token", "ID_TOKEN_INVALID")
        return id_token

    async def verify_id_token(self, id_token: str, nonce: str) -> dict[str, Any]:
        """The ID token's claims, once every check has passed."""
        try:
            kid = jws.extract_compact(id_token.encode()).headers().get("kid")
        except (JoseError, ValueError) as exc:
            raise _refused(f"the ID token is not a JWS ({exc})", "ID_TOKEN_INVALID") from None
        keys = await self._key_set(kid if isinstance(kid, str) else None)
        if isinstance(kid, str) and not _holds(keys, kid):
            raise _refused(
                "the ID token is signed by a key the provider does not publish",
                "ID_TOKEN_UNKNOWN_KEY",
            )
        try:
            token = jwt.decode(id_token, keys, algorithms=list(ALGORITHMS))
        except BadSignatureError:
            raise _refused("the ID token's signature is wrong", "ID_TOKEN_BAD_SIGNATURE") from None
        except (JoseError, ValueError) as exc:
            raise _refused(f"the ID token cannot be read ({exc})", "ID_TOKEN_INVALID") from None
        claims = token.claims
        registry = jwt.JWTClaimsRegistry(
            now=int(self.clock()),
            leeway=LEEWAY_SECONDS,
            iss={"essential": True, "value": self.config.issuer},
            sub={"essential": True},
            aud={"essential": True},
            exp={"essential": True},
            iat={"essential": True},
            nonce={"essential": True, "value": nonce},
        )
        try:
            registry.validate(claims)
        except ExpiredTokenError:
            raise _refused("the ID token has expired", "ID_TOKEN_EXPIRED") from None
        except (InvalidClaimError, MissingClaimError) as exc:
            reason = {"iss": "ID_TOKEN_WRONG_ISSUER", "nonce": "ID_TOKEN_NONCE_MISMATCH"}.get(
                exc.claim, "ID_TOKEN_INVALID"
            )
            raise _refused(f"the ID token's {exc.claim} is wrong or missing", reason) from None
        except JoseError as exc:
            raise _refused(f"the ID token is not acceptable ({exc})", "ID_TOKEN_INVALID") from None
        audience = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
        if self.config.client_id not in audience or (
            len(audience) > 1 and claims.get("azp") != self.config.client_id
        ):
            raise _refused("the ID token is for another client", "ID_TOKEN_WRONG_AUDIENCE")
        return dict(claims)


def _holds(keys: KeySet, kid: str) -> bool:
    return any(key.kid == kid for key in keys.keys)


class Providers:
    """The configured providers by name, sharing one HTTP client."""

    def __init__(
        self,
        configs: Mapping[str, ProviderConfig],
        http: httpx2.AsyncClient | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.http = http or httpx2.AsyncClient(follow_redirects=False)
        self.by_name = {name: Provider(c, self.http, clock) for name, c in configs.items()}

    def get(self, name: str) -> Provider:
        provider = self.by_name.get(name)
        if provider is None:
            offered = ", ".join(sorted(self.by_name)) or "none is configured"
            raise InvalidArgument(
                f"no sign-in provider of that name (offered: {offered})",
                reason="UNKNOWN_PROVIDER",
            )
        return provider

    async def close(self) -> None:
        await self.http.aclose()
