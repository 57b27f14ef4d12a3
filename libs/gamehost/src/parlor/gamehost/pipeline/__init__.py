"""The game host's pipeline level (README.md here)."""
