"""The ``parlor`` command line: a gRPC client of the platform, one small adapter per game."""
