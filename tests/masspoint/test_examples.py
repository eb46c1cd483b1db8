"""The mass-point example scripts run and pass their own checks (so they never rot)."""
import importlib.util
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "masspoint"
SCRIPTS = ["pendulum", "cube", "rigid_pendulum", "thread_pendulum", "rail_pendulum", "closed_chain", "top"]


def _load(name, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    spec = importlib.util.spec_from_file_location(f"masspoint_example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", SCRIPTS)
def test_example_passes_its_checks(name, monkeypatch, capsys):
    assert _load(name, monkeypatch).main([]) == 0
    assert "FAILED" not in capsys.readouterr().out


def test_example_writes_its_plots(tmp_path, monkeypatch):
    assert _load("top", monkeypatch).main(["--plot", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["top_axis_projection.png", "top_tilt.png"]
