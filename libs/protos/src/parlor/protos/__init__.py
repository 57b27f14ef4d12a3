"""Helpers around the generated protobuf code (which lives at ``parlor.<service>.v1``)."""
