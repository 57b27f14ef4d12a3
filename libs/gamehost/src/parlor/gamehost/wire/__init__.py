"""The game host's wire level (README.md here)."""
