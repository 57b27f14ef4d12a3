"""The service kit: what every Parlor gRPC service shares, written once."""
