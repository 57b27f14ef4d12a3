"""Parlor's pure foundations: no I/O, no clock, no randomness."""
