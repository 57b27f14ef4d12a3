import pytest

from parlor.core.errors import Conflict, InvalidArgument, ParlorError, RuleViolation


def test_rule_violation_names_the_rule_as_its_reason() -> None:
    error = RuleViolation("COLUMN_FULL", "column d is full on the front side")
    assert error.code == "FAILED_PRECONDITION"
    assert error.reason == "COLUMN_FULL"
    assert error.rule == "COLUMN_FULL"
    assert str(error) == "column d is full on the front side"


def test_each_error_maps_to_its_status_name() -> None:
    assert InvalidArgument("x").code == "INVALID_ARGUMENT"
    assert Conflict("x").code == "ABORTED"
    assert Conflict("x").reason == "CONFLICT"
    assert ParlorError("x").code == "INTERNAL"


def test_reason_must_be_machine_readable() -> None:
    with pytest.raises(ValueError):
        InvalidArgument("x", reason="not a reason")
