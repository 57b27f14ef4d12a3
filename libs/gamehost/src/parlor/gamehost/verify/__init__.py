"""The game host's verify level (README.md here)."""
