"""The LGS method as a whole: agreement with the iterative method, one factorization per step, chains and
per-chain solvers, anytime behaviour, velocity-only joints, and clear errors for bad options."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.experiments import bender as scenes
from impulsim.dynamics import diagnostics
from impulsim.dynamics.forces import compute_loads
from impulsim.errors import ModelError
from tests.impulse.random_models import random_model

EPS = 1e-10
# Both solvers stop once every primitive is within EPS of valid, so one step's results differ by up to
# EPS in position, EPS / h in velocity and EPS / (h r) in angular velocity for joints at a lever r from the
# centre of mass. Over a short run (no chaotic growth yet: measured growth is linear) the states differ by
# at most N times that after N steps.


def run(model, state, steps, h, torque=None, **options):
    method = ims.make_method("impulse", model, eps_d=EPS, eps_v=EPS, **options)
    st = state.copy()
    if torque is not None:
        st.body_torque[1] = torque
    for _ in range(steps):
        method.step(st, h)
        st.body_torque[:] = 0.0
    return method, st


@pytest.mark.parametrize("scene, steps, h, torque, lever", [
    (lambda: scenes.chain(10), 100, 0.01, None, 0.5),
    (lambda: scenes.tree(5), 10, 1 / 30, scenes.TREE_TORQUE, 0.5 * scenes.TREE_LEAF_LENGTH),
], ids=["chain10", "tree31"])
def test_lgs_and_iterative_reach_the_same_state(scene, steps, h, torque, lever):
    model, state = scene()
    _, a = run(model, state, steps, h, torque, solver="iterative")
    _, b = run(model, state, steps, h, torque, solver="lgs")
    assert np.abs(a.body_pos - b.body_pos).max() <= steps * EPS
    assert np.abs(a.body_vel - b.body_vel).max() <= steps * EPS / h
    assert np.abs(a.body_omega - b.body_omega).max() <= steps * EPS / (h * lever)


def test_one_factorization_per_step_reused_by_the_next_joint_correction():
    model, state = scenes.chain(8)
    method, _ = run(model, state, 25, 0.01, solver="lgs")
    # the first step factorizes at t0; each step then once at t0+h for its velocity correction, which
    # the next step's joint correction reuses
    assert method.factorizations == 25 + 1


def test_a_state_changed_between_steps_gets_a_fresh_factorization():
    model, state = scenes.chain(5)
    method = ims.make_method("impulse", model, solver="lgs")
    st = state.copy()
    method.step(st, 0.01)
    st.body_pos[3, 0] += 0.01           # the user moves a body: the cached factorization no longer fits
    method.step(st, 0.01)
    # each of the two steps factorizes at its start (nothing cached that fits) and at its end
    assert method.factorizations == 2 + 2
    assert diagnostics.constraint_errors(model, st).max() <= 1e-6


def test_independent_chains_are_found_and_can_use_different_solvers():
    b = ims.ModelBuilder("two pendulums")
    for side in (-1.0, 1.0):
        for k in range(3):
            b.add_body(f"p{side:+.0f}_{k}", shapes=[ims.Box(size=(0.1, 0.1, 1.0))], mass=1.0,
                       position=(side, 0.0, -(k + 0.5)), velocity=(0.0, 1.0, 0.0))
            parent = "world" if k == 0 else f"p{side:+.0f}_{k - 1}"
            b.add_ball(f"j{side:+.0f}_{k}", parent, f"p{side:+.0f}_{k}", anchor=(side, 0.0, -float(k)))
    model, state = b.build()
    # the pendulums hang 2 m apart and never touch: contacts off, as the LGS solver does not take them
    method = ims.make_method("impulse", model, solver="lgs", chain_solver={"p+1_2": "iterative"}, eps_d=EPS,
                             eps_v=EPS, contacts=False)
    chains = method.describe_chains()
    assert [sorted(c["bodies"]) for c in chains] == [["p-1_0", "p-1_1", "p-1_2"], ["p+1_0", "p+1_1", "p+1_2"]]
    assert [c["solver"] for c in chains] == ["lgs", "iterative"]
    st = state.copy()
    for _ in range(50):
        info = method.step(st, 0.01)
        assert info.converged_pos and info.converged_vel
    assert diagnostics.constraint_errors(model, st).max() <= EPS
    # the two pendulums are mirror images: the solvers agree within the bound of the agreement test
    left, right = st.body_pos[1:4], st.body_pos[4:7]
    assert np.abs(left[:, 1] - right[:, 1]).max() <= 50 * EPS


def test_anytime_cap_reports_the_residual_and_the_next_steps_recover():
    model, state = scenes.tree(6)
    method = ims.make_method("impulse", model, solver="lgs", max_iter_pos=1)
    st = state.copy()
    st.body_torque[1] = scenes.TREE_TORQUE
    info = method.step(st, 1 / 30)
    assert info.iters_pos == 1 and not info.converged_pos and info.residual_pos > 1e-6
    st.body_torque[1] = 0.0
    full = ims.make_method("impulse", model, solver="lgs")
    for _ in range(3):
        info = full.step(st, 1 / 30)
    assert info.converged_pos and diagnostics.constraint_errors(model, st).max() <= 1e-6


def test_velocity_joint_is_satisfied_before_the_joints_in_both_solvers():
    """A velocity-only joint (Bender 3.2.6) drags body "a" of a two-body ball chain hanging from the world.
    The drag is applied first, then the joints' velocity correction, so the joints hold exactly and the
    dragged body moves only as far as they allow; both solvers end in the same state."""
    states = {}
    for solver in ("iterative", "lgs"):
        b = ims.ModelBuilder("drag", gravity=(0, 0, 0))
        b.add_body("a", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], density=500, position=(0, 0, -0.2))
        b.add_body("b", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], density=500, position=(0, 0, -0.6))
        b.add_ball("top", "world", "a", anchor=(0, 0, 0))
        b.add_ball("ab", "a", "b", anchor=(0, 0, -0.4))
        b.add_velocity_joint("drag", "world", "a", anchor=(0, 0, -0.2), velocity=(0.0, 0.5, 0.0))
        model, state = b.build()
        method = ims.make_method("impulse", model, solver=solver, eps_d=EPS, eps_v=EPS)
        for _ in range(20):
            info = method.step(state, 0.01)
            assert info.converged_pos and info.converged_vel
        joints = [i for i in range(model.n_prims) if model.prim_kind[i] < 7]
        assert diagnostics.velocity_errors(model, state)[joints].max() <= EPS
        assert diagnostics.constraint_errors(model, state).max() <= EPS
        assert state.body_pos[1, 1] > 0.02          # it really was dragged
        states[solver] = state
    assert np.abs(states["lgs"].body_pos - states["iterative"].body_pos).max() <= 20 * EPS


def test_plain_loads_equal_compute_loads():
    model, state = scenes.chain(4)
    state.body_force[2] = (1.0, -2.0, 3.0)
    state.body_torque[3] = (0.5, 0.0, -0.5)
    method = ims.make_method("impulse", model, solver="lgs")
    from impulsim.methods.base import StepInfo, StageTimer
    from impulsim.methods.impulse import schemes
    schemes._loads(method, state, 0.01, StageTimer(StepInfo().timings))
    acc, tau = np.zeros_like(method.acc), np.zeros_like(method.tau)
    compute_loads(model, state, 0.01, acc, tau)
    assert np.array_equal(acc, method.acc) and np.array_equal(tau, method.tau)


@pytest.mark.parametrize("options, message", [
    (dict(solver="gauss"), "unknown solver 'gauss'"),
    (dict(solver="lgs", loops="magic"), "unknown loops 'magic'"),
    (dict(scheme="order5"), "unknown scheme 'order5'"),
    (dict(chain_solver={"nobody": "lgs"}), 'chain_solver: body "nobody" does not exist'),
    (dict(chain_solver={"world": "lgs"}), 'chain_solver: body "world" is not part of a chain'),
    (dict(chain_solver={"link0": "fast"}), 'unknown chain_solver for body "link0": solver \'fast\''),
    (dict(dependent_pivot=0.0), "dependent_pivot must be positive"),
])
def test_bad_options_are_named(options, message):
    model, _ = scenes.chain(3)
    with pytest.raises((ValueError, ModelError), match=message.replace("(", r"\(").replace(")", r"\)")):
        ims.make_method("impulse", model, **options)


def test_random_trees_stay_within_tolerance():
    """Random trees of every joint kind (seeded), 50 steps at h = 5 ms: every step converges."""
    for seed in range(4):
        model, state = random_model(seed, 6)
        # several branches hang from the world, so their boxes could touch: contacts off (LGS joints only)
        method = ims.make_method("impulse", model, solver="lgs", contacts=False)
        for _ in range(50):
            info = method.step(state, 0.005)
            assert info.converged_pos and info.converged_vel
        assert diagnostics.constraint_errors(model, state).max() <= 1e-6
