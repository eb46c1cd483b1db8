"""MassPointMethod and MassPointSimulation: call shape, per-step report, failure handling, options."""
import math

import numpy as np
import pytest

from impulsim.errors import SimulationError, UnsupportedFeatureError
from impulsim.methods.base import Method, StepInfo
from impulsim.experiments import schmitt as scenes
from impulsim.methods.masspoint import MassPointMethod, MassPointSimulation, MassPointState, record


def test_same_call_shape_as_the_other_methods():
    model, state = scenes.pendulum()
    method = MassPointMethod(model)
    assert isinstance(method, Method) and method.name == "masspoint"
    info = method.step(state, 0.01)
    assert isinstance(info, StepInfo)
    assert info.iters_pos >= 1 and info.iters_vel >= 1 and info.converged_pos and info.converged_vel
    assert info.residual_pos < method.eps and info.residual_vel < method.eps_v
    assert {"forces", "predict", "fin_correction", "velocity_correction"} <= set(info.timings)
    assert state.step_count == 1 and state.t == 0.01


def test_rigid_body_model_is_refused_with_a_clear_error():
    from impulsim.model import ModelBuilder
    model, _ = ModelBuilder().build()
    with pytest.raises(UnsupportedFeatureError, match="steps a MassPointModel"):
        MassPointMethod(model)


@pytest.mark.parametrize("options, fragment", [
    (dict(eps=0.0), "eps must be positive"),
    (dict(eps_v=math.nan), "eps_v must be positive"),
    (dict(weight=2.0), "weight must lie in"),
    (dict(max_iter_pos=0), "max_iter_pos must be at least 1"),
    (dict(precision="float16"), "precision must be one of"),
])
def test_bad_options(options, fragment):
    model, _ = scenes.pendulum()
    with pytest.raises(ValueError, match=fragment):
        MassPointMethod(model, **options)


@pytest.mark.parametrize("h", [0.0, -0.01, math.inf, "0.01"])
def test_bad_step_size(h):
    model, state = scenes.pendulum()
    with pytest.raises(ValueError, match="step size h"):
        MassPointMethod(model).step(state, h)


def test_failed_step_names_the_point_and_leaves_the_state_untouched():
    model, state = scenes.rigid_pendulum()
    sim = MassPointSimulation(model, state, 0.01)
    sim.run(0.1)
    before = state.copy()
    state.point_force[2] = (math.inf, 0.0, 0.0)
    before.point_force[...] = state.point_force
    with pytest.raises(SimulationError, match='step 10 .*point "p3" has a non-finite external force'):
        sim.step()
    for key, value in before.arrays().items():
        assert np.array_equal(getattr(state, key), value), key


def test_diverging_step_names_a_moving_point_and_leaves_the_state_untouched():
    model, state = scenes.rigid_pendulum()
    sim = MassPointSimulation(model, state, 0.01)
    sim.run(0.1)
    state.point_vel[3] = (1e308, 0.0, 0.0)         # finite, but the step overflows
    before = state.copy()
    with pytest.raises(SimulationError, match='step 10 .*point "p[234]" got a non-finite'):
        sim.step()
    for key, value in before.arrays().items():
        assert np.array_equal(getattr(state, key), value), key


def test_cap_hit_is_reported_and_the_step_still_advances():
    # the report lets a capped loop continue (§5.2 "was die Numerik selbständig erledigt")
    model, state = scenes.cube()
    method = MassPointMethod(model, max_iter_pos=1)
    info = method.step(state, 0.16)
    assert not info.converged_pos and info.iters_pos == 1 and info.residual_pos >= method.eps
    assert state.step_count == 1


def test_velocity_correction_can_be_switched_off():
    model, state = scenes.pendulum()
    info = MassPointMethod(model, velocity_correction=False).step(state, 0.01)
    assert info.iters_vel == 0 and "velocity_correction" in info.timings


def test_float32_mode_keeps_single_precision_values():
    model, state = scenes.pendulum()
    sim = MassPointSimulation(model, state, 0.02, precision="float32")
    sim.run(0.2)
    for arr in (state.point_pos, state.point_vel):
        assert np.array_equal(arr.astype(np.float32).astype(np.float64), arr)
    assert state.point_pos.dtype == np.float64


def test_runner_steps_hooks_and_observer():
    model, state = scenes.pendulum()
    sim = MassPointSimulation(model, state, 0.01)
    seen = {"before": 0, "after": 0, "observed": []}
    sim.before_step.append(lambda s: seen.__setitem__("before", seen["before"] + 1))
    sim.after_step.append(lambda s, info: seen.__setitem__("after", seen["after"] + 1))
    n = sim.run(0.1, every=3, observer=lambda s, info: seen["observed"].append(s.state.step_count))
    assert n == 10 and seen["before"] == seen["after"] == 10 and seen["observed"] == [3, 6, 9]
    assert sim.t == pytest.approx(0.1, abs=1e-15) and sim.last_info is not None


def test_runner_refuses_method_and_options_together():
    model, state = scenes.pendulum()
    with pytest.raises(ValueError, match="either a method or method options"):
        MassPointSimulation(model, state, 0.01, method=MassPointMethod(model), eps=1e-6)


def test_checkpoint_round_trip_is_exact(tmp_path):
    model, state = scenes.top()
    sim = MassPointSimulation(model, state, 0.005)
    sim.run(0.05)
    state.save(tmp_path / "s.npz")
    again = MassPointState.load(tmp_path / "s.npz")
    a = record(MassPointSimulation(model, state, 0.005), 20)
    b = record(MassPointSimulation(model, again, 0.005), 20)
    assert np.array_equal(a.pos, b.pos) and np.array_equal(a.vel, b.vel)


def test_diverging_fin_correction_names_the_link_and_leaves_the_state_untouched():
    # a 50-link rope whose free end whips round: at h = 0.01 s its last links turn so far per step that
    # the linearised correction along the old direction no longer shortens them (see docs/masspoint.md)
    model, state = scenes.rope(50)
    sim = MassPointSimulation(model, state, 0.01)
    with pytest.raises(SimulationError, match=r'fin correction diverged, constraint "p\d+-p\d+"') as exc:
        sim.run(2.0)
    failed_at = state.copy()
    assert all(np.isfinite(a).all() for a in (state.point_pos, state.point_vel))
    assert f"step {state.step_count} " in str(exc.value)
    # the same rope at h = 0.002 s falls for the same time without trouble
    model, state = scenes.rope(50)
    traj_ok = record(MassPointSimulation(model, state, 0.002), int(round(failed_at.t / 0.002)))
    assert traj_ok.fin_converged.all()
