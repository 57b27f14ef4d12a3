"""The game host's words level (README.md here)."""
