"""Impulse-based joint limits (Holck ch. 4, tests 8 and 9): Newton's law on the joint coordinate."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.dynamics.diagnostics import joint_coordinate
from impulsim.methods.featherstone import FeatherstoneMethod
from impulsim.experiments.holck import limit_arm

H = 0.01
# No gravity, no other load: between hits the rate is exactly constant (RK4 of q̈ = 0), and a limit
# impulse of a single coordinate meets Newton's law q̇⁺ = −e q̇⁻ exactly (one row, K = (H⁻¹)_dd); what is left
# is round-off of the coordinate read-back, ~1e-15.
RATE_TOL = 1e-10


def hit_rates(kind, e, duration):
    """Joint rate just before and after every limit hit, and the coordinate's extremes."""
    model, state, options = limit_arm(kind, restitution=e)
    sim = ims.Simulation(model, state, method=FeatherstoneMethod(model, **options), h=H)
    before, after, values = [], [], []
    rate = joint_coordinate(model, sim.state, "joint", rate=True)
    while sim.t < duration:
        sim.step()
        new = joint_coordinate(model, sim.state, "joint", rate=True)
        values.append(joint_coordinate(model, sim.state, "joint"))
        if np.sign(new) != np.sign(rate):
            before.append(rate)
            after.append(new)
        rate = new
    k = model.limit_names.index("stops")
    return np.array(before), np.array(after), np.array(values), (model.limit_lower[k], model.limit_upper[k])


@pytest.mark.parametrize("kind", ["hinge", "slider"])
def test_elastic_limit_keeps_the_speed_and_flips_its_sign(kind):
    before, after, values, (lower, upper) = hit_rates(kind, 1.0, 20.0)
    assert len(before) >= 4
    assert np.allclose(after, -before, rtol=0, atol=RATE_TOL)
    assert np.allclose(np.abs(after), 1.0, atol=RATE_TOL)
    # the coordinate never leaves the limits: the impulse comes in the step the gap would close
    assert values.min() >= lower - 1e-12 and values.max() <= upper + 1e-12


@pytest.mark.parametrize("kind", ["hinge", "slider"])
def test_half_restitution_halves_the_speed_at_every_hit(kind):
    # hinge hits at t = 2, 10 and 26 s (speeds 1, 0.5, 0.25 over the 4 rad between the limits)
    before, after, _, _ = hit_rates(kind, 0.5, 27.0)
    assert len(before) >= 3
    assert np.allclose(after, -0.5 * before, rtol=0, atol=RATE_TOL)
    speeds = np.abs(after)
    assert np.allclose(speeds[1:] / speeds[:-1], 0.5, atol=1e-9)


def test_limits_given_as_a_method_option_act_like_model_limits():
    b = ims.ModelBuilder("option", gravity=(0, 0, 0))
    b.add_body("link", mass=1.0, inertia=(0.01, 0.01, 0.01), position=(0.1, 0, 0), velocity=(0, 0.1, 0),
               angular_velocity=(0, 0, 1.0))
    b.add_hinge("joint", "world", "link", anchor=(0, 0, 0), axis=(0, 0, 1))
    model, state = b.build()
    sim = ims.Simulation(model, state, method=FeatherstoneMethod(model, limits={"joint": (-0.5, 0.5, 0.5)}), h=H)
    sim.run(0.6)     # reaches 0.5 rad at t = 0.5 s and turns back at half the speed
    assert joint_coordinate(model, sim.state, "joint", rate=True) == pytest.approx(-0.5, abs=RATE_TOL)


def test_limit_on_a_joint_without_a_coordinate_is_rejected():
    b = ims.ModelBuilder("ball")
    b.add_body("bob", mass=1.0, inertia=(1, 1, 1), position=(0, 0, -1))
    b.add_ball("pivot", "world", "bob", anchor=(0, 0, 0))
    model, _ = b.build()
    with pytest.raises(ims.ModelError, match='"pivot" is a ball joint'):
        FeatherstoneMethod(model, limits={"pivot": (-1.0, 1.0, 0.5)})


def _arm(reverse, effort, lower, upper, kind="hinge"):
    """A 1 kg link on a hinge (or slider) to the world, declared world→link or, with ``reverse``,
    link→world (then the tree's child is the joint's body A and every coordinate and effort flips)."""
    b = ims.ModelBuilder("arm", gravity=(0, 0, -9.81))
    b.add_body("link", shapes=[ims.Box(size=(0.2, 0.02, 0.02))], mass=1.0, position=(0.1, 0, 0))
    pair = ("link", "world") if reverse else ("world", "link")
    if kind == "hinge":
        b.add_hinge("joint", *pair, anchor=(0, 0, 0), axis=(0, 1, 0))
    else:
        b.add_slider("joint", *pair, anchor=(0.1, 0, 0), axis=(1, 0, 1))
    b.add_motor("drive", "joint", effort=effort)
    b.add_limit("stops", "joint", lower, upper, restitution=0.5)
    return b.build()


@pytest.mark.parametrize("kind", ["hinge", "slider"])
def test_a_joint_declared_the_other_way_round_gives_the_same_motion(kind):
    """Swapping a joint's bodies negates its coordinate, its motor's effort and its limits (coordinates.py):
    hinge(world, link) with effort E and limits [lo, hi] moves the link exactly as hinge(link, world) with
    effort −E and limits [−hi, −lo]."""
    runs = []
    for reverse in (False, True):
        sign = -1.0 if reverse else 1.0
        model, state = _arm(reverse, sign * 0.5, min(sign * -0.3, sign * 0.2), max(sign * -0.3, sign * 0.2),
                            kind)
        sim = ims.Simulation(model, state, method=FeatherstoneMethod(model), h=1e-3)
        coords = []
        for _ in range(1500):
            sim.step()
            coords.append(sign * joint_coordinate(model, sim.state, "joint"))
        runs.append((np.array(coords), sim.state.body_pos.copy()))
    (c0, p0), (c1, p1) = runs
    # the hinged link falls onto its upper stop, the slider's link slides down onto its lower one
    assert c0.max() > 0.19 or c0.min() < -0.29
    # the same equations in the same order of operations up to signs: equal to round-off
    assert np.abs(c0 - c1).max() < 1e-9
    assert np.abs(p0 - p1).max() < 1e-9
