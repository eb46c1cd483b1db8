"""The Lagrange example scripts run and pass their own checks."""
import importlib.util
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "lagrange"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"lagrange_example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["hovering_cylinder", "path_follower"])
def test_example_passes_its_checks(name, capsys):
    assert _load(name).main([]) == 0
    assert "FAILED" not in capsys.readouterr().out


def test_path_follower_writes_its_plot(tmp_path):
    assert _load("path_follower").main(["--plot", str(tmp_path)]) == 0
    assert (tmp_path / "path_follower_force.png").exists()
