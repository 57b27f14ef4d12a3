"""The game host's table level (README.md here)."""
