"""``python -m impulsim``: the same command line as the ``impulsim`` console script.

Useful where the script is not on PATH (a virtual environment that is not activated, or a source checkout
run with ``PYTHONPATH=src``)."""
import sys

from impulsim.cli import main

if __name__ == "__main__":
    sys.exit(main())
