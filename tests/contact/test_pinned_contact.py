"""A contact that no impulse can move along its normal: a ball pinned at its centre by a hinge whose axis is
parallel to the floor, resting on it. The hinge carries the ball's weight; the contact can only take
friction and no normal impulse. Every method with contacts must step it (Featherstone's sequential impulses
divided by the contact's zero normal inverse mass: ZeroDivisionError at the first step)."""
import numpy as np
import pytest

from impulsim.io import scene_from_string

SCENE = """
settings: {h: 0.002, duration: 1}
bodies:
  - {name: ground, shapes: [half_space: {}], static: true}
  - {name: ball, shapes: [sphere: {radius: 0.1}], density: 1000, position: [0, 0, 0.1],
     angular_velocity: [0, 3.0, 0]}
  - {name: box, shapes: [box: {size: [0.2, 0.2, 0.2]}], density: 500, position: [0.5, 0, 0.1]}
joints:
  - {name: pin, type: hinge, bodies: [world, ball], anchor: [0, 0, 0.1], axis: [0, 1, 0]}
"""


@pytest.mark.parametrize("method", ["impulse", "featherstone", "lagrange", "moreau"])
def test_a_ball_pinned_on_the_floor_steps_and_friction_slows_its_spin(method):
    """The ball starts spinning about the hinge at 3 rad/s, touching the floor: it stays on its
    pin (within the joint tolerance of the method), and friction at the floor can only slow its spin."""
    sim = scene_from_string(SCENE).simulation(method=method)
    for _ in range(200):
        sim.step()
    s = sim.state
    ball = sim.method.model.body("ball")
    assert np.all(np.isfinite(s.body_pos)) and np.all(np.isfinite(s.body_omega))
    # on the pin: 1e-4 m covers the drift of the methods that project (Lagrange, Moreau) over 200 steps
    assert np.linalg.norm(s.body_pos[ball] - [0.0, 0.0, 0.1]) < 1e-4
    # friction dissipates: the spin may only fall, up to the velocity tolerance (1e-6)
    assert abs(s.body_omega[ball, 1]) <= 3.0 + 1e-6
    # the hinge leaves no other turning than about its axis (y)
    assert abs(s.body_omega[ball, 0]) < 1e-3 and abs(s.body_omega[ball, 2]) < 1e-3
