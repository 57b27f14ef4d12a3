"""The game host's drivers level (README.md here)."""
