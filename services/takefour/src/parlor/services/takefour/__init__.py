"""The Take Four game service."""
