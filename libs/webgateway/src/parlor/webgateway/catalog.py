"""Every RPC the bridge can forward, found from the protobuf descriptors of ``parlor.*.v1``.

Nothing here is written per RPC: the generated modules are imported, and each
service's methods become entries with their request and response classes.
A method whose request has a version to resume from (``after_version``, or
``from_version``) and whose responses say which version they are of
(``event.info.version``) can be resumed by a client that reconnects.
"""

from __future__ import annotations

import glob
import importlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from google.protobuf.descriptor import Descriptor, MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

import parlor

# The request field a resumed stream continues from, and what to put in it given the last
# version the client saw: "after" that version, or "from" the one after it.
RESUME_FIELDS: Mapping[str, int] = {"after_version": 0, "from_version": 1}
# Where a streamed response says which version of its stream it is (the SSE event id).
VERSION_PATH = ("event", "info", "version")


@dataclass(frozen=True)
class Method:
    service: str  # "parlor.connect4x4.v1.Connect4x4Service"
    name: str  # "PlayMove"
    request: type[Message]
    response: type[Message]
    server_streaming: bool
    client_streaming: bool
    resume_field: str | None  # request field set from Last-Event-ID
    versioned: bool  # responses carry VERSION_PATH
    request_type: Descriptor  # the request's descriptor (its fields' bounds)

    @property
    def path(self) -> str:
        """The gRPC method path, "/package.Service/Method"."""
        return f"/{self.service}/{self.name}"


def proto_modules() -> list[ModuleType]:
    """Every generated ``parlor.<name>.v<n>.<file>_pb2`` module installed."""
    found = set()
    for root in parlor.__path__:
        for path in glob.glob(os.path.join(root, "*", "v*", "*_pb2.py")):
            rel = Path(path).relative_to(root).with_suffix("")
            found.add("parlor." + ".".join(rel.parts))
    return [importlib.import_module(name) for name in sorted(found)]


def _has_path(descriptor: Descriptor, path: Iterable[str]) -> bool:
    *parents, leaf = path
    for name in parents:
        field = descriptor.fields_by_name.get(name)
        if field is None or field.message_type is None:
            return False
        descriptor = field.message_type
    return leaf in descriptor.fields_by_name


def _method(service: ServiceDescriptor, method: MethodDescriptor) -> Method:
    request = GetMessageClass(method.input_type)
    response = GetMessageClass(method.output_type)
    resume = next((f for f in RESUME_FIELDS if f in method.input_type.fields_by_name), None)
    return Method(
        service=service.full_name,
        name=method.name,
        request=request,
        response=response,
        server_streaming=method.server_streaming,
        client_streaming=method.client_streaming,
        resume_field=resume if method.server_streaming else None,
        versioned=_has_path(method.output_type, VERSION_PATH),
        request_type=method.input_type,
    )


def catalog(modules: Iterable[ModuleType] | None = None) -> dict[str, Method]:
    """Methods by "package.Service/Method"; client streaming cannot be bridged and is left out."""
    methods: dict[str, Method] = {}
    for module in proto_modules() if modules is None else modules:
        for service in module.DESCRIPTOR.services_by_name.values():
            for descriptor in service.methods:
                method = _method(service, descriptor)
                if not method.client_streaming:
                    methods[f"{method.service}/{method.name}"] = method
    return methods


def version_of(message: Message) -> int | None:
    """The stream version a response is of (``event.info.version``), if it says."""
    current: Message = message
    for name in VERSION_PATH[:-1]:
        if not current.HasField(name):
            return None
        current = getattr(current, name)
    version = int(getattr(current, VERSION_PATH[-1]))
    return version or None
