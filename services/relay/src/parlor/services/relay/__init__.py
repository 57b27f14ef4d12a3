"""The outbox relay service."""
