"""The Connect 4x4 game service."""
