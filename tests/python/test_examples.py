# The examples in examples/python run as a reader would run them, at small
# sizes: each checks its result against NumPy itself (assert_allclose) and
# prints its timing and kernel count; here they must exit cleanly and print
# that report. No timing is asserted.
import os
import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"


@pytest.mark.parametrize("script, args", [
    ("demo_chain.py", ["12"]),       # 2^12 elements
    ("haversine.py", ["5000"]),      # points
    ("softmax.py", ["64", "1000"]),  # rows, columns
])
def test_example_runs_and_agrees_with_numpy(script, args):
    r = subprocess.run([sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True,
                       timeout=300, env=os.environ.copy())
    assert r.returncode == 0, f"{script} failed:\n{r.stdout}\n{r.stderr}"
    assert "NumPy :" in r.stdout and "kernel(s) launched" in r.stdout, r.stdout
