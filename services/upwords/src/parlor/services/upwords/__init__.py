"""The Upwords game service."""
