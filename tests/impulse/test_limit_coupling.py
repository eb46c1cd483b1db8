"""Joint limits solved together through the LGS joints (methods/impulse/limit_coupling.py): the same step as
the limits corrected one by one converge to, in a few passes where those take hundreds."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.contact.limits import limit_coordinates
from tests.impulse.test_limit_run import limited_model

TIGHT = dict(eps_d=1e-9, eps_v=1e-9, max_iter_pos=100_000, max_iter_vel=100_000)


def limited_arm(n=6):
    """n links of 0.3 m (800 kg/m³) on hinges whose axes alternate between y and x, each between stops at
    ±0.6 rad (restitution 0.3), released straight out under gravity: they fall onto their stops and rest."""
    b = ims.ModelBuilder("limited arm")
    parent, p = "world", np.zeros(3)
    for k in range(n):
        e = np.array([1.0, 0.0, 0.0]) if k % 2 == 0 else np.array([0.0, 0.0, -1.0])
        size = (0.3, 0.08, 0.08) if k % 2 == 0 else (0.08, 0.08, 0.3)
        b.add_body(f"link{k}", shapes=[ims.Box(size=size)], density=800, position=p + 0.15 * e)
        b.add_hinge(f"joint{k}", parent, f"link{k}", anchor=p, axis=(0, 1, 0) if k % 2 == 0 else (1, 0, 0))
        b.add_limit(f"stops{k}", f"joint{k}", -0.6, 0.6, restitution=0.3)
        parent, p = f"link{k}", p + 0.3 * e
    return b.build()


def one_by_one(method):
    """The same method with its limits corrected one at a time (contact.limits), as without LGS."""
    method._limit_coupling = None
    return method


def test_an_arm_resting_on_its_stops_needs_a_few_passes_a_step():
    """1.2 s of the arm: it falls onto its stops and rests there, within its bounds, in at most 3 position and
    5 velocity passes a step on average (one by one: 65 and 250, measured with benchmarks/limits_run.py)."""
    model, state = limited_arm()
    method = ims.make_method("impulse", model, solver="lgs", contacts=False)
    assert method._limit_coupling is not None
    passes = np.zeros(2)
    steps = 1200
    for _ in range(steps):
        info = method.step(state, 1e-3)
        passes += (info.iters_pos, info.iters_vel)
        q = limit_coordinates(model, state)
        assert np.all(q >= model.limit_lower - 1e-6) and np.all(q <= model.limit_upper + 1e-6)
        assert info.converged_pos and info.converged_vel
    assert (method.limits.lam > 0).any(), "no stop holds the arm at the end: the case tests nothing"
    pos, vel = passes / steps
    assert pos <= 3.0 and vel <= 5.0, (pos, vel)


@pytest.mark.parametrize("seed", [202, 203, 204, 205])
def test_limits_solved_together_give_the_step_the_one_by_one_passes_converge_to(seed):
    """Random limited trees (random_models) run until two limits push; from there one step with the limits
    solved together and one with them corrected one by one, both to eps 1e-9: the positions agree within
    10 eps_d and the velocities within 1e-6 (the velocity passes stop at eps_vc = 1e-3 m/s, but a solve
    leaves the resting limits far closer; measured: 4e-10–9e-10 m and 3e-9–3e-7 m/s)."""
    model, state = limited_model(seed, 8)
    together = ims.make_method("impulse", model, solver="lgs", contacts=False, **TIGHT)
    for step in range(400):
        together.step(state, 0.004)
        if step > 50 and (together.limits.lam_pos > 0).sum() >= 2:
            break
    else:
        pytest.fail("no two limits pushed at once: the case tests nothing")
    apart = one_by_one(ims.make_method("impulse", model, solver="lgs", contacts=False, **TIGHT))
    a, b = state.copy(), state.copy()
    info_a, info_b = together.step(a, 0.004), apart.step(b, 0.004)
    assert info_a.iters_pos + info_a.iters_vel < info_b.iters_pos + info_b.iters_vel
    assert np.abs(a.body_pos - b.body_pos).max() <= 1e-8
    assert np.abs(a.body_vel - b.body_vel).max() <= 1e-6
    assert np.abs(a.body_omega - b.body_omega).max() <= 1e-6


def test_the_limits_are_solved_together_only_where_every_joint_is_in_an_lgs_chain():
    """Joints corrected one by one (the iterative solver) or contacts beside the limits: one by one."""
    model, _ = limited_arm(3)
    assert ims.make_method("impulse", model, solver="lgs", contacts=False)._limit_coupling is not None
    assert ims.make_method("impulse", model, solver="iterative", contacts=False)._limit_coupling is None
