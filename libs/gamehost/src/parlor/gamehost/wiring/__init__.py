"""The game host's wiring level (README.md here)."""
