"""Divergence is named as divergence: too large a step, bodies thrown out of any scene, non-finite input;
`impulsim run` exits with an error when a run ends with its joints broken."""
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
