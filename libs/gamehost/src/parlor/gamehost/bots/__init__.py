"""The game host's bots level (README.md here)."""
