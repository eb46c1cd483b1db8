"""Joint limits in Moreau's method: unilateral rows on the joint coordinate with Newton's law."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.dynamics.diagnostics import joint_coordinate

H = 1e-3


def slider(e):
    """A 2 kg block sliding along x at 1 m/s without gravity, stops at ±0.2 m with restitution e."""
    b = ims.ModelBuilder("slider", gravity=(0, 0, 0))
    b.add_body("block", shapes=[ims.Box(size=(0.1, 0.1, 0.1))], mass=2.0, velocity=(1.0, 0, 0))
    b.add_slider("rail", "world", "block", anchor=(0, 0, 0), axis=(1, 0, 0))
    b.add_limit("stops", "rail", -0.2, 0.2, restitution=e)
    return b.build()


@pytest.mark.parametrize("e", [1.0, 0.5, 0.0])
def test_slider_stop_reverses_the_rate_times_e(e):
    model, state = slider(e)
    method = ims.make_method("moreau", model, eps_d=1e-9, eps_v=1e-9)
    for _ in range(300):            # the stop is reached at 0.2 s
        method.step(state, H)
    assert state.body_vel[1, 0] == pytest.approx(-e, abs=1e-6)
    assert joint_coordinate(model, state, "rail") <= 0.2 + H * 1.0


def test_arm_rests_on_its_stop_under_gravity():
    """An arm on a horizontal hinge falls onto a stop (e = 0) and rests there: overshoot of the impact step
    only (≤ rate · h), no creep over 2 s."""
    b = ims.ModelBuilder("arm")
    b.add_body("arm", shapes=[ims.Box(size=(1.0, 0.05, 0.05))], mass=1.0, position=(0.5, 0, 0))
    b.add_hinge("shoulder", "world", "arm", anchor=(0, 0, 0), axis=(0, 1, 0))   # gravity turns it to +angle
    b.add_limit("stop", "shoulder", -1.0, 0.3, restitution=0.0)
    model, state = b.build()
    method = ims.make_method("moreau", model)
    angles = []
    for _ in range(2000):
        method.step(state, H)
        angles.append(joint_coordinate(model, state, "shoulder"))
    angles = np.array(angles)
    assert angles.max() <= 0.3 + 3.0 * H             # rate at impact ~2.4 rad/s
    assert np.ptp(angles[-1000:]) < 1e-6              # at rest on the stop for the last second
    assert abs(angles[-1] - 0.3) < 3.0 * H
