"""Tic-tac-toe on Parlor: the example fourth game that proves docs/adding-a-game.md."""
