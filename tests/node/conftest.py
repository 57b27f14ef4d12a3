"""The Node.js test uses the integration fixtures (``start_platform``): share them from there."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_path = Path(__file__).parent.parent / "integration" / "conftest.py"
_spec = importlib.util.spec_from_file_location("parlor_tests_integration_conftest", _path)
assert _spec is not None
assert _spec.loader is not None
_integration = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _integration  # its dataclasses look their module up
_spec.loader.exec_module(_integration)

backend_env = _integration.backend_env
migrated = _integration.migrated
start_platform = _integration.start_platform
