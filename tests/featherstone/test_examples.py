"""The Featherstone example scripts (Holck's tests) run and pass their own checks, over short durations so
the suite stays quick (the scripts' defaults are the thesis's durations)."""
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "featherstone"

# duration [s] per example: long enough for its check to bite (first bounce at 0.27 s, rolling after
# 0.39 s at μ = 0.1, the cradle's first collisions, several limit hits; tests 10–12: the links are on their
# stops after ~1 s, checked over the last 0.5 s; test 14: set points checked at 0.6 × duration, the ball
# leaves the ledge ~2 s after the sweep starts at 2 s)
DURATIONS = {"arm_and_ball": 1.0, "bouncing_cube": 1.5, "spinning_top": 0.6, "newtons_cradle": 2.0, "arm_against_bars": 1.0,
             "merry_go_round": 1.0, "prismatic_rotor": 2.0, "joint_limits": 6.0, "multitransarm": 3.0,
             "robot2": 2.0, "testcase12": 1.5, "complex_pendulum": 2.0, "nicearm": 5.0}


def _load(name):
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))      # the scripts import their _common helpers
    spec = importlib.util.spec_from_file_location(f"featherstone_example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_example_is_listed():
    assert {p.stem for p in EXAMPLES.glob("[!_]*.py")} == set(DURATIONS)
    assert {p.stem for p in EXAMPLES.glob("*.yaml")} == {"revolute_limit", "prismatic_rotor"}


@pytest.mark.parametrize("name", sorted(DURATIONS))
def test_example_passes_its_checks(name, capsys):
    assert _load(name).main([str(DURATIONS[name])]) == 0
    assert "FAILED" not in capsys.readouterr().out


@pytest.mark.parametrize("name", ["revolute_limit", "prismatic_rotor"])
def test_scene_files_describe_the_python_scenes_and_run_with_featherstone(name):
    from impulsim.io import load_scene
    from impulsim.methods.featherstone import FeatherstoneMethod
    from impulsim.experiments.holck import limit_arm, prismatic_rotor
    scene = load_scene(EXAMPLES / f"{name}.yaml")
    model, state, _ = limit_arm("hinge", 0.5) if name == "revolute_limit" else prismatic_rotor(effort=0.05)
    for key in ("body_pos", "body_quat", "body_vel", "body_omega"):
        assert np.allclose(getattr(scene.state, key), getattr(state, key), atol=1e-15)
    for key in ("body_mass", "body_inertia", "limit_lower", "limit_upper", "limit_restitution", "motor_effort"):
        assert np.array_equal(getattr(scene.model, key), getattr(model, key))
    sim = scene.simulation()
    assert isinstance(sim.method, FeatherstoneMethod)
    sim.run(10 * sim.h)
    assert sim.state.step_count == 10
