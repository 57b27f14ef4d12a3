"""Test kits: builders and slow reference oracles the tests share, kept out of production.

``tests/`` is on the path of every test (pytest puts a root conftest's folder there), so a
test imports ``kits.<game>``; the benchmarks add ``tests/`` to their path themselves.
"""
