"""Divergence is named as divergence: too large a step, bodies thrown out of any scene, non-finite input;
`impulsim run` exits with an error when a run ends with its joints broken."""
from types import SimpleNamespace

import numpy as np
import pytest

from impulsim.cli import main
from impulsim.errors import SimulationError
from impulsim.io import scene_from_string
from tests.reliability.helpers import CHAIN_SCENE, JOINT_METHODS, scene_sim


def test_chain_at_one_second_steps_exits_with_an_error(tmp_path, capsys):
    code = main(["run", str(CHAIN_SCENE), "-q", "--h", "1", "-d", "20", "-o", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert "constraints broken" in err or "diverged" in err or "too large" in err


def test_chain_at_a_sound_step_exits_cleanly(tmp_path):
    assert main(["run", str(CHAIN_SCENE), "-q", "-d", "0.5", "-o", str(tmp_path)]) == 0


FAST = """
bodies:
  - {name: ground, shapes: [half_space: {}], static: true}
  - {name: ball, shapes: [sphere: {radius: 0.1}], density: 1000, position: [0, 0, 1], velocity: [0, 0, -90000]}
  - {name: other, shapes: [sphere: {radius: 0.1}], density: 1000, position: [3, 0, 1]}
"""


def test_body_faster_than_its_thickness_per_step_is_refused_not_tunnelled():
    scene = scene_from_string(FAST, "fast.yaml")
    sim = scene.simulation(h=1e-3)
    before = sim.state.copy()
    with pytest.raises(SimulationError, match="step too large for the model"):
        sim.step()
    assert sim.state.body_pos.tobytes() == before.body_pos.tobytes()


@pytest.mark.parametrize("name", sorted(JOINT_METHODS))
@pytest.mark.parametrize("field", ["body_pos", "body_quat", "body_vel", "body_omega", "body_force", "body_torque", "t"])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_non_finite_input_is_refused_by_every_method(name, field, value):
    """The NaN/inf matrix: every method, every input, named before the step and nothing changed (not a
    'singular system', not silently replaced)."""
    method, options = JOINT_METHODS[name]
    _, sim = scene_sim(CHAIN_SCENE, method, **options)
    sim.step()
    if field == "t":
        sim.state.t = value
    else:
        getattr(sim.state, field)[1, 0] = value
    before = sim.state.copy()
    with pytest.raises(SimulationError, match="not finite|non-finite"):
        sim.step()
    for f in ("body_pos", "body_quat", "body_vel", "body_omega"):
        assert getattr(sim.state, f).tobytes() == getattr(before, f).tobytes()


@pytest.mark.parametrize("field", ["body_pos", "body_vel", "body_force", "t"])
@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_non_finite_input_is_refused_by_the_mass_point_method(field, value):
    from impulsim.experiments import schmitt
    from impulsim.methods.masspoint import MassPointMethod
    model, state = schmitt.pendulum()
    method = MassPointMethod(model)
    method.step(state, 0.01)
    if field == "t":
        state.t = value
    else:
        getattr(state, field)[-1, 0] = value
    before = state.copy()
    with pytest.raises(SimulationError, match="not finite|non-finite"):
        method.step(state, 0.01)
    assert state.body_pos.tobytes() == before.body_pos.tobytes()


def _range_by_numpy(pos, vel, before, thickness, max_distance, max_speed, factor):
    """check_state's answer on finite arrays by its definition, with NumPy."""
    from impulsim.dynamics.checks import IN_RANGE, OUT_OF_RANGE, TUNNELS
    if np.abs(pos).max(initial=0.0) > max_distance or np.abs(vel).max(initial=0.0) > max_speed:
        return OUT_OF_RANGE
    if thickness.size and (np.linalg.norm(pos - before, axis=1) > factor * thickness).any():
        return TUNNELS
    return IN_RANGE


@pytest.mark.parametrize("seed", range(4))
def test_compiled_state_check_agrees_with_its_numpy_definition(seed):
    """The step's compiled check against the NumPy formulas it replaced (and the NumPy fallback for methods
    that accept non-finite orientations), on random states spread across both limits and the tunnelling
    threshold (infinite thickness included), and with one entry made non-finite."""
    from impulsim.dynamics.checks import NOT_FINITE, check_state
    from impulsim.methods.base import _range_ignoring_orientations as method_fallback
    rng = np.random.default_rng(seed)
    answers = set()
    for _ in range(400):
        n = int(rng.integers(1, 6))
        pos = rng.normal(size=(n, 3)) * 10.0 ** rng.uniform(-1, 9)
        vel = rng.normal(size=(n, 3)) * 10.0 ** rng.uniform(-1, 6)
        before = pos + rng.normal(size=(n, 3)) * 10.0 ** rng.uniform(-3, 2)
        thickness = rng.uniform(1e-3, 1.0, n) if rng.random() < 0.7 else np.zeros(0)
        if thickness.size:
            thickness[rng.random(n) < 0.3] = np.inf
        args = (pos, vel, before, thickness, 1e8, 1e5, 100.0)
        expected = _range_by_numpy(*args)
        quat = rng.normal(size=(n, 4))
        assert check_state(pos, quat, vel, vel, *args[2:]) == expected
        nan_turns = np.full_like(quat, np.nan)
        after = SimpleNamespace(body_pos=pos, body_vel=vel, body_quat=nan_turns, body_omega=np.full_like(vel, np.inf))
        by_fallback = method_fallback(after, SimpleNamespace(body_pos=before), thickness if thickness.size else None)
        assert by_fallback == expected
        answers.add(expected)
        bad = [pos.copy(), quat, vel.copy(), vel.copy()]
        bad[int(rng.integers(4))][int(rng.integers(n)), 0] = rng.choice([np.nan, np.inf, -np.inf])
        assert check_state(*bad, *args[2:]) == NOT_FINITE
    assert answers == {0, 1, 2}          # every outcome was exercised
