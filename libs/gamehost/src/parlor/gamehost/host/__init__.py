"""The game host's host level (README.md here)."""
