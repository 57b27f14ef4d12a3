"""Parlor's web client and its bridge to the gRPC services (JSON and Server-Sent Events)."""
