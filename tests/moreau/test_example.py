"""The Moreau example runs and passes its own checks against the analytic results."""
import importlib.util
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "moreau" / "slide_and_bounce.py"


def test_slide_and_bounce_example_meets_its_bounds():
    spec = importlib.util.spec_from_file_location("slide_and_bounce", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(1e-3) == 0
