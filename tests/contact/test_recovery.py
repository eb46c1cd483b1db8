"""A penetration found at the start of a step is pushed out no faster than the recovery speed, so it does
not become a bounce: a ball with restitution 0 stays down, and a ball with restitution e rebounds at e
whatever the phase of its impact within a step."""
import math

import numpy as np
import pytest

from impulsim.io import scene_from_string

SCENE = """
settings: {{h: {h}, duration: 0.5, restitution_rule: geometric}}
materials:
  rubber: {{restitution: {e}, static_friction: 0.3, dynamic_friction: 0.3}}
bodies:
  - {{name: ground, shapes: [half_space: {{material: rubber}}], static: true}}
  - {{name: ball, shapes: [sphere: {{radius: 0.1}}], material: rubber, mass: 1.0, position: [0, 0, {z0}]}}
"""
G, EPS_C = 9.81, 1e-3
EPS_RC = math.sqrt(2 * G * EPS_C)       # the default recovery speed: a fall through the contact tolerance


def impact(e, z0, h, **options):
    """(speed before the first impact, largest upward speed after it) [m/s] of the dropped ball."""
    scene = scene_from_string(SCENE.format(h=h, e=e, z0=z0))
    sim = scene.simulation(**options)
    k = scene.model.body("ball")
    v_in, v_out = 0.0, -math.inf
    for _ in range(int(0.3 / h)):
        sim.step()
        v = sim.state.body_vel[k, 2]
        if v < 0 and v_out < 0:
            v_in = v
        v_out = max(v_out, v)
    return -v_in, v_out


# drop heights that put the first contact at different points within a step (seeded)
PHASES = 0.4 + np.random.default_rng(5).uniform(0.0, 0.005, 4)


@pytest.mark.parametrize("z0", PHASES)
def test_a_ball_without_restitution_does_not_bounce_off_its_penetration(z0):
    _, v_out = impact(0.0, z0, 0.002)
    assert v_out <= EPS_RC * (1 + 1e-9)     # it rises at most the contact tolerance


def test_the_thesis_correction_in_one_step_does_bounce():
    """The same drops with an unlimited recovery speed: the push-out velocity d/h stays in the ball."""
    rebounds = [impact(0.0, z0, 0.002, recovery_speed=math.inf)[1] for z0 in PHASES]
    assert max(rebounds) > 3 * EPS_RC


@pytest.mark.parametrize("e", [0.3, 0.6, 0.9])
def test_restitution_holds_whatever_the_phase_of_the_impact(e):
    ratios = []
    for z0 in PHASES:
        v_in, v_out = impact(e, z0, 0.001)
        ratios.append(v_out / v_in)
    # Newton's law at the impact: the rebound is e times the approach, within the speed gravity adds or
    # takes in the step the impact falls in (g h / v_in ≈ 0.4 %)
    assert np.allclose(ratios, e, atol=G * 0.001 / 2.4 + 1e-3)
