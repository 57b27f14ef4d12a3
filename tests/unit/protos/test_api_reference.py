"""docs/api.md is the protos' own word: regenerated from their comments, it must not differ."""

from __future__ import annotations

import difflib
from pathlib import Path

from parlor.protos import apidoc

ROOT = Path(__file__).resolve().parents[3]


def test_the_api_reference_is_what_the_protos_say() -> None:
    made = apidoc.render(ROOT / "protos")
    kept = (ROOT / "docs" / "api.md").read_text()
    diff = "".join(
        difflib.unified_diff(
            kept.splitlines(keepends=True), made.splitlines(keepends=True), "docs/api.md", "made"
        )
    )
    assert not diff, "docs/api.md is out of date: run `make protos`\n" + diff[:4000]


def test_every_service_method_message_and_field_is_in_it_with_its_comment() -> None:
    text = apidoc.render(ROOT / "protos")
    for f in apidoc.descriptors(ROOT / "protos"):
        for service in f.service:
            assert f'id="{f.package}.{service.name}"' in text
            for method in service.method:
                assert f"| `{method.name}` |" in text
        for message in f.message_type:
            assert f'id="{f.package}.{message.name}"' in text
    # a comment from deep inside: a field's own comment, and the creator-must-sit rule
    assert "Client-chosen id making the call idempotent." in text
    assert "The caller must sit in the game" in text
    # comments are escaped where Markdown would read HTML
    assert '"&lt;game type&gt;-&lt;game id&gt;"' in text


def test_the_vendored_google_rpc_files_are_left_out_of_it() -> None:
    assert all(not name.startswith("google/") for name in apidoc.proto_files(ROOT / "protos"))
    assert "google/rpc/status.proto" not in apidoc.render(ROOT / "protos")
