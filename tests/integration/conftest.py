"""The integration tests' fixtures are ``kits.platform``'s (a plugin of the root conftest,
shared with tests/web and tests/node); this conftest puts this folder on the path, for the
helpers beside it (``takefour_actions``, ``leakcheck``...)."""
