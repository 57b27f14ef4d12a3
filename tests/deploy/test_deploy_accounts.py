"""Accounts' deploy settings (docs/accounts.md): built-in accounts (handle and password) are
off in prod, as in the base, and on in the dev overlay, which has no OpenID Connect
provider."""

from __future__ import annotations

import pytest
from deploy_facts import environment, of_kind, parlor_container, rendered


@pytest.mark.parametrize(("overlay", "expected"), [("prod", "false"), ("dev", "true")])
def test_built_in_accounts_are_off_in_prod(overlay: str, expected: str) -> None:
    objects = rendered(overlay)
    deployment = of_kind(objects, "Deployment")["matchmaking"]
    env = environment(parlor_container(deployment), objects, overlay)
    assert env["PARLOR_PASSWORD_ACCOUNTS"].value == expected
    # the guard's settings are deployed beside it
    for name in ("MAX_ATTEMPTS", "WINDOW_SECONDS", "LOCKOUT_SECONDS"):
        assert f"PARLOR_PASSWORD_{name}" in env
    # the web client offers the forms where the service takes them
    web = environment(parlor_container(of_kind(objects, "Deployment")["web"]), objects, overlay)
    assert web["PARLOR_WEB_PASSWORD_ACCOUNTS"].value == expected
