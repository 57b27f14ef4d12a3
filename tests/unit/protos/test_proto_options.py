"""What code generation in other languages needs from protos/, pinned.

Every Parlor .proto names its Go and Java packages by one rule, so clients' import paths
never change (buf breaking's FILE_SAME_GO_PACKAGE / FILE_SAME_JAVA_* checks are off in
protos/buf.yaml because these were first set from unset: this test holds them instead).
The google.rpc messages a client needs to read ErrorInfo are shipped, vendored unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2
from google.rpc import error_details_pb2, status_pb2

from parlor.protos import apidoc

ROOT = Path(__file__).resolve().parents[3]
FILES = apidoc.descriptors(ROOT / "protos")


def _camel(stem: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in stem.split("_"))


@pytest.mark.parametrize("file", FILES, ids=lambda f: f.name)
def test_every_proto_names_its_go_and_java_packages_by_one_rule(
    file: descriptor_pb2.FileDescriptorProto,
) -> None:
    service = file.package.split(".")[1]
    stem = Path(file.name).stem
    assert file.package == f"parlor.{service}.v1"
    assert file.options.go_package == f"parlor.dev/gen/go/parlor/{service}/v1;{service}v1"
    assert file.options.java_package == f"dev.parlor.{service}.v1"
    assert file.options.java_multiple_files is True
    assert file.options.java_outer_classname == _camel(stem) + "Proto"


def test_the_google_rpc_protos_a_client_needs_are_shipped() -> None:
    vendored = ROOT / "protos" / "google" / "rpc"
    for name in ("status.proto", "error_details.proto", "code.proto"):
        assert (vendored / name).is_file(), name
    text = (vendored / "error_details.proto").read_text()
    assert "package google.rpc;" in text
    assert "message ErrorInfo {" in text


def test_the_vendored_messages_are_the_ones_python_decodes() -> None:
    """Same fields, numbers and types as googleapis-common-protos, which the servers use."""
    import grpc_tools
    from grpc_tools import protoc

    include = Path(grpc_tools.__file__).parent / "_proto"
    out = ROOT / ".pytest_cache" / "vendored-google-rpc.pb"
    out.parent.mkdir(exist_ok=True)
    args = [
        "grpc_tools.protoc",
        f"-I{ROOT / 'protos'}",
        f"-I{include}",
        f"--descriptor_set_out={out}",
        "google/rpc/status.proto",
        "google/rpc/error_details.proto",
    ]
    assert protoc.main(args) == 0
    compiled = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    messages = {m.name: m for f in compiled.file for m in f.message_type}
    for python in (status_pb2.Status, error_details_pb2.ErrorInfo):
        expected = descriptor_pb2.DescriptorProto()
        python.DESCRIPTOR.CopyToProto(expected)
        fields = [(f.name, f.number, f.type, f.label) for f in messages[expected.name].field]
        assert fields == [(f.name, f.number, f.type, f.label) for f in expected.field]
