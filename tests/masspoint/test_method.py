"""MassPointMethod on the shared Model/State and Simulation: call shape, per-step report, what it refuses,
failure handling, options; and what the other methods do with point masses and threads."""
import math

import numpy as np
import pytest

from impulsim.errors import SimulationError, UnsupportedFeatureError
from impulsim.geometry import Sphere
from impulsim.methods import METHODS, make
from impulsim.methods.base import Method, StepInfo
from impulsim.experiments import schmitt as scenes
from impulsim.methods.masspoint import MassPointMethod, record
from impulsim.model import ModelBuilder, State
from impulsim.simulation import Simulation


def MassPointSimulation(model, state, h, **options):
    """The shared runner with the mass-point method."""
    return Simulation(model, state, "masspoint", h, **options)


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


def _with_rigid_rod(b):
    b.add_body("rod", mass=1.0, inertia=(0.1, 0.1, 0.01), position=(0, 0, -0.5))


def _with_hinge(b):
    b.add_point("bob", mass=1.0, position=(0, 0, -1))
    b.add_hinge("pin", "world", "bob", axis=(1, 0, 0))


def _with_shape(b):
    b.add_body("floor", static=True, shapes=[Sphere(radius=1.0)], position=(0, 0, -3))
    b.add_point("bob", mass=1.0, position=(0, 0, -1))


def _with_spring(b):
    b.add_point("bob", mass=1.0, position=(0, 0, -1))
    b.add_spring("k", "world", "bob", stiffness=10.0)


@pytest.mark.parametrize("add, fragment", [
    (_with_rigid_rod, 'bodies with rotational inertia: body "rod"'),
    (_with_hinge, 'hinge joints: joint "pin"'),
    (_with_shape, '"floor"'),
    (_with_spring, '"k"'),
])
def test_elements_it_cannot_honour_are_refused_by_name(add, fragment):
    b = ModelBuilder()
    add(b)
    model, _ = b.build()
    with pytest.raises(UnsupportedFeatureError, match=f"method 'masspoint' does not (support|honour) .*{fragment}"):
        MassPointMethod(model)


@pytest.mark.parametrize("name", sorted(set(METHODS) - {"masspoint"}))
@pytest.mark.parametrize("scene, fragment", [
    (scenes.pendulum, 'point masses: body "bob" has no rotational inertia'),
    (scenes.thread_pendulum, "point masses"),
])
def test_other_methods_refuse_point_masses_by_name(name, scene, fragment):
    model, _ = scene()
    with pytest.raises(UnsupportedFeatureError, match=f"method '{name}' does not support {fragment}"):
        make(name, model)


@pytest.mark.parametrize("name", sorted(set(METHODS) - {"masspoint"}))
def test_other_methods_refuse_threads_by_name(name):
    b = ModelBuilder()
    b.add_body("bob", mass=1.0, inertia=(0.1, 0.1, 0.1), position=(0, 0, -1))
    b.add_thread("cord", "world", "bob", anchor_a=(0, 0, 0), anchor_b=(0, 0, 0), length=1.5)
    model, _ = b.build()
    with pytest.raises(UnsupportedFeatureError, match=f"method '{name}' does not support threads: joint \"cord\""):
        make(name, model)


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
    state.body_force[model.body("p3")] = (math.inf, 0.0, 0.0)
    before.body_force[...] = state.body_force
    with pytest.raises(SimulationError, match='step 10 .*point "p3" has a non-finite external force'):
        sim.step()
    for key, value in before.arrays().items():
        assert np.array_equal(getattr(state, key), value), key


def test_diverging_step_names_a_moving_point_and_leaves_the_state_untouched():
    model, state = scenes.rigid_pendulum()
    sim = MassPointSimulation(model, state, 0.01)
    sim.run(0.1)
    state.body_vel[model.body("p4")] = (1e308, 0.0, 0.0)         # finite, but the step overflows
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
    for arr in (state.body_pos, state.body_vel):
        assert np.array_equal(arr.astype(np.float32).astype(np.float64), arr)
    assert state.body_pos.dtype == np.float64


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
        Simulation(model, state, method=MassPointMethod(model), h=0.01, eps=1e-6)


def test_checkpoint_round_trip_is_exact(tmp_path):
    model, state = scenes.top()
    sim = MassPointSimulation(model, state, 0.005)
    sim.run(0.05)
    state.save(tmp_path / "s.npz")
    again = State.load(tmp_path / "s.npz")
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
    assert all(np.isfinite(a).all() for a in (state.body_pos, state.body_vel))
    assert f"step {state.step_count} " in str(exc.value)
    # the same rope at h = 0.002 s falls for the same time without trouble
    model, state = scenes.rope(50)
    traj_ok = record(MassPointSimulation(model, state, 0.002), int(round(failed_at.t / 0.002)))
    assert traj_ok.fin_converged.all()
