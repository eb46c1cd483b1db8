"""The articulated-body algorithm against the Lagrange-multiplier method on seeded random trees."""
import numpy as np
import pytest

from impulsim.dynamics import diagnostics
from impulsim.methods.featherstone import FeatherstoneMethod
from impulsim.methods.lagrange import LagrangeMethod
from impulsim.methods.lagrange.evaluate import pack, unpack
from tests.featherstone.random_trees import random_tree_model, random_state

# Both methods solve the same equations of motion exactly (O(n) recursion vs. dense J M⁻¹ Jᵀ Cholesky);
# their accelerations differ only by round-off, ~1e-13 for these well-conditioned trees of 8 bodies.
ACC_TOL = 1e-9


def lagrange_body_accelerations(model, state):
    """Centre-of-mass and angular accelerations (world) of every body from the Lagrange method."""
    lm = LagrangeMethod(model, solver="dense", stabilization="none")
    lm.eval.begin_step(state, 1e-3)
    out = np.empty(13 * model.n_bodies)
    lm.eval.derivative(state.t, pack(state), out)
    _, _, acc, alpha = unpack(out, model.n_bodies)
    return acc, alpha


def featherstone_body_accelerations(model, state):
    """The same from the ABA's q̈, through the spatial accelerations of the bodies."""
    method = FeatherstoneMethod(model, contacts=False)
    method.accelerations(state)
    dyn, tree = method.dyn, method.tree
    acc, alpha = np.zeros((model.n_bodies, 3)), np.zeros((model.n_bodies, 3))
    for i in range(tree.n):
        b = tree.body[i]
        a = dyn.a[i].copy()
        a[3:] += model.gravity          # the ABA ran with the base accelerating at −g
        w, c, vc = dyn.v[i, :3], dyn.body_pos[b], dyn.body_vel[b]
        # classical acceleration of the centre: a_c = a_O + α × c + ω × v_c
        acc[b] = a[3:] + np.cross(a[:3], c) + np.cross(w, vc)
        alpha[b] = a[:3]
    return acc, alpha, tree


@pytest.mark.parametrize("floating", [False, True], ids=["fixed-base", "floating-base"])
@pytest.mark.parametrize("seed", range(6))
def test_aba_accelerations_match_lagrange_on_random_trees(seed, floating):
    model, state = random_tree_model(seed, n_bodies=8, floating=floating)
    state, _, _ = random_state(model, state, seed, speed=2.0)
    # the random state meets every joint (else the two methods would answer different questions)
    assert diagnostics.constraint_errors(model, state).max() < 1e-12
    acc_l, alpha_l = lagrange_body_accelerations(model, state)
    acc_f, alpha_f, tree = featherstone_body_accelerations(model, state)
    moving = tree.body
    assert np.abs(acc_f[moving] - acc_l[moving]).max() < ACC_TOL
    assert np.abs(alpha_f[moving] - alpha_l[moving]).max() < ACC_TOL


def test_coordinates_read_back_exactly():
    """q, q̇ → poses and velocities → q, q̇ is the identity (up to round-off) for every joint type."""
    model, state = random_tree_model(3, n_bodies=10, floating=True)
    state, q, qd = random_state(model, state, 3, speed=2.0)
    method = FeatherstoneMethod(model, contacts=False)
    q2, qd2 = method.coordinates(state)
    # quaternions may come back negated (same rotation): compare the poses they produce instead
    method.dyn.pose(q2)
    assert np.abs(method.dyn.body_pos - state.body_pos).max() < 1e-12
    assert np.abs(qd2 - qd).max() < 1e-12


def test_compiled_step_evaluates_the_same_accelerations():
    """The fused kernel the integrators call gives the q̈ of the stage-by-stage evaluation above."""
    from impulsim.methods.featherstone.fused import evaluate
    from impulsim.methods.featherstone.groups import model_of
    model, state = random_tree_model(2, n_bodies=8, floating=True)
    state, _, _ = random_state(model, state, 2, speed=2.0)
    method = FeatherstoneMethod(model, contacts=False)
    reference = method.accelerations(state)
    method._prepare(state)
    q, qd = method.coordinates(state)
    integ = method.integrator
    qdot, qdd = np.zeros(method.tree.nq), np.zeros(method.tree.nv)
    assert evaluate(integ.tree, model_of(model), integ.ws, 0.0, q, qd, qdot, qdd) == -1
    assert np.abs(qdd - reference).max() < 1e-12
