"""Velocity-only joints (Bender 3.2.6): a body dragged through a velocity joint moves as far as its
other joints allow, at the prescribed velocity."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.dynamics import diagnostics
from tests.verification.methods import methods_with, make_method

EPS = 1e-8
H = 1e-3
DRAG = np.array([0.0, 0.3, 0.0])      # mouse velocity [m/s]


def dragged_pendulum():
    """A rod on a hinge about x, grabbed at its tip by a kinematic 'mouse' body moving at DRAG."""
    b = ims.ModelBuilder("drag", gravity=(0, 0, 0))
    b.add_body("rod", shapes=[ims.Box(size=(0.05, 0.05, 1.0))], mass=1.0, position=(0, 0, -0.5))
    b.add_hinge("pivot", "world", "rod", anchor=(0, 0, 0), axis=(1, 0, 0))
    b.add_body("mouse", kinematic=True, position=(0, 0, -1.0), velocity=DRAG)
    b.add_velocity_joint("grab", "mouse", "rod", anchor=(0, 0, -1.0), velocity=(0, 0, 0))
    return b.build()


@pytest.mark.parametrize("method", methods_with("velocity_joints", "drag"))
def test_dragged_tip_follows_the_mouse_within_the_hinge(method):
    model, state = dragged_pendulum()
    sim = ims.Simulation(model, state, method=make_method(method, model, eps_d=EPS, eps_v=EPS), h=H)
    rod = model.body("rod")
    for _ in range(200):
        sim.step()
    # The tip can only move on the hinge's circle. Each step the drag sets the tip's velocity and the
    # hinge removes the radial part (an impulse through the pivot does not turn the rod), so the tip
    # moves at the drag's tangential component; it lags by at most the turn of the tangent per step,
    # |drag| ω h.
    tip = 2.0 * sim.state.body_pos[rod]                 # pivot at the origin, centre half-way
    tangent = np.cross([1.0, 0, 0], tip / np.linalg.norm(tip))
    tip_vel = 2.0 * sim.state.body_vel[rod]
    expected = np.dot(DRAG, tangent) * tangent
    omega = np.linalg.norm(sim.state.body_omega[rod])
    assert np.dot(tip_vel, tip) == pytest.approx(0.0, abs=10 * EPS)      # tangent to the circle
    assert np.linalg.norm(tip_vel - expected) < np.linalg.norm(DRAG) * omega * H
    assert diagnostics.constraint_errors(model, sim.state)[:2].max() <= EPS
    assert diagnostics.joint_coordinate(model, sim.state, "pivot") > 0.05   # it really was dragged


@pytest.mark.parametrize("method", methods_with("velocity_joints"))
def test_prescribed_relative_velocity_is_reached(method):
    """A free body joined to the world by a velocity joint with a target velocity moves at it."""
    target = np.array([0.2, -0.1, 0.05])
    b = ims.ModelBuilder("drive", gravity=(0, 0, -9.81))
    b.add_body("box", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=2.0)
    b.add_velocity_joint("drive", "world", "box", anchor=(0, 0, 0), velocity=target,
                         angular_velocity=(0, 0, 0))
    model, state = b.build()
    sim = ims.Simulation(model, state, method=make_method(method, model, eps_d=EPS, eps_v=EPS), h=H)
    sim.run(0.1)
    assert np.linalg.norm(sim.state.body_vel[1] - target) < 10 * EPS
    assert np.linalg.norm(sim.state.body_omega[1]) < 10 * EPS
