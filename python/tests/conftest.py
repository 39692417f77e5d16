"""The package under test is the installed one, or python/ with the module built beside it:
set VRAMSCOPE_PYTHONPATH to a `pip install --target` folder (scripts/test.sh does)."""
import os
import pathlib
import sys

extra = os.environ.get("VRAMSCOPE_PYTHONPATH")
if extra:
    sys.path.insert(0, extra)

REPO = pathlib.Path(__file__).resolve().parents[2]
