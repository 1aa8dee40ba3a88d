"""ctest's runner for one file of the Python module's tests.

Exits 77 (ctest's SKIP_RETURN_CODE for these tests) with a message naming
what to install when NumPy or pytest is missing, so a machine without the
Python dependencies skips these tests rather than failing them; with the
dependencies, any failure (an import error of fusecl itself included) fails.
"""
import sys

SKIP = 77

try:
    import numpy  # noqa: F401
    import pytest
except ImportError as e:
    print(f"SKIP: {e.name} is not installed for {sys.executable}; "
          "scripts/setup.sh --python installs python3-numpy and python3-pytest")
    sys.exit(SKIP)

# No .pytest_cache in the source tree; -p no:randomly keeps the order fixed.
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", *sys.argv[1:]]))
