"""Only the dictionary ends its connections after an age (deploy/README.md, configuration
reference): its callers then resolve its name again and find pods a scale-up added; every
other service serves streams an age would cut.
"""

from __future__ import annotations

from typing import Any

from deploy_facts import environment, of_kind, parlor_container

AGE = "PARLOR_GRPC_MAX_CONNECTION_AGE_SECONDS"


def test_only_the_dictionary_ends_its_connections_after_an_age(
    objects: tuple[dict[str, Any], ...], overlay: str
) -> None:
    ages = {
        name: float(str(environment(parlor_container(d), objects, overlay)[AGE].value))
        for name, d in of_kind(objects, "Deployment").items()
    }
    assert ages.pop("dictionary") > 0
    assert ages, "no other service"
    assert set(ages.values()) == {0}, ages
