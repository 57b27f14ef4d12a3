"""The API reference (``docs/api.md``) made from the comments in ``protos/``.

protoc (from grpcio-tools) compiles every Parlor .proto into descriptors with their
source info (``--include_source_info``); each service, method, message, field, enum and
value is written out with the comment above it (and one after it on its line). Nothing is
written by hand: ``make protos`` regenerates the file and a test regenerates it and
compares, so the reference is always the protos' own word. The vendored ``google/rpc``
files are left to their upstream documentation.

    python -m parlor.protos.apidoc [PROTO_ROOT] [OUT]   # default: protos/ -> docs/api.md
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from google.protobuf import descriptor_pb2 as d

# SourceCodeInfo paths: the field numbers of these in descriptor.proto.
_FILE_MESSAGE, _FILE_ENUM, _FILE_SERVICE = 4, 5, 6
_MESSAGE_FIELD, _MESSAGE_NESTED, _MESSAGE_ENUM = 2, 3, 4
_ENUM_VALUE, _SERVICE_METHOD = 2, 2

_SCALARS = {
    d.FieldDescriptorProto.TYPE_DOUBLE: "double",
    d.FieldDescriptorProto.TYPE_FLOAT: "float",
    d.FieldDescriptorProto.TYPE_INT64: "int64",
    d.FieldDescriptorProto.TYPE_UINT64: "uint64",
    d.FieldDescriptorProto.TYPE_INT32: "int32",
    d.FieldDescriptorProto.TYPE_FIXED64: "fixed64",
    d.FieldDescriptorProto.TYPE_FIXED32: "fixed32",
    d.FieldDescriptorProto.TYPE_BOOL: "bool",
    d.FieldDescriptorProto.TYPE_STRING: "string",
    d.FieldDescriptorProto.TYPE_BYTES: "bytes",
    d.FieldDescriptorProto.TYPE_UINT32: "uint32",
    d.FieldDescriptorProto.TYPE_SFIXED32: "sfixed32",
    d.FieldDescriptorProto.TYPE_SFIXED64: "sfixed64",
    d.FieldDescriptorProto.TYPE_SINT32: "sint32",
    d.FieldDescriptorProto.TYPE_SINT64: "sint64",
}


def proto_files(proto_root: Path) -> list[str]:
    """Parlor's own .proto files under ``proto_root`` (not the vendored google/), sorted."""
    return sorted(
        str(p.relative_to(proto_root))
        for p in proto_root.rglob("*.proto")
        if p.relative_to(proto_root).parts[0] != "google"
    )


def descriptors(proto_root: Path) -> list[d.FileDescriptorProto]:
    """Parlor's files compiled by protoc with their comments, in path order."""
    import grpc_tools  # type: ignore[import-untyped]
    from grpc_tools import protoc  # type: ignore[import-untyped]

    files = proto_files(proto_root)
    include = Path(grpc_tools.__file__).parent / "_proto"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "set.pb"
        args = [
            "grpc_tools.protoc",
            f"-I{proto_root}",
            f"-I{include}",
            "--include_source_info",
            f"--descriptor_set_out={out}",
            *files,
        ]
        if protoc.main(args) != 0:
            raise RuntimeError("protoc failed: " + " ".join(args))
        found = d.FileDescriptorSet.FromString(out.read_bytes())
    by_name = {f.name: f for f in found.file}
    return [by_name[name] for name in files]


class _Comments:
    def __init__(self, file: d.FileDescriptorProto) -> None:
        self._at = {tuple(loc.path): loc for loc in file.source_code_info.location}

    def __call__(self, *path: int) -> str:
        loc = self._at.get(path)
        if loc is None:
            return ""
        parts = [loc.leading_comments.strip(), loc.trailing_comments.strip()]
        return "\n".join(_dedent(p) for p in parts if p)


def _dedent(comment: str) -> str:
    return "\n".join(_escape(line.strip()) for line in comment.splitlines())


def _escape(text: str) -> str:
    """``<`` and ``>`` outside `code` spans as entities: Markdown would take them for HTML."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):
        parts[i] = parts[i].replace("<", "&lt;").replace(">", "&gt;")
    return "`".join(parts)


def _cell(text: str) -> str:
    """A comment inside a table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _link(type_name: str, known: set[str]) -> str:
    name = type_name.lstrip(".")
    return f"[`{name}`](#{name})" if name in known else f"`{name}`"


def _anchor(full_name: str) -> str:
    return f'<a id="{full_name}"></a>'


def _all_types(files: Sequence[d.FileDescriptorProto]) -> set[str]:
    names: set[str] = set()

    def walk(prefix: str, messages: Sequence[d.DescriptorProto]) -> None:
        for m in messages:
            full = f"{prefix}.{m.name}"
            names.add(full)
            names.update(f"{full}.{e.name}" for e in m.enum_type)
            walk(full, m.nested_type)

    for f in files:
        walk(f.package, f.message_type)
        names.update(f"{f.package}.{e.name}" for e in f.enum_type)
    return names


def _maps(message: d.DescriptorProto) -> dict[str, d.DescriptorProto]:
    return {m.name: m for m in message.nested_type if m.options.map_entry}


def _field_type(
    field: d.FieldDescriptorProto, maps: dict[str, d.DescriptorProto], known: set[str]
) -> str:
    if field.type_name:
        entry = maps.get(field.type_name.rsplit(".", 1)[-1])
        if entry is not None and field.label == d.FieldDescriptorProto.LABEL_REPEATED:
            key, value = entry.field[0], entry.field[1]
            return f"map<{_field_type(key, {}, known)}, {_field_type(value, {}, known)}>"
        return _link(field.type_name, known)
    return f"`{_SCALARS[field.type]}`"


def _label(field: d.FieldDescriptorProto, message: d.DescriptorProto) -> str:
    if field.proto3_optional:
        return "optional"
    if field.label == d.FieldDescriptorProto.LABEL_REPEATED:
        return "repeated"
    if field.HasField("oneof_index"):
        return f"oneof `{message.oneof_decl[field.oneof_index].name}`"
    return ""


def _message(
    prefix: str,
    message: d.DescriptorProto,
    path: tuple[int, ...],
    comments: _Comments,
    known: set[str],
) -> Iterator[str]:
    if message.options.map_entry:
        return
    full = f"{prefix}.{message.name}"
    yield f"### {_anchor(full)}{full}"
    yield ""
    about = comments(*path)
    if about:
        yield about
        yield ""
    maps = _maps(message)
    if message.field:
        yield "| field | number | type | label | description |"
        yield "|---|---|---|---|---|"
        for i, field in enumerate(message.field):
            yield (
                f"| `{field.name}` | {field.number} | {_field_type(field, maps, known)}"
                f" | {_label(field, message)} | {_cell(comments(*path, _MESSAGE_FIELD, i))} |"
            )
        yield ""
    else:
        yield "No fields."
        yield ""
    for i, enum in enumerate(message.enum_type):
        yield from _enum(full, enum, (*path, _MESSAGE_ENUM, i), comments)
    for i, nested in enumerate(message.nested_type):
        yield from _message(full, nested, (*path, _MESSAGE_NESTED, i), comments, known)


def _enum(
    prefix: str, enum: d.EnumDescriptorProto, path: tuple[int, ...], comments: _Comments
) -> Iterator[str]:
    full = f"{prefix}.{enum.name}"
    yield f"### {_anchor(full)}{full} (enum)"
    yield ""
    about = comments(*path)
    if about:
        yield about
        yield ""
    yield "| value | number | description |"
    yield "|---|---|---|"
    for i, value in enumerate(enum.value):
        yield (f"| `{value.name}` | {value.number} | {_cell(comments(*path, _ENUM_VALUE, i))} |")
    yield ""


def _service(
    prefix: str,
    service: d.ServiceDescriptorProto,
    path: tuple[int, ...],
    comments: _Comments,
    known: set[str],
) -> Iterator[str]:
    full = f"{prefix}.{service.name}"
    yield f"### {_anchor(full)}{full} (service)"
    yield ""
    about = comments(*path)
    if about:
        yield about
        yield ""
    yield "| method | request | response | description |"
    yield "|---|---|---|---|"
    for i, method in enumerate(service.method):
        request = _link(method.input_type, known)
        response = _link(method.output_type, known)
        if method.client_streaming:
            request = "stream " + request
        if method.server_streaming:
            response = "stream " + response
        yield (
            f"| `{method.name}` | {request} | {response}"
            f" | {_cell(comments(*path, _SERVICE_METHOD, i))} |"
        )
    yield ""


def render(proto_root: Path) -> str:
    """The whole reference as Markdown."""
    files = descriptors(proto_root)
    known = _all_types(files)
    lines = [
        "# API reference",
        "",
        "Made from the comments in `protos/` by `make protos`"
        " (`python -m parlor.protos.apidoc`); do not edit by hand: a test regenerates it and"
        " compares. Errors carry a `google.rpc.Status` in the `grpc-status-details-bin`"
        " trailer with a `google.rpc.ErrorInfo` (domain `parlor.dev`, a stable `reason`);"
        " those messages are vendored in `protos/google/rpc/` for clients in other"
        " languages ([clients.md](clients.md)).",
        "",
        "## Files",
        "",
    ]
    for f in files:
        lines.append(f"- [`{f.name}`](#{f.name}) (`{f.package}`)")
    lines.append("")
    for f in files:
        comments = _Comments(f)
        lines += [f"## {_anchor(f.name)}{f.name}", "", f"Package `{f.package}`.", ""]
        for i, service in enumerate(f.service):
            lines += _service(f.package, service, (_FILE_SERVICE, i), comments, known)
        for i, message in enumerate(f.message_type):
            lines += _message(f.package, message, (_FILE_MESSAGE, i), comments, known)
        for i, enum in enumerate(f.enum_type):
            lines += _enum(f.package, enum, (_FILE_ENUM, i), comments)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    proto_root = Path(args[0]) if args else Path("protos")
    out = Path(args[1]) if len(args) > 1 else Path("docs/api.md")
    out.write_text(render(proto_root.resolve()))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
