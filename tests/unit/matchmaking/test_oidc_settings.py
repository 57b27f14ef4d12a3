"""OpenID Connect providers from settings: a malformed setting stops the start, naming it."""

from __future__ import annotations

import json

import pytest

from parlor.kit.settings import SettingsError
from parlor.services.matchmaking.oidc import OidcSettings, provider_configs

GOOD = {
    "kc": {
        "issuer": "https://sso.example/realms/x/",
        "client_id": "parlor",
        "redirect_uris": ["https://p.example/cb"],
    }
}


def settings(providers: object, secrets: object) -> OidcSettings:
    return OidcSettings(providers=json.dumps(providers), client_secrets=json.dumps(secrets))


def test_no_provider_by_default() -> None:
    assert provider_configs(OidcSettings()) == {}


def test_a_provider_with_its_secret() -> None:
    (config,) = provider_configs(settings(GOOD, {"kc": "s3cret"})).values()
    assert config.issuer == "https://sso.example/realms/x"  # no trailing slash
    assert (config.client_id, config.client_secret) == ("parlor", "s3cret")
    assert config.redirect_uris == ("https://p.example/cb",)


@pytest.mark.parametrize(
    ("providers", "secrets", "says"),
    [
        (GOOD, {}, "no secret for 'kc'"),
        (
            {"kc": {"issuer": "ftp://x", "client_id": "c", "redirect_uris": ["u"]}},
            {"kc": "s"},
            "http",
        ),
        ({"kc": {"issuer": "https://x", "client_id": "c"}}, {"kc": "s"}, "redirect_uris"),
        (
            {"kc": {"issuer": "https://x", "client_id": "c", "redirect_uris": []}},
            {"kc": "s"},
            "a redirect URI",
        ),
        ({"kc": "https://x"}, {"kc": "s"}, "an object"),
        (["kc"], {}, "JSON objects"),
    ],
)
def test_malformed_settings_are_refused_naming_what_is_wrong(
    providers: object, secrets: object, says: str
) -> None:
    with pytest.raises(SettingsError, match=says):
        provider_configs(settings(providers, secrets))


def test_settings_that_are_not_json_are_refused() -> None:
    with pytest.raises(SettingsError, match="not JSON"):
        provider_configs(OidcSettings(providers="{", client_secrets=""))
