"""Joint limits in the Lagrange method: impulses and displacements at the end of each step (Newton's law,
an active set for resting), the same checks as Moreau's."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.dynamics import diagnostics
from impulsim.dynamics.diagnostics import joint_coordinate
from tests.moreau.test_limits import slider

H = 1e-3


@pytest.mark.parametrize("e", [1.0, 0.5, 0.0])
def test_slider_stop_reverses_the_rate_times_e(e):
    model, state = slider(e)
    method = ims.make_method("lagrange", model, consistent_start=True)
    for _ in range(300):            # the stop is reached at 0.2 s
        method.step(state, H)
    assert state.body_vel[1, 0] == pytest.approx(-e, abs=1e-6)
    assert abs(joint_coordinate(model, state, "rail")) <= 0.2 + 1e-9


def test_arm_rests_on_its_stop_under_gravity_and_keeps_its_hinge():
    b = ims.ModelBuilder("arm")
    b.add_body("arm", shapes=[ims.Box(size=(1.0, 0.05, 0.05))], mass=1.0, position=(0.5, 0, 0))
    b.add_hinge("shoulder", "world", "arm", anchor=(0, 0, 0), axis=(0, 1, 0))
    b.add_limit("stop", "shoulder", -1.0, 0.3, restitution=0.0)
    model, state = b.build()
    method = ims.make_method("lagrange", model, consistent_start=True)
    angles = []
    for _ in range(2000):
        method.step(state, H)
        angles.append(joint_coordinate(model, state, "shoulder"))
    angles = np.array(angles)
    assert angles.max() <= 0.3 + 1e-9                    # moved back onto the bound each step
    assert np.ptp(angles[-1000:]) < 1e-6                  # at rest on the stop for the last second
    assert np.max(diagnostics.constraint_errors(model, state)) < 1e-6


def test_a_chain_on_stops_holds_its_joints():
    """Three links on hinges with stops at ±0.4 rad swinging under gravity for 3 s (e = 0.5): every
    coordinate within its stops, joints within Baumgarte's reach."""
    b = ims.ModelBuilder("chain")
    parent = "world"
    for k in range(3):
        b.add_body(f"l{k}", shapes=[ims.Box(size=(0.05, 0.05, 0.5))], mass=1.0, position=(0, 0.25 + 0.5 * k, 0),
                   orientation=(np.cos(np.pi / 4), np.sin(np.pi / 4), 0.0, 0.0))
        b.add_hinge(f"h{k}", parent, f"l{k}", anchor=(0, 0.5 * k, 0), axis=(1, 0, 0))
        if k:
            b.add_limit(f"s{k}", f"h{k}", -0.4, 0.4, restitution=0.5)
        parent = f"l{k}"
    model, state = b.build()
    method = ims.make_method("lagrange", model, consistent_start=True)
    worst = 0.0
    for _ in range(3000):
        method.step(state, H)
        for k in (1, 2):
            worst = max(worst, abs(joint_coordinate(model, state, f"h{k}")))
    assert worst <= 0.4 + 1e-6
    assert np.max(diagnostics.constraint_errors(model, state)) < 1e-6
