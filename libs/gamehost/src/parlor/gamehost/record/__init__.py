"""The game host's record level (README.md here)."""
