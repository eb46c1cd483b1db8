"""Scripting hooks of :class:`impulsim.Simulation`: events and live parameter changes mid-run."""
import math

import numpy as np
import pytest

import impulsim as ims
from impulsim.geometry import HalfSpace, Sphere

H = 1e-3
G = 9.81
# a free body integrates gravity exactly (constant acceleration), so only rounding remains
FREE_FALL_TOL = 1e-9


def _falling_ball(height=0.5):
    b = ims.ModelBuilder("fall")
    b.add_body("ball", shapes=[Sphere(radius=0.1)], density=1000, position=(0, 0, height))
    return b.build()


def _pendulum():
    b = ims.ModelBuilder("pendulum")
    b.add_body("bob", shapes=[Sphere(radius=0.05)], density=1000, position=(0, 1.0, 0))
    b.add_joint("ball", "shoulder", "world", "bob", anchor=(0, 0, 0))
    return b.build()


def test_time_event_fires_once_at_the_requested_step():
    model, state = _falling_ball()
    sim = ims.Simulation(model, state, h=H)
    seen = []
    sim.on_time(0.25, lambda s, e: seen.append((e.kind, e.step, s.t)))
    sim.run(0.5)
    assert len(seen) == 1
    kind, step, t = seen[0]
    assert kind == "time" and step == 250 and t == pytest.approx(0.25)


RIGID_METHODS = ("impulse", "lagrange")


@pytest.mark.parametrize("method", RIGID_METHODS)
def test_hook_switching_gravity_off_mid_run_freezes_the_fall_velocity(method):
    model, state = _falling_ball(height=10.0)
    sim = ims.Simulation(model, state, method=method, h=H)
    sim.on_time(0.3, lambda s, e: s.set_params(gravity=[0.0, 0.0, 0.0]))
    sim.run(1.0)
    k = model.body("ball")
    # v_z = -g t until 0.3 s, then constant
    assert sim.state.body_vel[k, 2] == pytest.approx(-G * 0.3, abs=FREE_FALL_TOL)
    assert np.allclose(sim.model.gravity, 0.0) and np.allclose(sim.method.model.gravity, 0.0)


@pytest.mark.parametrize("method", RIGID_METHODS)
def test_hook_changing_spring_stiffness_changes_the_period(method):
    b = ims.ModelBuilder("spring", gravity=(0, 0, 0))
    b.add_body("block", shapes=[Sphere(radius=0.05)], mass=1.0, position=(0, 0, 0.1))
    b.add_spring("spring", "world", "block", stiffness=100.0, damping=0.0, rest_length=0.0)
    model, state = b.build()
    sim = ims.Simulation(model, state, method=method, h=H)
    sim.on_time(0.0, lambda s, e: s.set_params(spring_stiffness=[400.0]))
    crossings = []
    sim.after_step.append(lambda s, info: crossings.append(s.t) if _crossed(s, model) else None)
    sim.run(1.0)
    # z(t) = 0.1 cos(ω t): first zero crossing at T/4 = (π/2)/ω with ω = sqrt(400) after the change
    assert crossings and crossings[0] == pytest.approx(0.5 * math.pi / 20.0, abs=2 * H)


def _crossed(sim, model):
    k = model.body("block")
    z, vz = sim.state.body_pos[k, 2], sim.state.body_vel[k, 2]
    return z <= 0.0 < z - vz * sim.h


def test_joint_error_event_is_edge_triggered_and_names_the_joint():
    model, state = _pendulum()
    sim = ims.Simulation(model, state, h=H)
    k = model.body("bob")
    sim.after_step.append(lambda s, info: s.state.body_pos.__setitem__(
        (k, 2), s.state.body_pos[k, 2] + 0.05) if s.state.step_count == 100 else None)
    seen = []
    sim.on_joint_error(0.01, lambda s, e: seen.append(e), joint="shoulder")
    sim.run(0.3)
    assert len(seen) == 1
    assert seen[0].joint == "shoulder" and seen[0].step == 100
    assert seen[0].value == pytest.approx(0.05, rel=0.05)


def test_contact_begin_event_at_the_free_fall_impact_time():
    b = ims.ModelBuilder("drop")
    b.add_body("ground", shapes=[HalfSpace()], static=True)
    b.add_body("ball", shapes=[Sphere(radius=0.1)], density=1000, position=(0, 0, 0.5))
    model, state = b.build()
    sim = ims.Simulation(model, state, method="impulse", h=H)      # contacts switch on by themselves
    seen = []
    sim.on_contact_begin(lambda s, e: seen.append(e))
    sim.run(0.35)
    # the sphere touches the ground after falling 0.4 m: t = sqrt(2 * 0.4 / g)
    assert len(seen) == 1 and seen[0].value >= 1
    assert seen[0].t == pytest.approx(math.sqrt(0.8 / G), abs=3 * H)


def test_remove_hook_and_bad_input():
    model, state = _falling_ball()
    sim = ims.Simulation(model, state, h=H)
    seen = []
    hook = sim.on_time(0.01, lambda s, e: seen.append(e))
    sim.remove_hook(hook)
    sim.run(0.02)
    assert seen == []
    with pytest.raises(ValueError, match="not registered"):
        sim.remove_hook(hook)
    with pytest.raises(ValueError, match="cannot change during a run"):
        sim.set_params(body_mass=model.body_mass)
    with pytest.raises(ValueError, match="threshold must be positive"):
        sim.on_joint_error(-1.0, print)
    with pytest.raises(TypeError, match="must be callable"):
        sim.on_time(1.0, "not a function")
    with pytest.raises(KeyError):
        sim.on_joint_error(0.1, print, joint="nope")
